#ifndef HANDSFREE_TERMINAL_GUARD_H
#define HANDSFREE_TERMINAL_GUARD_H

/* Restoring the terminal after a crash. The terminal's settings are saved before curses changes them; a
   crash signal (SIGILL, SIGSEGV, SIGABRT, SIGBUS, SIGFPE) puts them back with tcsetattr and write(2) only
   (both async-signal-safe), then hands the signal on: to the handler that was there before (the Swift
   runtime's backtracer) or to the default action.

   A C file of its own: Swift's importer does not emit a header's static struct variables, so this state
   cannot live in a static inline shim. */

/* Saves the settings of the terminal on in_fd (reset sequences go to out_fd) and installs the crash handlers
   once. Does nothing when in_fd is not a terminal. */
void handsfree_save_terminal(int in_fd, int out_fd);

/* The terminal was given back normally: a later crash has nothing to restore. */
void handsfree_forget_terminal(void);

#endif
