#include <atspi/atspi.h>
#include <dbus/dbus.h>
#include <stdint.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>

/// Copies a GError's message into `out` (cut to `size`), frees the error, and says whether there was one.
static inline int handsfree_atspi_take_error(GError **error, char *out, size_t size) {
    if (error == NULL || *error == NULL) return 0;
    if (out != NULL && size > 0) {
        strncpy(out, (*error)->message ? (*error)->message : "unknown error", size - 1);
        out[size - 1] = 0;
    }
    g_clear_error(error);
    return 1;
}

/// Calls one method of org.a11y.Bus on the session bus with a timeout (ms); returns the reply or NULL with
/// the reason in `problem`.
static inline DBusMessage *handsfree_a11y_call(DBusConnection *session, DBusMessage *call, int timeout,
                                              char *problem, size_t size) {
    DBusError error;
    dbus_error_init(&error);
    DBusMessage *reply = dbus_connection_send_with_reply_and_block(session, call, timeout, &error);
    dbus_message_unref(call);
    if (reply == NULL && problem != NULL && size > 0) {
        strncpy(problem, error.message ? error.message : "no reply", size - 1);
        problem[size - 1] = 0;
    }
    dbus_error_free(&error);
    return reply;
}

/// Finds the accessibility bus through the session bus (org.a11y.Bus GetAddress, within `timeout` ms), sets
/// org.a11y.Status IsEnabled when `enable` is set (as screen readers do: browsers then expose their pages),
/// and leaves the address in AT_SPI_BUS_ADDRESS so that libatspi connects there and nowhere else: left to
/// itself it would read the X root window or autolaunch a session bus, and abort the process on a later call
/// if none answered. Returns 0, or why not: 1 there is no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set),
/// 2 the session does not answer, 3 org.a11y.Bus gives no address; with D-Bus's own words for 2 and 3 in
/// `problem` (empty when it gave none), for the caller to word in the user's language.
static inline int handsfree_a11y_locate(int enable, int timeout, char *problem, size_t size);

/// The accessibility bus's address as the session bus gives it now (org.a11y.Bus GetAddress), in `address`;
/// 0, or 1 when there is none. A bus that was restarted has a new address (its guid changes).
static inline int handsfree_a11y_address(char *address, size_t size, int timeout) {
    const char *session_address = getenv("DBUS_SESSION_BUS_ADDRESS");
    if (session_address == NULL || *session_address == 0 || size == 0) return 1;
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *session = dbus_connection_open_private(session_address, &error);
    if (session == NULL || !dbus_bus_register(session, &error)) {
        dbus_error_free(&error);
        if (session != NULL) { dbus_connection_close(session); dbus_connection_unref(session); }
        return 1;
    }
    dbus_connection_set_exit_on_disconnect(session, FALSE);
    DBusMessage *reply = handsfree_a11y_call(
        session, dbus_message_new_method_call("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress"),
        timeout, NULL, 0);
    const char *found = NULL;
    int status = 1;
    if (reply != NULL && dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &found, DBUS_TYPE_INVALID)
        && found != NULL && *found != 0) {
        strncpy(address, found, size - 1);
        address[size - 1] = 0;
        status = 0;
    }
    if (reply != NULL) dbus_message_unref(reply);
    dbus_connection_close(session);
    dbus_connection_unref(session);
    return status;
}

static inline int handsfree_a11y_locate(int enable, int timeout, char *problem, size_t size) {
    const char *session_address = getenv("DBUS_SESSION_BUS_ADDRESS");
    if (size > 0) problem[0] = 0;
    if (session_address == NULL || *session_address == 0) return 1;
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *session = dbus_connection_open_private(session_address, &error);
    if (session == NULL || !dbus_bus_register(session, &error)) {
        if (error.message != NULL) snprintf(problem, size, "%s", error.message);
        dbus_error_free(&error);
        if (session != NULL) { dbus_connection_close(session); dbus_connection_unref(session); }
        return 2;
    }
    dbus_connection_set_exit_on_disconnect(session, FALSE);
    char reason[256] = {0};
    DBusMessage *reply = handsfree_a11y_call(
        session, dbus_message_new_method_call("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress"),
        timeout, reason, sizeof reason);
    int status = 3;
    const char *address = NULL;
    if (reply != NULL && dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &address, DBUS_TYPE_INVALID)
        && address != NULL && *address != 0) {
        setenv("AT_SPI_BUS_ADDRESS", address, 1);
        status = 0;
    } else {
        snprintf(problem, size, "%s", reason);
    }
    if (reply != NULL) dbus_message_unref(reply);
    if (status == 0 && enable) {
        DBusMessage *set = dbus_message_new_method_call("org.a11y.Bus", "/org/a11y/bus",
                                                        "org.freedesktop.DBus.Properties", "Set");
        const char *interface = "org.a11y.Status", *property = "IsEnabled";
        dbus_bool_t yes = TRUE;
        DBusMessageIter iter, variant;
        dbus_message_iter_init_append(set, &iter);
        dbus_message_iter_append_basic(&iter, DBUS_TYPE_STRING, &interface);
        dbus_message_iter_append_basic(&iter, DBUS_TYPE_STRING, &property);
        dbus_message_iter_open_container(&iter, DBUS_TYPE_VARIANT, "b", &variant);
        dbus_message_iter_append_basic(&variant, DBUS_TYPE_BOOLEAN, &yes);
        dbus_message_iter_close_container(&iter, &variant);
        DBusMessage *done = handsfree_a11y_call(session, set, timeout, NULL, 0);
        if (done != NULL) dbus_message_unref(done);
    }
    dbus_connection_close(session);
    dbus_connection_unref(session);
    return status;
}

/// The element's states as bits (1 << AtspiStateType), as libatspi keeps them (from its cache when the
/// element's states are cached): the set's own bits, with no list of states built and freed each time.
static inline uint64_t handsfree_atspi_states(AtspiAccessible *accessible) {
    AtspiStateSet *set = atspi_accessible_get_state_set(accessible);
    if (set == NULL) return 0;
    uint64_t bits = (uint64_t)set->states;
    g_object_unref(set);
    return bits;
}

/// Whether the element implements the Action interface, from libatspi's cached interface bits (no list of
/// interface names built and freed, as `handsfree_atspi_has` does).
static inline int handsfree_atspi_has_action(AtspiAccessible *accessible) {
    AtspiAction *action = atspi_accessible_get_action_iface(accessible);
    if (action == NULL) return 0;
    g_object_unref(action);
    return 1;
}

/// Whether the element says it implements `interface` ("Action", "Component", …), from libatspi's cache.
static inline int handsfree_atspi_has(AtspiAccessible *accessible, const char *interface) {
    GArray *names = atspi_accessible_get_interfaces(accessible);
    if (names == NULL) return 0;
    int found = 0;
    for (guint i = 0; i < names->len && !found; i++) {
        const gchar *name = g_array_index(names, gchar *, i);
        if (name != NULL && strcmp(name, interface) == 0) found = 1;
    }
    for (guint i = 0; i < names->len; i++) g_free(g_array_index(names, gchar *, i));
    g_array_free(names, TRUE);
    return found;
}

/// Drops a GObject reference (libatspi's objects are GObjects; the macro does not import).
static inline void handsfree_atspi_unref(void *object) { if (object != NULL) g_object_unref(object); }

/// Takes a GObject reference.
static inline void *handsfree_atspi_ref(void *object) { return object != NULL ? g_object_ref(object) : NULL; }

/// Runs what is pending on libatspi's main context (events, cache updates) without waiting.
static inline int handsfree_atspi_dispatch(int limit) {
    int done = 0;
    while (done < limit && g_main_context_iteration(NULL, FALSE)) done++;
    return done;
}

/// What `handsfree_atspi_details` read of one element.
typedef struct {
    int32_t x, y, width, height;
    int has_extents;
    /// The action names (not the translated ones), each ended by 0x1F, cut to the buffer.
    char actions[256];
    /// The application gave no answer in time.
    int timed_out;
} handsfree_atspi_detail;

/// The unique bus name of an element's application (":1.42"), or NULL; libatspi's, not a copy.
static inline const char *handsfree_atspi_bus_name(AtspiAccessible *element) {
    AtspiObject *object = (AtspiObject *)element;
    return object != NULL && object->app != NULL ? object->app->bus_name : NULL;
}

/// Opens a private connection to an element's application itself: at-spi2-atk (GTK, and what else loads the
/// bridge) runs a D-Bus server of its own and gives its address (Application.GetApplicationBusAddress), so
/// requests reach it without the bus daemon, which otherwise reads, routes and writes every request and every
/// answer again. Only a local socket is taken, and only when the process at its other end is the
/// application's own (the bus daemon says which that is): an address naming another program's socket is
/// refused. NULL when the application offers none or the checks fail; the caller then asks through the bus.
static inline DBusConnection *handsfree_atspi_direct(AtspiAccessible *element, int timeout) {
    AtspiObject *object = (AtspiObject *)element;
    if (object == NULL || object->app == NULL || object->app->bus == NULL || object->app->bus_name == NULL) return NULL;
    DBusMessage *m = dbus_message_new_method_call(object->app->bus_name, "/org/a11y/atspi/accessible/root",
                                                  "org.a11y.atspi.Application", "GetApplicationBusAddress");
    if (m == NULL) return NULL;
    DBusMessage *reply = handsfree_a11y_call(object->app->bus, m, timeout, NULL, 0);
    if (reply == NULL) return NULL;
    const char *address = NULL;
    DBusConnection *direct = NULL;
    if (dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &address, DBUS_TYPE_INVALID) && address != NULL
        && (strncmp(address, "unix:path=", 10) == 0 || strncmp(address, "unix:abstract=", 14) == 0)
        && strchr(address, ';') == NULL) {
        DBusError error;
        dbus_error_init(&error);
        direct = dbus_connection_open_private(address, &error);
        dbus_error_free(&error);
    }
    dbus_message_unref(reply);
    if (direct == NULL) return NULL;
    dbus_connection_set_exit_on_disconnect(direct, FALSE);
    GError *gerror = NULL;
    guint pid = atspi_accessible_get_process_id(element, &gerror);
    int fd = -1;
    // struct ucred, which <sys/socket.h> declares only with _GNU_SOURCE; its layout is Linux's ABI.
    struct { int32_t pid; uint32_t uid, gid; } peer = {0, 0, 0};
    socklen_t size = sizeof peer;
    int same = gerror == NULL && pid > 0 && dbus_connection_get_unix_fd(direct, &fd) && fd >= 0
        && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0 && peer.pid > 0 && (guint)peer.pid == pid;
    g_clear_error(&gerror);
    if (!same) {
        dbus_connection_close(direct);
        dbus_connection_unref(direct);
        return NULL;
    }
    return direct;
}

/// Closes a connection `handsfree_atspi_direct` opened.
static inline void handsfree_atspi_close(DBusConnection *direct) {
    if (direct == NULL) return;
    dbus_connection_close(direct);
    dbus_connection_unref(direct);
}

/// Whether a connection `handsfree_atspi_direct` opened still stands (the application may have gone).
static inline int handsfree_atspi_connected(DBusConnection *direct) {
    return direct != NULL && dbus_connection_get_is_connected(direct);
}

/// Sends one request to an element's application, on `direct` when the element belongs to `direct_app`
/// (the application's own connection), else through the bus; the pending reply, or NULL.
static inline DBusPendingCall *handsfree_atspi_send(AtspiAccessible *element, DBusConnection *direct, const char *direct_app,
                                                    const char *interface, const char *method,
                                                    int has_arg, int32_t arg, uint32_t uarg, int timeout) {
    AtspiObject *object = (AtspiObject *)element;
    if (object->app == NULL || object->app->bus == NULL || object->app->bus_name == NULL || object->path == NULL) return NULL;
    DBusMessage *m = dbus_message_new_method_call(object->app->bus_name, object->path, interface, method);
    if (m == NULL) return NULL;
    if (has_arg == 1) dbus_message_append_args(m, DBUS_TYPE_INT32, &arg, DBUS_TYPE_INVALID);
    if (has_arg == 2) dbus_message_append_args(m, DBUS_TYPE_UINT32, &uarg, DBUS_TYPE_INVALID);
    DBusConnection *bus = direct != NULL && direct_app != NULL && strcmp(direct_app, object->app->bus_name) == 0
        ? direct : object->app->bus;
    DBusPendingCall *pending = NULL;
    dbus_connection_send_with_reply(bus, m, &pending, timeout);
    dbus_message_unref(m);
    return pending;
}

/// Waits for a reply; NULL (and `*timed_out` set when it never came) unless it is a method return.
static inline DBusMessage *handsfree_atspi_await(DBusPendingCall *pending, int *timed_out) {
    if (pending == NULL) return NULL;
    dbus_pending_call_block(pending);
    DBusMessage *reply = dbus_pending_call_steal_reply(pending);
    dbus_pending_call_unref(pending);
    if (reply == NULL) return NULL;
    if (dbus_message_get_type(reply) != DBUS_MESSAGE_TYPE_METHOD_RETURN) {
        const char *error = dbus_message_get_error_name(reply);
        if (error != NULL && strcmp(error, DBUS_ERROR_NO_REPLY) == 0) *timed_out = 1;
        dbus_message_unref(reply);
        return NULL;
    }
    return reply;
}

static inline void handsfree_atspi_add_action(handsfree_atspi_detail *d, DBusMessage *reply) {
    const char *name = NULL;
    if (reply == NULL || !dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &name, DBUS_TYPE_INVALID) || name == NULL) return;
    size_t used = strlen(d->actions), len = strlen(name);
    if (used + len + 2 >= sizeof d->actions) return;
    memcpy(d->actions + used, name, len);
    d->actions[used + len] = 0x1F;
    d->actions[used + len + 1] = 0;
}

/// Reads the action names (Action.GetActions for their number, Action.GetName for each: GetActions gives
/// only the translated names) and the screen extents (Component.GetExtents) of `count` elements, with every
/// request of a round sent before any answer is awaited: an application answers a queue of requests far
/// faster than one round trip after another. Each request times out after `timeout` ms, and they wait side
/// by side, so a silent application costs a timeout or two, not one per element.
static inline void handsfree_atspi_details(AtspiAccessible **elements, const int *want_actions, int count,
                                           handsfree_atspi_detail *out, int timeout,
                                           DBusConnection *direct, const char *direct_app) {
    enum { batch = 256, most = 8 };
    DBusPendingCall *counts[batch], *firsts[batch], *extents[batch], *more[batch][most];
    int n_actions[batch];
    for (int start = 0; start < count; start += batch) {
        int n = count - start < batch ? count - start : batch;
        for (int i = 0; i < n; i++) {
            AtspiAccessible *element = elements[start + i];
            memset(&out[start + i], 0, sizeof out[0]);
            counts[i] = firsts[i] = NULL;
            if (want_actions[start + i]) {
                counts[i] = handsfree_atspi_send(element, direct, direct_app, "org.a11y.atspi.Action", "GetActions", 0, 0, 0, timeout);
                firsts[i] = handsfree_atspi_send(element, direct, direct_app, "org.a11y.atspi.Action", "GetName", 1, 0, 0, timeout);
            }
            extents[i] = handsfree_atspi_send(element, direct, direct_app, "org.a11y.atspi.Component", "GetExtents", 2, 0, 0, timeout);
        }
        for (int i = 0; i < n; i++) {
            handsfree_atspi_detail *d = &out[start + i];
            n_actions[i] = 0;
            DBusMessage *reply = handsfree_atspi_await(counts[i], &d->timed_out);
            if (reply != NULL) {
                DBusMessageIter iter, array;
                if (dbus_message_iter_init(reply, &iter) && dbus_message_iter_get_arg_type(&iter) == DBUS_TYPE_ARRAY) {
                    dbus_message_iter_recurse(&iter, &array);
                    while (dbus_message_iter_get_arg_type(&array) == DBUS_TYPE_STRUCT) {
                        n_actions[i]++;
                        dbus_message_iter_next(&array);
                    }
                }
                dbus_message_unref(reply);
            }
            reply = handsfree_atspi_await(firsts[i], &d->timed_out);
            if (n_actions[i] > 0) handsfree_atspi_add_action(d, reply);
            if (reply != NULL) dbus_message_unref(reply);
            reply = handsfree_atspi_await(extents[i], &d->timed_out);
            if (reply != NULL) {
                DBusMessageIter iter, rect;
                if (dbus_message_iter_init(reply, &iter) && dbus_message_iter_get_arg_type(&iter) == DBUS_TYPE_STRUCT) {
                    dbus_message_iter_recurse(&iter, &rect);
                    int32_t v[4] = {0, 0, 0, 0};
                    int k = 0;
                    for (; k < 4 && dbus_message_iter_get_arg_type(&rect) == DBUS_TYPE_INT32; k++) {
                        dbus_message_iter_get_basic(&rect, &v[k]);
                        dbus_message_iter_next(&rect);
                    }
                    if (k == 4) { d->x = v[0]; d->y = v[1]; d->width = v[2]; d->height = v[3]; d->has_extents = 1; }
                }
                dbus_message_unref(reply);
            }
        }
        // The rare element with more than one action: the other names, in a second round.
        for (int i = 0; i < n; i++) {
            for (int k = 1; k < most; k++) {
                more[i][k] = k < n_actions[i] && !out[start + i].timed_out
                    ? handsfree_atspi_send(elements[start + i], direct, direct_app, "org.a11y.atspi.Action", "GetName", 1, k, 0, timeout) : NULL;
            }
        }
        for (int i = 0; i < n; i++) {
            for (int k = 1; k < most; k++) {
                DBusMessage *reply = handsfree_atspi_await(more[i][k], &out[start + i].timed_out);
                handsfree_atspi_add_action(&out[start + i], reply);
                if (reply != NULL) dbus_message_unref(reply);
            }
        }
    }
}
