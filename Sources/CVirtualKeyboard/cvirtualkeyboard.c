/* The virtual-keyboard-unstable-v1 protocol as libwayland tables, and the few calls the Wayland sink makes.
   Debian ships neither the protocol's XML nor code generated from it; the tables follow the specification:
   zwp_virtual_keyboard_manager_v1 (version 1) request 0 create_virtual_keyboard(seat: object wl_seat,
   id: new_id zwp_virtual_keyboard_v1); zwp_virtual_keyboard_v1 (version 1) requests 0 keymap(format: uint,
   fd: fd, size: uint), 1 key(time, key, state: uint), 2 modifiers(mods_depressed, mods_latched,
   mods_locked, group: uint), 3 destroy (destructor). Neither interface has events.
   The requests are variadic calls (wl_proxy_marshal_flags), which Swift cannot make: they are made here. */

#define _GNU_SOURCE /* memfd_create */
#include "cvirtualkeyboard.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>

static const struct wl_interface virtual_keyboard_interface;

static const struct wl_interface *no_types[] = { NULL, NULL, NULL, NULL };
static const struct wl_interface *create_types[] = { &wl_seat_interface, &virtual_keyboard_interface };

static const struct wl_message virtual_keyboard_requests[] = {
    { "keymap", "uhu", no_types },
    { "key", "uuu", no_types },
    { "modifiers", "uuuu", no_types },
    { "destroy", "", no_types },
};

static const struct wl_interface virtual_keyboard_interface = {
    "zwp_virtual_keyboard_v1", 1, 4, virtual_keyboard_requests, 0, NULL,
};

static const struct wl_message manager_requests[] = {
    { "create_virtual_keyboard", "on", create_types },
};

static const struct wl_interface manager_interface = {
    "zwp_virtual_keyboard_manager_v1", 1, 1, manager_requests, 0, NULL,
};

enum { KEYBOARD_KEYMAP = 0, KEYBOARD_KEY = 1, KEYBOARD_MODIFIERS = 2, KEYBOARD_DESTROY = 3 };
enum { MANAGER_CREATE_VIRTUAL_KEYBOARD = 0 };

struct hf_vk {
    struct wl_display *display;
    struct wl_registry *registry;
    struct wl_seat *seat;
    struct wl_proxy *manager;
    struct wl_proxy *keyboard;
    int failure; /* errno of a failed flush, kept for hf_vk_error */
};

static void global_added(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                         uint32_t version) {
    struct hf_vk *vk = data;
    (void)version;
    /* Version 1 of both is all the sink uses; the first seat is the one a desktop has. */
    if (vk->seat == NULL && strcmp(interface, wl_seat_interface.name) == 0) {
        vk->seat = wl_registry_bind(registry, name, &wl_seat_interface, 1);
    } else if (vk->manager == NULL && strcmp(interface, manager_interface.name) == 0) {
        vk->manager = wl_registry_bind(registry, name, &manager_interface, 1);
    }
}

static void global_removed(void *data, struct wl_registry *registry, uint32_t name) {
    (void)data; (void)registry; (void)name;
}

static const struct wl_registry_listener registry_listener = { global_added, global_removed };

/* Sends what is buffered, waiting (up to 5 s) while the socket is full rather than failing. */
static int flush(struct hf_vk *vk) {
    for (;;) {
        if (wl_display_flush(vk->display) >= 0) return 0;
        if (errno != EAGAIN) { vk->failure = errno; return -1; }
        struct pollfd p = { wl_display_get_fd(vk->display), POLLOUT, 0 };
        int n = poll(&p, 1, 5000);
        if (n == 0) { vk->failure = ETIMEDOUT; errno = ETIMEDOUT; return -1; }
        if (n < 0 && errno != EINTR) { vk->failure = errno; return -1; }
    }
}

/* A display that failed keeps failing; a request on it would be lost silently. */
static int usable(struct hf_vk *vk) {
    int e = hf_vk_error(vk);
    if (e != 0) { errno = e; return 0; }
    return 1;
}

struct hf_vk *hf_vk_connect(const char *name, int *status, int *err_out) {
    *err_out = 0;
    struct hf_vk *vk = calloc(1, sizeof *vk);
    if (vk == NULL) { *status = HF_VK_BROKEN; *err_out = ENOMEM; return NULL; }
    vk->display = wl_display_connect(name);
    if (vk->display == NULL) {
        *status = HF_VK_NO_DISPLAY; *err_out = errno; free(vk); return NULL;
    }
    vk->registry = wl_display_get_registry(vk->display);
    wl_registry_add_listener(vk->registry, &registry_listener, vk);
    if (wl_display_roundtrip(vk->display) < 0) {
        *status = HF_VK_BROKEN; *err_out = wl_display_get_error(vk->display); hf_vk_close(vk); return NULL;
    }
    if (vk->seat == NULL) { *status = HF_VK_NO_SEAT; hf_vk_close(vk); return NULL; }
    if (vk->manager == NULL) { *status = HF_VK_NO_MANAGER; hf_vk_close(vk); return NULL; }
    vk->keyboard = wl_proxy_marshal_flags(vk->manager, MANAGER_CREATE_VIRTUAL_KEYBOARD,
                                          &virtual_keyboard_interface, 1, 0, vk->seat, NULL);
    /* A compositor that refuses the keyboard (unauthorized) says so as a protocol error, seen here. */
    if (vk->keyboard == NULL || wl_display_roundtrip(vk->display) < 0) {
        *status = HF_VK_BROKEN; *err_out = wl_display_get_error(vk->display); hf_vk_close(vk); return NULL;
    }
    *status = HF_VK_OK;
    return vk;
}

int hf_vk_keymap(struct hf_vk *vk, const char *keymap) {
    if (!usable(vk)) return -1;
    size_t size = strlen(keymap) + 1;
    int fd = memfd_create("handsfree-keymap", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, keymap + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) { int e = errno; close(fd); errno = e; return -1; }
        done += (size_t)n;
    }
    /* The compositor maps it; sealed, it can trust the size. */
    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
    /* libwayland sends a duplicate of the descriptor, so this one is ours to close. */
    wl_proxy_marshal_flags(vk->keyboard, KEYBOARD_KEYMAP, NULL, 1, 0, WL_KEYBOARD_KEYMAP_FORMAT_XKB_V1, fd,
                           (uint32_t)size);
    close(fd);
    return flush(vk);
}

int hf_vk_key(struct hf_vk *vk, uint32_t time_ms, uint32_t key, uint32_t state) {
    if (!usable(vk)) return -1;
    wl_proxy_marshal_flags(vk->keyboard, KEYBOARD_KEY, NULL, 1, 0, time_ms, key, state);
    return flush(vk);
}

int hf_vk_modifiers(struct hf_vk *vk, uint32_t depressed, uint32_t latched, uint32_t locked, uint32_t group) {
    if (!usable(vk)) return -1;
    wl_proxy_marshal_flags(vk->keyboard, KEYBOARD_MODIFIERS, NULL, 1, 0, depressed, latched, locked, group);
    return flush(vk);
}

int hf_vk_sync(struct hf_vk *vk) {
    if (!usable(vk)) return -1;
    if (wl_display_roundtrip(vk->display) < 0) return -1;
    return 0;
}

int hf_vk_error(struct hf_vk *vk) {
    int e = wl_display_get_error(vk->display);
    return e != 0 ? e : vk->failure;
}

void hf_vk_close(struct hf_vk *vk) {
    if (vk == NULL) return;
    if (vk->keyboard != NULL) {
        wl_proxy_marshal_flags(vk->keyboard, KEYBOARD_DESTROY, NULL, 1, WL_MARSHAL_FLAG_DESTROY);
        wl_display_flush(vk->display);
    }
    if (vk->manager != NULL) wl_proxy_destroy(vk->manager);
    if (vk->seat != NULL) wl_seat_destroy(vk->seat);
    if (vk->registry != NULL) wl_registry_destroy(vk->registry);
    wl_display_disconnect(vk->display);
    free(vk);
}
