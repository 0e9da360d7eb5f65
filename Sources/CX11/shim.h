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

/// A RECORD context that watches the focused program for the evidence that it handled the keys sent to it.
///
/// The strong evidence is its answer to a marker: an Expose event the sink sends its windows after the keys
/// (XSendEvent), of a strip of the top inner border, which a program takes from its queue in order, behind
/// the keys, looking each key up as it handles it; xterm answers by clearing exactly that strip (a
/// ClearArea no drawing of its own makes). Each marker's strip (its start and width) is drawn at random, so
/// that a late answer to an earlier one, this sink's or another's, is taken for it only by chance (the sink
/// asks for two answers in order where that chance matters). Nothing a program does on *reading* a change is such evidence:
/// Xlib fetches the mapping lazily, at the next key it looks up after reading a change, which may be one
/// queued before the change, and Xt's and xterm's own refetches as they handle a MappingNotify read the
/// same as those (a marker sent as a MappingNotify was answered by fetches real changes also cause).
///
/// The weaker evidence, for a program that answers no marker: it fetched the mapping after the sink changed
/// it, which shows only that it read the change.
struct handsfree_x11_watch {
    Display *data;            /* the connection the recorded requests come on */
    XRecordContext context;
    int xkb_major;            /* the XKEYBOARD request code (its GetMap is the fetch most programs make) */
    XID own_base;             /* the sink's connection, whose mapping changes are counted */
    unsigned long changes;    /* the sink's ChangeKeyboardMapping requests recorded so far */
    unsigned long changed_code; /* the keycode the last one changed */
    unsigned long proven;     /* the last change a fetch covering its key came after */
    unsigned expect_x, expect_width; /* the strip (y 0, height 1) of the marker waiting for its answer */
    unsigned long answers;    /* ClearAreas of exactly that strip since it was set */
    unsigned long requests;   /* requests recorded from the program: it is making progress */
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
            watch->requests++;
            if (request[0] == 61 && bytes >= 16) {
                /* X_ClearArea: x, y, width, height (16 bits each, in the program's byte order) from byte 8. */
                unsigned v[4];
                for (int i = 0; i < 4; i++) {
                    unsigned lo = request[8 + 2 * i], hi = request[9 + 2 * i];
                    v[i] = data->client_swapped ? (lo << 8 | hi) : (hi << 8 | lo);
                }
                if (v[0] == watch->expect_x && v[1] == 0 && v[2] == watch->expect_width && v[3] == 1) watch->answers++;
            } else if ((int)request[0] == watch->xkb_major && bytes >= 14 && request[1] == 8) {
                /* XkbGetMap: full (bytes 6-7) or partial (8-9) keysyms, firstKeySym 12, nKeySyms 13. */
                unsigned full = request[6] | (request[7] << 8), partial = request[8] | (request[9] << 8);
                unsigned first = request[12], count = request[13];
                if (watch->changes > 0 && ((full & XkbKeySymsMask) ||
                    ((partial & XkbKeySymsMask) && watch->changed_code >= first && watch->changed_code < first + count)))
                    watch->proven = watch->changes;
            } else if (request[0] == 101 && watch->changes > 0) {
                /* A core GetKeyboardMapping (toolkits such as Xt make one as they handle the change). */
                watch->proven = watch->changes;
            }
        }
    }
    XRecordFreeData(data);
}

static void handsfree_x11_send_expose(Display *display, Window window, int x, int width, int depth) {
    XEvent event;
    memset(&event, 0, sizeof event);
    event.xexpose.type = Expose;
    event.xexpose.display = display;
    event.xexpose.window = window;
    event.xexpose.x = x;
    event.xexpose.y = 0;
    event.xexpose.width = width;
    event.xexpose.height = 1;
    /* No event mask: the event goes to the client that made the window. */
    XSendEvent(display, window, False, 0, &event);
    Window root = 0, parent = 0, *children = NULL;
    unsigned count = 0;
    if (depth < 3 && XQueryTree(display, window, &root, &parent, &children, &count) && children != NULL) {
        for (unsigned i = 0; i < count && i < 16; i++) handsfree_x11_send_expose(display, children[i], x, width, depth + 1);
        XFree(children);
    }
}

/// Sends the windows of `target`'s program a marker: an Expose of the strip from (`x`, 0), `width` pixels
/// wide and one high, to `target` and to each window inside it (three levels down, sixteen to a level),
/// queued behind every key the server delivered before. Its answer is a ClearArea of that strip.
static inline void handsfree_x11_send_marker(Display *display, Window target, int x, int width) {
    handsfree_x11_send_expose(display, target, x, width, 0);
}

/// Sets the strip of the marker whose answer the watch counts from now on.
static inline void handsfree_x11_watch_expect(struct handsfree_x11_watch *watch, int x, int width) {
    watch->expect_x = (unsigned)x;
    watch->expect_width = (unsigned)width;
    watch->answers = 0;
}

/// How many answers to the expected marker were recorded.
static inline unsigned long handsfree_x11_watch_answers(struct handsfree_x11_watch *watch) { return watch->answers; }

/// How many requests of the program were recorded.
static inline unsigned long handsfree_x11_watch_requests(struct handsfree_x11_watch *watch) { return watch->requests; }

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
    watch->own_base = handsfree_x11_resource_base(control);
    watch->data = handsfree_x11_open(name, lost);
    if (watch->data == NULL) { free(watch); return NULL; }
    XRecordRange *ranges[4];
    for (int i = 0; i < 4; i++) ranges[i] = XRecordAllocRange();
    if (ranges[0] == NULL || ranges[1] == NULL || ranges[2] == NULL || ranges[3] == NULL) {
        for (int i = 0; i < 4; i++) XFree(ranges[i]);
        XCloseDisplay(watch->data);
        free(watch);
        return NULL;
    }
    ranges[0]->core_requests.first = 100; /* ChangeKeyboardMapping, GetKeyboardMapping */
    ranges[0]->core_requests.last = 101;
    ranges[1]->core_requests.first = ranges[1]->core_requests.last = 119; /* GetModifierMapping */
    ranges[2]->core_requests.first = ranges[2]->core_requests.last = 61; /* ClearArea: a marker's answer */
    int count = 3;
    if (opcode > 0) {
        ranges[3]->ext_requests.ext_major.first = ranges[3]->ext_requests.ext_major.last = (unsigned char)opcode;
        ranges[3]->ext_requests.ext_minor.first = ranges[3]->ext_requests.ext_minor.last = 8; /* GetMap */
        count = 4;
    }
    /* The program by one of its windows; this connection by its default GC, a resource it owns. */
    XRecordClientSpec clients[2] = { target, XGContextFromGC(DefaultGC(control, DefaultScreen(control))) };
    *handsfree_x11_error_slot() = 0;
    watch->context = XRecordCreateContext(control, 0, clients, 2, ranges, count);
    for (int i = 0; i < 4; i++) XFree(ranges[i]);
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
