/* The wlr-virtual-pointer-unstable-v1 protocol as libwayland tables, and the calls the Wayland sink's pointer
   makes. Like the keyboard's, the tables are written from the specification (and checked against the
   generated tables of wayland-rs): zwlr_virtual_pointer_manager_v1 (version 2) requests
   0 create_virtual_pointer(seat: object wl_seat nullable, id: new_id zwlr_virtual_pointer_v1), 1 destroy
   (destructor), 2 create_virtual_pointer_with_output(seat: ?wl_seat, output: ?wl_output, id: new_id, since 2);
   zwlr_virtual_pointer_v1 (version 2) requests 0 motion(time: uint, dx: fixed, dy: fixed),
   1 motion_absolute(time, x, y, x_extent, y_extent: uint), 2 button(time, button, state: uint),
   3 axis(time, axis: uint, value: fixed), 4 frame, 5 axis_source(axis_source: uint), 6 axis_stop(time, axis:
   uint), 7 axis_discrete(time, axis: uint, value: fixed, discrete: int), 8 destroy (destructor). No events. */

#include "cvirtualkeyboard.h"

#include <errno.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>

static const struct wl_interface virtual_pointer_interface;

static const struct wl_interface *no_types[] = { NULL, NULL, NULL, NULL, NULL };
static const struct wl_interface *create_types[] = { &wl_seat_interface, &virtual_pointer_interface };
static const struct wl_interface *create_with_output_types[] = {
    &wl_seat_interface, &wl_output_interface, &virtual_pointer_interface,
};

static const struct wl_message virtual_pointer_requests[] = {
    { "motion", "uff", no_types },
    { "motion_absolute", "uuuuu", no_types },
    { "button", "uuu", no_types },
    { "axis", "uuf", no_types },
    { "frame", "", no_types },
    { "axis_source", "u", no_types },
    { "axis_stop", "uu", no_types },
    { "axis_discrete", "uufi", no_types },
    { "destroy", "", no_types },
};

static const struct wl_interface virtual_pointer_interface = {
    "zwlr_virtual_pointer_v1", 2, 9, virtual_pointer_requests, 0, NULL,
};

static const struct wl_message manager_requests[] = {
    { "create_virtual_pointer", "?on", create_types },
    { "destroy", "", no_types },
    { "create_virtual_pointer_with_output", "2?o?on", create_with_output_types },
};

static const struct wl_interface manager_interface = {
    "zwlr_virtual_pointer_manager_v1", 2, 3, manager_requests, 0, NULL,
};

enum {
    POINTER_MOTION = 0, POINTER_MOTION_ABSOLUTE = 1, POINTER_BUTTON = 2, POINTER_AXIS = 3, POINTER_FRAME = 4,
    POINTER_AXIS_SOURCE = 5, POINTER_AXIS_STOP = 6, POINTER_AXIS_DISCRETE = 7, POINTER_DESTROY = 8,
};
enum { MANAGER_CREATE_VIRTUAL_POINTER = 0, MANAGER_DESTROY = 1 };
enum { AXIS_SOURCE_WHEEL = 0 };

struct hf_vp {
    struct wl_display *display;
    struct wl_registry *registry;
    struct wl_seat *seat;
    struct wl_proxy *manager;
    struct wl_proxy *pointer;
    int failure;
    uint32_t capabilities; /* the seat's, as last announced */
    int had_pointer; /* whether the seat had a pointer before this one was made */
    char path[4096];  /* the compositor's socket, as the kernel names it */
};

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t capabilities) {
    (void)seat;
    ((struct hf_vp *)data)->capabilities = capabilities;
}

static void seat_name(void *data, struct wl_seat *seat, const char *name) {
    (void)data; (void)seat; (void)name;
}

static const struct wl_seat_listener seat_listener = { seat_capabilities, seat_name };

static void global_added(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                         uint32_t version) {
    struct hf_vp *vp = data;
    (void)version;
    /* Version 1 has every request the sink makes. */
    if (vp->seat == NULL && strcmp(interface, wl_seat_interface.name) == 0) {
        vp->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
    } else if (vp->manager == NULL && strcmp(interface, manager_interface.name) == 0) {
        vp->manager = wl_registry_bind(registry, name, &manager_interface, 1);
    }
}

static void global_removed(void *data, struct wl_registry *registry, uint32_t name) {
    (void)data; (void)registry; (void)name;
}

static const struct wl_registry_listener registry_listener = { global_added, global_removed };

/* Sends what is buffered, waiting (up to 5 s) while the socket is full rather than failing. */
static int flush(struct hf_vp *vp) {
    for (;;) {
        if (wl_display_flush(vp->display) >= 0) return 0;
        if (errno != EAGAIN) { vp->failure = errno; return -1; }
        struct pollfd p = { wl_display_get_fd(vp->display), POLLOUT, 0 };
        int n = poll(&p, 1, 5000);
        if (n == 0) { vp->failure = ETIMEDOUT; errno = ETIMEDOUT; return -1; }
        if (n < 0 && errno != EINTR) { vp->failure = errno; return -1; }
    }
}

/* A display that failed keeps failing; a request on it would be lost silently. */
static int usable(struct hf_vp *vp) {
    int e = hf_vp_error(vp);
    if (e != 0) { errno = e; return 0; }
    return 1;
}

struct hf_vp *hf_vp_connect(const char *name, int *status, int *err_out) {
    *err_out = 0;
    struct hf_vp *vp = calloc(1, sizeof *vp);
    if (vp == NULL) { *status = HF_VP_BROKEN; *err_out = ENOMEM; return NULL; }
    vp->display = wl_display_connect(name);
    if (vp->display == NULL) {
        *status = HF_VP_NO_DISPLAY; *err_out = errno; free(vp); return NULL;
    }
    /* As libwayland finds it: an absolute path, else a name in XDG_RUNTIME_DIR. */
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (name == NULL) name = getenv("WAYLAND_DISPLAY");
    if (name == NULL) name = "wayland-0";
    if (name[0] == '/') snprintf(vp->path, sizeof vp->path, "%s", name);
    else snprintf(vp->path, sizeof vp->path, "%s/%s", runtime ? runtime : "", name);
    vp->registry = wl_display_get_registry(vp->display);
    wl_registry_add_listener(vp->registry, &registry_listener, vp);
    if (wl_display_roundtrip(vp->display) < 0) {
        *status = HF_VP_BROKEN; *err_out = wl_display_get_error(vp->display); hf_vp_close(vp); return NULL;
    }
    if (vp->manager == NULL) { *status = HF_VP_NO_MANAGER; hf_vp_close(vp); return NULL; }
    /* The seat announces its capabilities once bound: whether programs already hold pointers on it. With no
       seat known, the compositor picks one and nothing is known of it: taken as having had a pointer. */
    vp->had_pointer = 1;
    if (vp->seat != NULL) {
        wl_seat_add_listener(vp->seat, &seat_listener, vp);
        if (wl_display_roundtrip(vp->display) < 0) {
            *status = HF_VP_BROKEN; *err_out = wl_display_get_error(vp->display); hf_vp_close(vp); return NULL;
        }
        vp->had_pointer = (vp->capabilities & WL_SEAT_CAPABILITY_POINTER) != 0;
    }
    /* The seat is a suggestion and may be null: the compositor then picks its default seat. */
    vp->pointer = wl_proxy_marshal_flags(vp->manager, MANAGER_CREATE_VIRTUAL_POINTER, &virtual_pointer_interface,
                                         1, 0, vp->seat, NULL);
    if (vp->pointer == NULL || wl_display_roundtrip(vp->display) < 0) {
        *status = HF_VP_BROKEN; *err_out = wl_display_get_error(vp->display); hf_vp_close(vp); return NULL;
    }
    *status = HF_VP_OK;
    return vp;
}

static int frame(struct hf_vp *vp) {
    wl_proxy_marshal_flags(vp->pointer, POINTER_FRAME, NULL, 1, 0);
    return flush(vp);
}

int hf_vp_motion_absolute(struct hf_vp *vp, uint32_t time_ms, uint32_t x, uint32_t y, uint32_t x_extent,
                          uint32_t y_extent) {
    if (!usable(vp)) return -1;
    wl_proxy_marshal_flags(vp->pointer, POINTER_MOTION_ABSOLUTE, NULL, 1, 0, time_ms, x, y, x_extent, y_extent);
    return frame(vp);
}

int hf_vp_motion(struct hf_vp *vp, uint32_t time_ms, double dx, double dy) {
    if (!usable(vp)) return -1;
    wl_proxy_marshal_flags(vp->pointer, POINTER_MOTION, NULL, 1, 0, time_ms, wl_fixed_from_double(dx),
                           wl_fixed_from_double(dy));
    return frame(vp);
}

int hf_vp_button(struct hf_vp *vp, uint32_t time_ms, uint32_t button, uint32_t state) {
    if (!usable(vp)) return -1;
    wl_proxy_marshal_flags(vp->pointer, POINTER_BUTTON, NULL, 1, 0, time_ms, button, state);
    return frame(vp);
}

int hf_vp_wheel(struct hf_vp *vp, uint32_t time_ms, uint32_t axis, double value, int32_t steps) {
    if (!usable(vp)) return -1;
    wl_proxy_marshal_flags(vp->pointer, POINTER_AXIS_SOURCE, NULL, 1, 0, (uint32_t)AXIS_SOURCE_WHEEL);
    wl_proxy_marshal_flags(vp->pointer, POINTER_AXIS_DISCRETE, NULL, 1, 0, time_ms, axis,
                           wl_fixed_from_double(value), steps);
    return frame(vp);
}

int hf_vp_seat_had_pointer(struct hf_vp *vp) { return vp->had_pointer; }

int hf_vp_fd(struct hf_vp *vp) { return wl_display_get_fd(vp->display); }

int hf_vp_backlog(struct hf_vp *vp, int other_fd, uint32_t *unread_by_clients, uint32_t *unread_by_compositor) {
    return hf_wayland_backlog(wl_display_get_fd(vp->display), other_fd, vp->path, unread_by_clients, unread_by_compositor);
}

int hf_vp_sync(struct hf_vp *vp) {
    if (!usable(vp)) return -1;
    if (wl_display_roundtrip(vp->display) < 0) return -1;
    return 0;
}

int hf_vp_error(struct hf_vp *vp) {
    int e = wl_display_get_error(vp->display);
    return e != 0 ? e : vp->failure;
}

void hf_vp_close(struct hf_vp *vp) {
    if (vp == NULL) return;
    if (vp->pointer != NULL) {
        wl_proxy_marshal_flags(vp->pointer, POINTER_DESTROY, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
        wl_display_flush(vp->display);
    }
    if (vp->manager != NULL) {
        wl_proxy_marshal_flags(vp->manager, MANAGER_DESTROY, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
        wl_display_flush(vp->display);
    }
    if (vp->seat != NULL) wl_seat_destroy(vp->seat);
    if (vp->registry != NULL) wl_registry_destroy(vp->registry);
    wl_display_disconnect(vp->display);
    free(vp);
}
