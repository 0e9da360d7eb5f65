#define _GNU_SOURCE
#include "cpty.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pty.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>
#include <utmp.h>

/* Only async-signal-safe calls from here on: this runs in the forked child. */
static void child_write(const char *s) {
    size_t n = strlen(s);
    while (n > 0) {
        ssize_t w = write(2, s, n);
        if (w <= 0) return;
        s += w;
        n -= (size_t)w;
    }
}

static const char *child_reason(int err) {
    switch (err) {
    case ENOENT: return "command not found";
    case EACCES: return "permission denied";
    case ENOEXEC: return "not an executable format";
    case ENOTDIR: return "not a directory in the path";
    case E2BIG: return "argument list too long";
    case ENOMEM: return "out of memory";
    default: return "cannot be run";
    }
}

static const char *child_path_of(const char *const envp[]) {
    for (size_t i = 0; envp[i] != NULL; i++)
        if (strncmp(envp[i], "PATH=", 5) == 0) return envp[i] + 5;
    return "/usr/local/bin:/usr/bin:/bin";
}

/* Runs argv[0] like execvpe but with the child's own PATH (execvpe reads the parent's environment). */
static int child_exec(const char *const argv[], const char *const envp[]) {
    const char *file = argv[0];
    if (file[0] == '\0') return ENOENT;
    if (strchr(file, '/') != NULL) {
        execve(file, (char *const *)argv, (char *const *)envp);
        return errno;
    }
    char buf[PATH_MAX];
    size_t flen = strlen(file);
    int seen_eacces = 0;
    const char *p = child_path_of(envp);
    for (;;) {
        const char *end = strchr(p, ':');
        size_t dlen = end ? (size_t)(end - p) : strlen(p);
        if (dlen == 0) { buf[0] = '.'; dlen = 1; } else if (dlen < sizeof buf) memcpy(buf, p, dlen);
        if (dlen + 1 + flen + 1 <= sizeof buf) {
            buf[dlen] = '/';
            memcpy(buf + dlen + 1, file, flen + 1);
            execve(buf, (char *const *)argv, (char *const *)envp);
            if (errno == EACCES) seen_eacces = 1;
            else if (errno != ENOENT && errno != ENOTDIR) return errno;
        }
        if (end == NULL) break;
        p = end + 1;
    }
    return seen_eacces ? EACCES : ENOENT;
}

int cpty_spawn(const char *const argv[], const char *const envp[], const char *cwd,
               unsigned short rows, unsigned short cols, int *master_out, pid_t *pid_out) {
    if (argv == NULL || argv[0] == NULL || envp == NULL) return EINVAL;
    int master = -1, slave = -1;
    struct winsize ws = { .ws_row = rows, .ws_col = cols, .ws_xpixel = 0, .ws_ypixel = 0 };
    if (openpty(&master, &slave, NULL, NULL, &ws) != 0) return errno;

    /* The kernel starts ptys without IUTF8, so the line discipline's backspace would erase one byte of a
       multi-byte character instead of the character. */
    struct termios t;
    if (tcgetattr(slave, &t) == 0) {
        t.c_iflag |= IUTF8;
        tcsetattr(slave, TCSANOW, &t);
    }
    int flags = fcntl(master, F_GETFL);
    if (flags < 0 || fcntl(master, F_SETFL, flags | O_NONBLOCK) != 0 || fcntl(master, F_SETFD, FD_CLOEXEC) != 0) {
        int err = errno;
        close(master); close(slave);
        return err;
    }

    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(master); close(slave);
        return err;
    }
    if (pid == 0) {
        close(master);
        /* New session, slave as controlling terminal and as fds 0-2. */
        if (login_tty(slave) != 0) _exit(126);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        for (int s = 1; s < NSIG; s++) sigaction(s, &dfl, NULL);
        close_range(3, ~0U, 0);
        if (cwd != NULL && chdir(cwd) != 0) {
            child_write("handsfree: cannot enter directory ");
            child_write(cwd);
            child_write("\r\n");
            _exit(126);
        }
        int err = child_exec(argv, envp);
        child_write("handsfree: ");
        child_write(argv[0]);
        child_write(": ");
        child_write(child_reason(err));
        child_write("\r\n");
        _exit(err == ENOENT ? 127 : 126);
    }
    close(slave);
    *master_out = master;
    *pid_out = pid;
    return 0;
}

int cpty_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int cpty_set_winsize(int fd, unsigned short rows, unsigned short cols) {
    struct winsize ws = { .ws_row = rows, .ws_col = cols, .ws_xpixel = 0, .ws_ypixel = 0 };
    return ioctl(fd, TIOCSWINSZ, &ws);
}

int cpty_get_winsize(int fd, unsigned short *rows, unsigned short *cols) {
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0) return -1;
    *rows = ws.ws_row;
    *cols = ws.ws_col;
    return 0;
}

int cpty_input_modes(int fd, int *echo, int *icanon) {
    struct termios t;
    if (tcgetattr(fd, &t) != 0) return -1;
    *echo = (t.c_lflag & ECHO) ? 1 : 0;
    *icanon = (t.c_lflag & ICANON) ? 1 : 0;
    return 0;
}

pid_t cpty_foreground_pgrp(int fd) {
    return tcgetpgrp(fd);
}

int cpty_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}
