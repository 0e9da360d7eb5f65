#define _XOPEN_SOURCE_EXTENDED 1
#include <locale.h>
#include <signal.h>
#include <unistd.h>
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
}
