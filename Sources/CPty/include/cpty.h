#ifndef HANDSFREE_CPTY_H
#define HANDSFREE_CPTY_H

#include <sys/types.h>

/* Spawning and querying a child on a pseudo-terminal. Everything between fork and exec happens here in C,
   because Swift code must not run in a forked child (its runtime may hold locks another thread owned). */

/* Opens a pty of rows x cols with IUTF8 set, forks, and runs argv[0] (searched on envp's PATH when it has
   no slash) with envp in a new session whose controlling terminal is the pty's slave. The master is
   non-blocking and close-on-exec. cwd may be NULL. If exec fails, the child writes a one-line message to the
   pty and exits with 127 (not found) or 126 (found but not runnable), as shells do.
   Returns 0 and fills *master_out and *pid_out, or returns an errno value. */
int cpty_spawn(const char *const argv[], const char *const envp[], const char *cwd,
               unsigned short rows, unsigned short cols, int *master_out, pid_t *pid_out);

/* pidfd_open(2): a descriptor that polls readable once the process has exited; -1 with errno on failure. */
int cpty_pidfd_open(pid_t pid);

/* Sets the pty's window size (TIOCSWINSZ); the kernel sends SIGWINCH to the foreground group. 0 or -1. */
int cpty_set_winsize(int fd, unsigned short rows, unsigned short cols);

/* Reads the window size (TIOCGWINSZ). 0 or -1. */
int cpty_get_winsize(int fd, unsigned short *rows, unsigned short *cols);

/* Reads the slave's local-mode flags through the master: *echo and *icanon become 0 or 1. 0 or -1. */
int cpty_input_modes(int fd, int *echo, int *icanon);

/* tcgetpgrp(3) on the master: the foreground process group of the pty's session, or -1. */
pid_t cpty_foreground_pgrp(int fd);

/* pipe2(fds, O_CLOEXEC), which Swift's Glibc module lacks. 0 or -1 with errno. */
int cpty_pipe_cloexec(int fds[2]);

#endif
