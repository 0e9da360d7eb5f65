#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/Xatom.h>
#include <X11/XKBlib.h>
#include <X11/keysym.h>
#include <X11/extensions/XTest.h>
#include <X11/extensions/record.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

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

/// Set on the thread that is opening a display: a server lost there cannot reach a per-display exit
/// handler yet, and Xlib's default one ends the process.
struct handsfree_x11_opener {
    pthread_mutex_t lock; /* one display is opened at a time */
    int active;
    pthread_t thread;
};

static inline struct handsfree_x11_opener *handsfree_x11_opener(void) {
    static struct handsfree_x11_opener opener = { PTHREAD_MUTEX_INITIALIZER, 0, 0 };
    return &opener;
}

/// Keeps quiet about a lost connection: the exit handler below reports it, and the shell owns the terminal.
/// While a display is being opened there is no exit handler of ours yet, so the opening thread ends here
/// instead of returning into Xlib's, which would exit the process.
static int handsfree_x11_on_io_error(Display *display) {
    (void)display;
    struct handsfree_x11_opener *opener = handsfree_x11_opener();
    if (opener->active && pthread_equal(opener->thread, pthread_self())) pthread_exit(NULL);
    return 0;
}

/// Marks the connection lost instead of Xlib's default exit handler, which ends the process; Xlib's call
/// then returns, and the sink makes no other call on that display.
static void handsfree_x11_on_io_exit(Display *display, void *lost) {
    (void)display;
    *(int *)lost = 1;
}

struct handsfree_x11_opening_call {
    const char *name;
    int *lost;
    Display *display;
};

static void *handsfree_x11_open_thread(void *argument) {
    struct handsfree_x11_opening_call *call = argument;
    struct handsfree_x11_opener *opener = handsfree_x11_opener();
    opener->thread = pthread_self();
    opener->active = 1;
    Display *display = XOpenDisplay(call->name);
    if (display != NULL) XSetIOErrorExitHandler(display, handsfree_x11_on_io_exit, call->lost);
    call->display = display;
    return NULL;
}

/// Opens `name` with the error handlers in place first, so that neither a protocol error nor a server lost
/// at any moment, inside XOpenDisplay included, ends the process: losing the server sets `*lost` (and
/// XOpenDisplay's thread ends with NULL for the display). XSetIOErrorExitHandler needs libX11 1.7.0.
static inline Display *handsfree_x11_open(const char *name, int *lost) {
    XSetErrorHandler(handsfree_x11_on_error);
    XSetIOErrorHandler(handsfree_x11_on_io_error);
    struct handsfree_x11_opening_call call = { name, lost, NULL };
    struct handsfree_x11_opener *opener = handsfree_x11_opener();
    pthread_mutex_lock(&opener->lock);
    pthread_t thread;
    if (pthread_create(&thread, NULL, handsfree_x11_open_thread, &call) != 0) {
        pthread_mutex_unlock(&opener->lock);
        return NULL;
    }
    pthread_join(thread, NULL);
    opener->active = 0;
    pthread_mutex_unlock(&opener->lock);
    return call.display;
}

/// The first resource id of a connection, which the X server records its requests under.
static inline XID handsfree_x11_resource_base(Display *display) {
    /* Xlibint.h names it resource_base; Xlib.h, private3. */
    return ((_XPrivDisplay)display)->private3;
}

/// A RECORD context that watches for the focused program fetching the keyboard mapping after this
/// connection changed it: the evidence that the program has read the keys sent before the change.
struct handsfree_x11_watch {
    Display *data;            /* the connection the recorded requests come on */
    XRecordContext context;
    int xkb_major;            /* the XKEYBOARD request code (its GetMap is the fetch most programs make) */
    XID own_base;             /* the sink's connection, whose mapping changes are counted */
    unsigned long changes;    /* the sink's ChangeKeyboardMapping requests recorded so far */
    unsigned long changed_code; /* the keycode the last one changed */
    unsigned long proven;     /* the last change a fetch covering its key came after */
    /* Xt (xterm's toolkit) rebuilds its keysym tables, a GetKeyboardMapping then a GetModifierMapping, as it
       handles a MappingNotify from later than its last rebuild (the event's serial at least that request's):
       so a rebuild shows the program handled, in the order of its queue, an event made after the server
       handled the rebuild before it, and with it every key delivered before that one. */
    int after_101;            /* the last request recorded from the program was a GetKeyboardMapping not after a GetModifierMapping */
    int last_request;         /* the last request recorded from the program (119 at first: unknown) */
    unsigned long rebuilds;   /* Xt rebuilds seen */
    unsigned long changes_at_rebuild; /* the sink's changes recorded before the last rebuild */
    unsigned long changes_at_earlier; /* ... and before the one before it */
    unsigned long handled;    /* changes every key sent before which the program has handled */
};

static void handsfree_x11_recorded(XPointer closure, XRecordInterceptData *data) {
    struct handsfree_x11_watch *watch = (struct handsfree_x11_watch *)closure;
    if (data->category == XRecordFromClient && data->data_len >= 1) {
        const unsigned char *request = data->data;
        size_t bytes = (size_t)data->data_len * 4;
        if (data->id_base == watch->own_base) {
            if (request[0] == 100 && bytes >= 8) { /* X_ChangeKeyboardMapping: firstKeyCode at byte 4 */
                watch->changes++;
                watch->changed_code = request[4];
            }
        } else {
            /* A rebuild is 101 then 119. xterm's own mapping callback makes 119 then 101, so two of them in
               a row read 119 101 119 101: a 101 after a 119 is never taken for a rebuild's (a missed rebuild
               only delays the evidence; a false one would advance it). */
            int rebuilt = watch->after_101 && request[0] == 119;
            watch->after_101 = request[0] == 101 && watch->last_request != 119;
            watch->last_request = request[0];
            if (rebuilt) {
                /* Taken from the rebuild two before, not one: a GetKeyboardMapping then GetModifierMapping
                   that Xlib makes as it fills its own core tables again (at a lookup, in no order) reads the
                   same as a rebuild, and one such taken for a rebuild must not be enough. */
                if (watch->rebuilds > 1) watch->handled = watch->changes_at_earlier;
                watch->rebuilds++;
                watch->changes_at_earlier = watch->changes_at_rebuild;
                watch->changes_at_rebuild = watch->changes;
            }
        }
        if (data->id_base != watch->own_base && watch->changes > 0) {
            if (request[0] == 101) {
                /* A core GetKeyboardMapping (toolkits such as Xt make one as they handle the change). */
                watch->proven = watch->changes;
            } else if ((int)request[0] == watch->xkb_major && bytes >= 14 && request[1] == 8) {
                /* XkbGetMap: full (bytes 6-7) or partial (8-9) keysyms, firstKeySym 12, nKeySyms 13. */
                unsigned full = request[6] | (request[7] << 8), partial = request[8] | (request[9] << 8);
                unsigned first = request[12], count = request[13];
                if ((full & XkbKeySymsMask) ||
                    ((partial & XkbKeySymsMask) && watch->changed_code >= first && watch->changed_code < first + count))
                    watch->proven = watch->changes;
            }
        }
    }
    XRecordFreeData(data);
}

/// Starts watching the program that owns `target` (a window) for mapping fetches, on a connection of its own
/// to `name`; NULL when the server has no RECORD extension or the watch could not start.
static inline struct handsfree_x11_watch *handsfree_x11_watch_start(Display *control, const char *name,
                                                                     Window target, int *lost) {
    int major = 0, minor = 0;
    if (!XRecordQueryVersion(control, &major, &minor)) return NULL;
    int opcode = 0, event = 0, error = 0;
    if (!XQueryExtension(control, "XKEYBOARD", &opcode, &event, &error)) opcode = -1;
    struct handsfree_x11_watch *watch = calloc(1, sizeof *watch);
    if (watch == NULL) return NULL;
    watch->xkb_major = opcode;
    watch->last_request = 119;
    watch->own_base = handsfree_x11_resource_base(control);
    watch->data = handsfree_x11_open(name, lost);
    if (watch->data == NULL) { free(watch); return NULL; }
    XRecordRange *ranges[3];
    ranges[0] = XRecordAllocRange();
    ranges[1] = XRecordAllocRange();
    ranges[2] = XRecordAllocRange();
    if (ranges[0] == NULL || ranges[1] == NULL || ranges[2] == NULL) {
        XFree(ranges[0]); XFree(ranges[1]); XFree(ranges[2]);
        XCloseDisplay(watch->data);
        free(watch);
        return NULL;
    }
    ranges[0]->core_requests.first = 100; /* ChangeKeyboardMapping, GetKeyboardMapping */
    ranges[0]->core_requests.last = 101;
    ranges[1]->core_requests.first = ranges[1]->core_requests.last = 119; /* GetModifierMapping */
    int count = 2;
    if (opcode > 0) {
        ranges[2]->ext_requests.ext_major.first = ranges[2]->ext_requests.ext_major.last = (unsigned char)opcode;
        ranges[2]->ext_requests.ext_minor.first = ranges[2]->ext_requests.ext_minor.last = 8; /* GetMap */
        count = 3;
    }
    /* The program by one of its windows; this connection by its default GC, a resource it owns. */
    XRecordClientSpec clients[2] = { target, XGContextFromGC(DefaultGC(control, DefaultScreen(control))) };
    *handsfree_x11_error_slot() = 0;
    watch->context = XRecordCreateContext(control, 0, clients, 2, ranges, count);
    XFree(ranges[0]);
    XFree(ranges[1]);
    XFree(ranges[2]);
    XSync(control, False);
    if (watch->context == 0 || *handsfree_x11_error_slot() != 0 || *lost) {
        *handsfree_x11_error_slot() = 0;
        XCloseDisplay(watch->data);
        free(watch);
        return NULL;
    }
    if (!XRecordEnableContextAsync(watch->data, watch->context, handsfree_x11_recorded, (XPointer)watch)) {
        XRecordFreeContext(control, watch->context);
        XCloseDisplay(watch->data);
        free(watch);
        return NULL;
    }
    XFlush(watch->data);
    return watch;
}

/// Takes in what was recorded, waiting up to `milliseconds` for more; returns the last proven change.
static inline unsigned long handsfree_x11_watch_poll(struct handsfree_x11_watch *watch, int milliseconds, int *lost) {
    if (*lost) return watch->proven;
    struct pollfd p = { ConnectionNumber(watch->data), POLLIN, 0 };
    poll(&p, 1, milliseconds);
    if (!*lost) XRecordProcessReplies(watch->data);
    return watch->proven;
}

/// How many Xt keysym table rebuilds the program was seen to make (none: it is no Xt program).
static inline unsigned long handsfree_x11_watch_rebuilds(struct handsfree_x11_watch *watch) { return watch->rebuilds; }

/// How many of the sink's changes were recorded before the program's last rebuild.
static inline unsigned long handsfree_x11_watch_changes_at_rebuild(struct handsfree_x11_watch *watch) {
    return watch->changes_at_rebuild;
}

/// How many of the sink's changes the program has handled every key sent before (by its rebuilds).
static inline unsigned long handsfree_x11_watch_handled(struct handsfree_x11_watch *watch) { return watch->handled; }

/// How many of the sink's mapping changes were recorded.
static inline unsigned long handsfree_x11_watch_changes(struct handsfree_x11_watch *watch) { return watch->changes; }

/// Stops watching. `control` is skipped when its server is gone.
static inline void handsfree_x11_watch_stop(struct handsfree_x11_watch *watch, Display *control, int lost) {
    if (watch == NULL) return;
    if (!lost) {
        XRecordDisableContext(control, watch->context);
        XRecordFreeContext(control, watch->context);
        XSync(control, False);
    }
    XCloseDisplay(watch->data);
    free(watch);
}
