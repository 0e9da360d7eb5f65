#ifndef HANDSFREE_CVIRTUALKEYBOARD_H
#define HANDSFREE_CVIRTUALKEYBOARD_H

#include <stdint.h>

/* A connection to a Wayland compositor holding one zwp_virtual_keyboard_v1 on its first seat. */
struct hf_vk;

enum hf_vk_status {
    HF_VK_OK = 0,
    HF_VK_NO_DISPLAY = 1,   /* wl_display_connect failed: no socket, or nothing listening on it */
    HF_VK_NO_SEAT = 2,      /* the compositor offers no wl_seat */
    HF_VK_NO_MANAGER = 3,   /* the compositor offers no zwp_virtual_keyboard_manager_v1 */
    HF_VK_BROKEN = 4,       /* the connection failed or the compositor sent a protocol error */
};

/* Connects to the display `name` (NULL: $WAYLAND_DISPLAY), binds the first seat and the manager and
   creates the keyboard. NULL with *status set on failure; *err_out holds errno (or the protocol error). */
struct hf_vk *hf_vk_connect(const char *name, int *status, int *err_out);

/* Each request is flushed at once; -1 when the connection is gone (errno set), else 0. */
/* Sends an XKB text keymap (NUL-terminated, as wl_keyboard keymaps are) through a sealed memfd. */
int hf_vk_keymap(struct hf_vk *vk, const char *keymap);
int hf_vk_key(struct hf_vk *vk, uint32_t time_ms, uint32_t key, uint32_t state);
int hf_vk_modifiers(struct hf_vk *vk, uint32_t depressed, uint32_t latched, uint32_t locked, uint32_t group);

/* Waits until the compositor has handled every request sent so far; -1 when the connection is gone. */
int hf_vk_sync(struct hf_vk *vk);

/* Whether the seat already had a keyboard (a real one, or another program's) when this one was made: if not,
   every program must first make its own keyboard object for the new one, and keys sent before are lost. */
int hf_vk_seat_had_keyboard(struct hf_vk *vk);

/* How far the compositor's other clients are behind, as the kernel sees their connections (sock_diag): the
   most bytes it sent one of them that it has not read yet, and the most one of them sent that it has not
   read. No protocol tells when a program has handled an event; this tells at least that it has read it.
   -1 when the kernel does not answer, or shows no connection of the compositor's socket that is this one's
   (another name for the same socket): then both are 0. `other_fd` is this process's pointer connection to
   the same compositor, which no one reads meanwhile (-1: none). */
int hf_vk_backlog(struct hf_vk *vk, int other_fd, uint32_t *unread_by_clients, uint32_t *unread_by_compositor);

/* hf_vk_backlog for any connection: `own_fd` is its socket, `other_fd` another connection of this process
   to the same compositor that no one reads meanwhile (-1: none), `path` the compositor's socket's path. */
int hf_wayland_backlog(int own_fd, int other_fd, const char *path, uint32_t *unread_by_clients,
                       uint32_t *unread_by_compositor);

/* One client connection of the compositor, as the kernel shows the compositor's end of it. */
struct hf_wayland_client {
    uint32_t inode;                 /* the client's end of the socket (its file's inode: socket:[N]) */
    uint32_t unread_by_client;      /* bytes the compositor sent that the client has not read */
    uint32_t unread_by_compositor;  /* bytes the client sent that the compositor has not read */
    uint32_t closed;                /* the client closed its end (it ended, or dropped the connection) */
};

/* The compositor's other clients (not this connection, nor `other_fd`, as hf_vk_backlog): fills at most
   `capacity` and returns how many there are; -1 when the kernel does not say (as hf_vk_backlog). */
int hf_vk_clients(struct hf_vk *vk, int other_fd, struct hf_wayland_client *out, int capacity);

/* For each socket inode, the process that holds it open (0: none this process may see), by /proc/PID/fd;
   -1 when /proc cannot be read. */
int hf_socket_owners(const uint32_t *inodes, int count, int32_t *pids);

/* The keyboard connection's socket. */
int hf_vk_fd(struct hf_vk *vk);

/* The protocol error the compositor raised, else errno of the failure, else 0. */
int hf_vk_error(struct hf_vk *vk);

/* Destroys the keyboard and disconnects. */
void hf_vk_close(struct hf_vk *vk);

/* A connection holding one zwlr_virtual_pointer_v1 (wlr-virtual-pointer-unstable-v1) on the first seat. */
struct hf_vp;

enum hf_vp_status {
    HF_VP_OK = 0,
    HF_VP_NO_DISPLAY = 1,   /* wl_display_connect failed */
    HF_VP_NO_MANAGER = 3,   /* the compositor offers no zwlr_virtual_pointer_manager_v1 */
    HF_VP_BROKEN = 4,       /* the connection failed or the compositor sent a protocol error */
};

/* Connects to `name` (NULL: $WAYLAND_DISPLAY), binds the manager (and the first seat, if any) and creates
   the pointer. NULL with *status and *err_out set on failure, as hf_vk_connect. */
struct hf_vp *hf_vp_connect(const char *name, int *status, int *err_out);

/* Whether the seat already had a pointer when this one was made: if not, every program must first make its
   own pointer object for the new one, and events sent before are lost. */
int hf_vp_seat_had_pointer(struct hf_vp *vp);

/* The pointer connection's socket. */
int hf_vp_fd(struct hf_vp *vp);

/* As hf_vk_backlog, for the pointer's connection; `other_fd` as hf_wayland_backlog's. */
int hf_vp_backlog(struct hf_vp *vp, int other_fd, uint32_t *unread_by_clients, uint32_t *unread_by_compositor);

/* Each call sends one event group ended by `frame` and flushes it; -1 when the connection is gone. */
/* Moves to x/x_extent, y/y_extent of the whole desktop. */
int hf_vp_motion_absolute(struct hf_vp *vp, uint32_t time_ms, uint32_t x, uint32_t y, uint32_t x_extent,
                          uint32_t y_extent);
/* Moves by dx, dy pixels. */
int hf_vp_motion(struct hf_vp *vp, uint32_t time_ms, double dx, double dy);
/* Presses (state 1) or releases (0) a button by its Linux code (BTN_LEFT 0x110). */
int hf_vp_button(struct hf_vp *vp, uint32_t time_ms, uint32_t button, uint32_t state);
/* Turns the wheel by `steps` notches on `axis` (0 vertical, 1 horizontal), `value` scroll units in all. */
int hf_vp_wheel(struct hf_vp *vp, uint32_t time_ms, uint32_t axis, double value, int32_t steps);

/* Waits until the compositor has handled every request sent so far; -1 when the connection is gone. */
int hf_vp_sync(struct hf_vp *vp);
/* The protocol error the compositor raised, else errno of the failure, else 0. */
int hf_vp_error(struct hf_vp *vp);
/* Destroys the pointer and disconnects. */
void hf_vp_close(struct hf_vp *vp);

#endif
