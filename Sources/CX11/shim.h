#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/keysym.h>
#include <X11/extensions/XTest.h>

/// Where the X protocol error handler keeps the last error code (0: none since it was cleared).
static inline int *handsfree_x11_error_slot(void) {
    static int code;
    return &code;
}

/// Notes a protocol error instead of Xlib's default, which prints and exits the process.
static int handsfree_x11_on_error(Display *display, XErrorEvent *event) {
    (void)display;
    *handsfree_x11_error_slot() = event->error_code;
    return 0;
}

/// Keeps quiet about a lost connection: the exit handler below reports it, and the shell owns the terminal.
static int handsfree_x11_on_io_error(Display *display) {
    (void)display;
    return 0;
}

/// Marks the connection lost instead of Xlib's default exit handler, which ends the process; Xlib's call
/// then returns and later calls on the display do nothing.
static void handsfree_x11_on_io_exit(Display *display, void *lost) {
    (void)display;
    *(int *)lost = 1;
}

/// Makes X errors on `display` survivable: protocol errors are noted, and losing the server sets `*lost`
/// instead of exiting (XSetIOErrorExitHandler, libX11 1.7.0 and later).
static inline void handsfree_x11_watch(Display *display, int *lost) {
    XSetErrorHandler(handsfree_x11_on_error);
    XSetIOErrorHandler(handsfree_x11_on_io_error);
    XSetIOErrorExitHandler(display, handsfree_x11_on_io_exit, lost);
}
