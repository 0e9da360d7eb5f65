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
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <stdio.h>
#include <dirent.h>

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
    uint32_t capabilities; /* the seat's, as last announced */
    int had_keyboard; /* whether the seat had a keyboard before this one was made */
    char path[4096];  /* the compositor's socket, as the kernel names it */
};

static void seat_capabilities(void *data, struct wl_seat *seat, uint32_t capabilities) {
    (void)seat;
    ((struct hf_vk *)data)->capabilities = capabilities;
}

static void seat_name(void *data, struct wl_seat *seat, const char *name) {
    (void)data; (void)seat; (void)name;
}

static const struct wl_seat_listener seat_listener = { seat_capabilities, seat_name };

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
    /* As libwayland finds it: an absolute path, else a name in XDG_RUNTIME_DIR. */
    const char *runtime = getenv("XDG_RUNTIME_DIR");
    if (name == NULL) name = getenv("WAYLAND_DISPLAY");
    if (name == NULL) name = "wayland-0";
    if (name[0] == '/') snprintf(vk->path, sizeof vk->path, "%s", name);
    else snprintf(vk->path, sizeof vk->path, "%s/%s", runtime ? runtime : "", name);
    vk->registry = wl_display_get_registry(vk->display);
    wl_registry_add_listener(vk->registry, &registry_listener, vk);
    if (wl_display_roundtrip(vk->display) < 0) {
        *status = HF_VK_BROKEN; *err_out = wl_display_get_error(vk->display); hf_vk_close(vk); return NULL;
    }
    if (vk->seat == NULL) { *status = HF_VK_NO_SEAT; hf_vk_close(vk); return NULL; }
    if (vk->manager == NULL) { *status = HF_VK_NO_MANAGER; hf_vk_close(vk); return NULL; }
    /* The seat announces its capabilities once bound: whether programs already hold keyboards on it. */
    wl_seat_add_listener(vk->seat, &seat_listener, vk);
    if (wl_display_roundtrip(vk->display) < 0) {
        *status = HF_VK_BROKEN; *err_out = wl_display_get_error(vk->display); hf_vk_close(vk); return NULL;
    }
    vk->had_keyboard = (vk->capabilities & WL_SEAT_CAPABILITY_KEYBOARD) != 0;
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

int hf_vk_seat_had_keyboard(struct hf_vk *vk) { return vk->had_keyboard; }

int hf_vk_backlog(struct hf_vk *vk, int other_fd, uint32_t *unread_by_clients, uint32_t *unread_by_compositor) {
    return hf_wayland_backlog(wl_display_get_fd(vk->display), other_fd, vk->path, unread_by_clients, unread_by_compositor);
}

int hf_vk_fd(struct hf_vk *vk) { return wl_display_get_fd(vk->display); }

/* Calls `visit` for each connection of the compositor's socket at `path` but `own_fd`'s and `other_fd`'s, as
   the kernel shows them (sock_diag); -1 when it does not answer, or shows no connection that is `own_fd`'s
   (the path is not the one the compositor bound: nothing is known). */
static int each_client(int own_fd, int other_fd, const char *path,
                       void (*visit)(void *context, const struct hf_wayland_client *client), void *context) {
    struct stat own, other;
    if (fstat(own_fd, &own) != 0) return -1;
    int has_other = other_fd >= 0 && fstat(other_fd, &other) == 0;
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0) return -1;
    struct {
        struct nlmsghdr header;
        struct unix_diag_req request;
    } ask = {
        .header = { .nlmsg_len = sizeof ask, .nlmsg_type = SOCK_DIAG_BY_FAMILY, .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
        .request = { .sdiag_family = AF_UNIX, .udiag_states = 1 << 1 /* TCP_ESTABLISHED */,
                     .udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_PEER | UDIAG_SHOW_RQLEN },
    };
    if (send(fd, &ask, sizeof ask, 0) < 0) { close(fd); return -1; }
    size_t length = strlen(path);
    long buffer[8192];
    int done = 0, failed = 0, seen_own = 0;
    while (!done && !failed) {
        ssize_t n = recv(fd, buffer, sizeof buffer, 0);
        if (n < 0) { if (errno == EINTR) continue; failed = 1; break; }
        if (n == 0) break;
        for (struct nlmsghdr *h = (struct nlmsghdr *)buffer; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
            if (h->nlmsg_type == NLMSG_DONE) { done = 1; break; }
            if (h->nlmsg_type == NLMSG_ERROR) { failed = 1; break; }
            struct unix_diag_msg *socket_info = NLMSG_DATA(h);
            int attributes_length = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof *socket_info));
            const char *bound = NULL;
            size_t bound_length = 0;
            uint32_t peer = 0;
            uint8_t shutdown = 0;
            struct unix_diag_rqlen queues = { 0, 0 };
            int has_queues = 0;
            for (struct rtattr *a = (struct rtattr *)(socket_info + 1); RTA_OK(a, attributes_length);
                 a = RTA_NEXT(a, attributes_length)) {
                if (a->rta_type == UNIX_DIAG_NAME) { bound = RTA_DATA(a); bound_length = RTA_PAYLOAD(a); }
                else if (a->rta_type == UNIX_DIAG_PEER && RTA_PAYLOAD(a) >= 4) memcpy(&peer, RTA_DATA(a), 4);
                else if (a->rta_type == UNIX_DIAG_SHUTDOWN && RTA_PAYLOAD(a) >= 1) memcpy(&shutdown, RTA_DATA(a), 1);
                else if (a->rta_type == UNIX_DIAG_RQLEN && RTA_PAYLOAD(a) >= sizeof queues) {
                    memcpy(&queues, RTA_DATA(a), sizeof queues);
                    has_queues = 1;
                }
            }
            /* The compositor's end of a client's connection carries the socket's path; ours is skipped. */
            if (bound == NULL || !has_queues) continue;
            while (bound_length > 0 && bound[bound_length - 1] == 0) bound_length--;
            if (bound_length != length || memcmp(bound, path, length) != 0) continue;
            if (peer == (uint32_t)own.st_ino) { seen_own = 1; continue; }
            /* The process's other connection (its keyboard's or its pointer's) is read by no one meanwhile. */
            if (has_other && peer == (uint32_t)other.st_ino) continue;
            /* Sent to the client and not read by it yet; sent by it and not read by the compositor yet. A
               client that closed its end is shown as gone at once: the kernel dropped what it had not read
               (its queue reads 0) and the compositor has not noticed yet. */
            struct hf_wayland_client client = { peer, queues.udiag_wqueue, queues.udiag_rqueue,
                                                (shutdown & 1 /* RCV_SHUTDOWN: the peer closed */) != 0 };
            visit(context, &client);
        }
    }
    close(fd);
    return failed || !seen_own ? -1 : 0;
}

struct backlog { uint32_t clients, compositor; };

static void add_backlog(void *context, const struct hf_wayland_client *client) {
    struct backlog *b = context;
    if (client->unread_by_client > b->clients) b->clients = client->unread_by_client;
    if (client->unread_by_compositor > b->compositor) b->compositor = client->unread_by_compositor;
}

int hf_wayland_backlog(int own_fd, int other_fd, const char *path, uint32_t *unread_by_clients,
                       uint32_t *unread_by_compositor) {
    struct backlog b = { 0, 0 };
    int result = each_client(own_fd, other_fd, path, add_backlog, &b);
    *unread_by_clients = result == 0 ? b.clients : 0;
    *unread_by_compositor = result == 0 ? b.compositor : 0;
    return result;
}

struct listing { struct hf_wayland_client *out; int capacity, count; };

static void add_client(void *context, const struct hf_wayland_client *client) {
    struct listing *l = context;
    if (l->count < l->capacity) l->out[l->count] = *client;
    l->count++;
}

int hf_vk_clients(struct hf_vk *vk, int other_fd, struct hf_wayland_client *out, int capacity) {
    struct listing l = { out, capacity, 0 };
    if (each_client(wl_display_get_fd(vk->display), other_fd, vk->path, add_client, &l) != 0) return -1;
    return l.count;
}

int hf_socket_owners(const uint32_t *inodes, int count, int32_t *pids) {
    for (int i = 0; i < count; i++) pids[i] = 0;
    DIR *proc = opendir("/proc");
    if (proc == NULL) return -1;
    int left = count;
    struct dirent *entry;
    char path[64], link[64];
    while (left > 0 && (entry = readdir(proc)) != NULL) {
        char *end;
        long pid = strtol(entry->d_name, &end, 10);
        if (*end != 0 || pid <= 0) continue;
        snprintf(path, sizeof path, "/proc/%ld/fd", pid);
        DIR *fds = opendir(path);
        if (fds == NULL) continue;   /* another user's, or gone */
        struct dirent *fd;
        while (left > 0 && (fd = readdir(fds)) != NULL) {
            if (fd->d_name[0] == '.') continue;
            ssize_t n = readlinkat(dirfd(fds), fd->d_name, link, sizeof link - 1);
            if (n <= 8 || memcmp(link, "socket:[", 8) != 0) continue;
            link[n] = 0;
            uint32_t inode = (uint32_t)strtoul(link + 8, NULL, 10);
            for (int i = 0; i < count; i++) {
                if (inodes[i] == inode && pids[i] == 0) { pids[i] = (int32_t)pid; left--; }
            }
        }
        closedir(fds);
    }
    closedir(proc);
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
