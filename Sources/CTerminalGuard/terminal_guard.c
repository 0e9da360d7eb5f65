#define _GNU_SOURCE
#include "terminal_guard.h"
#include <signal.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static struct termios saved;
static volatile sig_atomic_t saved_fd = -1;
static volatile sig_atomic_t out_fd = -1;
static struct sigaction previous[32];
static int installed = 0;
/* Attributes off, cursor shown, keypad mode off, main screen back, then a new line. */
static const char reset_sequence[] = "\033[0m\033[?25h\033[?1l\033>\033[?1049l\r\n";

static void restore(void) {
    if (saved_fd >= 0) tcsetattr(saved_fd, TCSANOW, &saved);
    if (out_fd >= 0) {
        ssize_t r = write(out_fd, reset_sequence, sizeof reset_sequence - 1);
        (void)r;
    }
    saved_fd = -1;
    out_fd = -1;
}

static void on_crash(int sig, siginfo_t *info, void *context) {
    (void)context;
    restore();
    if (sig > 0 && sig < 32) sigaction(sig, &previous[sig], 0);
    /* A signal sent by kill, raise or abort is sent again (delivered to the handler put back once this one
       returns); a real fault re-executes the faulting instruction on return and meets that handler then. */
    if (info == 0 || info->si_code <= 0) raise(sig);
}

void handsfree_save_terminal(int in, int out) {
    if (tcgetattr(in, &saved) != 0) return;
    saved_fd = in;
    out_fd = out;
    if (installed) return;
    installed = 1;
    const int sigs[] = { SIGILL, SIGSEGV, SIGABRT, SIGBUS, SIGFPE };
    for (unsigned k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_crash;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_SIGINFO;
        sigaction(sigs[k], &sa, &previous[sigs[k]]);
    }
}

void handsfree_forget_terminal(void) {
    saved_fd = -1;
    out_fd = -1;
}
