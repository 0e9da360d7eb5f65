/* What `pkg-config --cflags ncursesw` asks for, defined here because SwiftPM refuses -D flags from
   pkg-config; _XOPEN_SOURCE_EXTENDED turns on the wide-character (UTF-8) curses calls. */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1
#endif
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 600
#endif
#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <signal.h>
#include <pthread.h>
#include <unistd.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <ncursesw/curses.h>

static inline int handsfree_a_bold(void) { return A_BOLD; }
static inline int handsfree_a_reverse(void) { return A_REVERSE; }
static inline int handsfree_a_underline(void) { return A_UNDERLINE; }
static inline int handsfree_a_dim(void) { return A_DIM; }
static inline int handsfree_color_pair(int n) { return COLOR_PAIR(n); }

/* The write end of the shell's signal pipe; a signal writes its number there so the main loop can
   restore the terminal and exit normally (only async-signal-safe calls happen in the handler). */
static int handsfree_signal_fd = -1;
static inline void handsfree_on_signal(int sig) {
    unsigned char b = (unsigned char)sig;
    if (handsfree_signal_fd >= 0) { ssize_t r = write(handsfree_signal_fd, &b, 1); (void)r; }
}
static inline void handsfree_install_signals(int fd) {
    handsfree_signal_fd = fd;
    struct sigaction sa;
    sa.sa_handler = handsfree_on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(SIGINT, &sa, 0);
    sigaction(SIGTERM, &sa, 0);
    sigaction(SIGHUP, &sa, 0);
    /* A parent may have started us with these blocked (children the test runner started through
       Foundation's Process were): they would stay pending and Ctrl-C would never end the program. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_UNBLOCK, &set, 0);
}

/* Opens a pseudo-terminal for benchmarks; returns the master fd and writes the slave path.
   Uses the Linux ioctls because posix_openpt is hidden behind feature macros Swift's Glibc does not set. */
static inline int handsfree_open_pty(char *path, int len) {
    int fd = open("/dev/ptmx", O_RDWR | O_NOCTTY);
    if (fd < 0) return -1;
    int unlock = 0;
    unsigned int n = 0;
    if (ioctl(fd, TIOCSPTLCK, &unlock) != 0 || ioctl(fd, TIOCGPTN, &n) != 0) { close(fd); return -1; }
    snprintf(path, (size_t)len, "/dev/pts/%u", n);
    return fd;
}
