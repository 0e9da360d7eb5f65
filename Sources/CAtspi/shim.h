#include <atspi/atspi.h>
#include <dbus/dbus.h>
#include <stdint.h>
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
/// if none answered. Returns 0, or 1 with the reason in `problem`.
static inline int handsfree_a11y_locate(int enable, int timeout, char *problem, size_t size) {
    const char *session_address = getenv("DBUS_SESSION_BUS_ADDRESS");
    if (session_address == NULL || *session_address == 0) {
        snprintf(problem, size, "there is no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)");
        return 1;
    }
    DBusError error;
    dbus_error_init(&error);
    DBusConnection *session = dbus_connection_open_private(session_address, &error);
    if (session == NULL || !dbus_bus_register(session, &error)) {
        snprintf(problem, size, "the D-Bus session does not answer: %s", error.message ? error.message : "no reason given");
        dbus_error_free(&error);
        if (session != NULL) { dbus_connection_close(session); dbus_connection_unref(session); }
        return 1;
    }
    dbus_connection_set_exit_on_disconnect(session, FALSE);
    char reason[256] = {0};
    DBusMessage *reply = handsfree_a11y_call(
        session, dbus_message_new_method_call("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress"),
        timeout, reason, sizeof reason);
    int status = 1;
    const char *address = NULL;
    if (reply != NULL && dbus_message_get_args(reply, NULL, DBUS_TYPE_STRING, &address, DBUS_TYPE_INVALID)
        && address != NULL && *address != 0) {
        setenv("AT_SPI_BUS_ADDRESS", address, 1);
        status = 0;
    } else {
        snprintf(problem, size, "the accessibility bus is not running (org.a11y.Bus: %s)",
                 reason[0] ? reason : "no address");
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

/// The element's states as bits (1 << AtspiStateType); every state libatspi knows is below 64.
static inline uint64_t handsfree_atspi_states(AtspiAccessible *accessible) {
    AtspiStateSet *set = atspi_accessible_get_state_set(accessible);
    if (set == NULL) return 0;
    GArray *states = atspi_state_set_get_states(set);
    uint64_t bits = 0;
    if (states != NULL) {
        for (guint i = 0; i < states->len; i++) {
            int state = g_array_index(states, AtspiStateType, i);
            if (state >= 0 && state < 64) bits |= (uint64_t)1 << state;
        }
        g_array_free(states, TRUE);
    }
    g_object_unref(set);
    return bits;
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
