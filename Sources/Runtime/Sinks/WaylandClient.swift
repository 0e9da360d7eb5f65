#if canImport(Glibc)
import Glibc
#endif
import SystemIO

/// What the Wayland keyboard and pointer share: how a failed request or connection is told to the user,
/// and the clock their events are stamped with.
enum WaylandClient {
    /// A failed request's reason, from the connection's protocol error (or `errno` when it has none).
    static func requestFailure(_ code: Int32) -> String {
        switch code == 0 ? errno : code {
        case EPROTO: return "the compositor refused a request"
        case EPIPE, ECONNRESET: return "the compositor closed the connection"
        case let other: return describe(other)
        }
    }

    /// An errno as words; 0, which a closed connection leaves, as "connection lost".
    static func describe(_ code: Int32) -> String {
        code == 0 ? "connection lost" : String(cString: strerror(code))
    }

    /// The message for a display that could not be reached at all.
    static func noDisplay(_ display: String, code: Int32) -> OutputSinkError {
        OutputSinkError("cannot connect to the Wayland display \(display): \(describe(code)) "
                        + "(is the compositor running, and is XDG_RUNTIME_DIR its runtime folder?)")
    }

    /// The message for a compositor without the virtual-device protocol `manager` (GNOME and KDE).
    static func noManager(_ display: String, _ manager: String, for use: String) -> OutputSinkError {
        OutputSinkError("the compositor at \(display) offers no \(manager) "
                        + "(wlroots compositors such as sway do; GNOME and KDE do not): "
                        + "choose x11 or uinput (--output, --type-into)\(use)")
    }

    /// Event times share one clock per device, with an undefined base: the monotonic clock, in ms. Live
    /// whatever clock the sink waits on, since the compositor passes them on to other programs.
    static func milliseconds() -> UInt32 {
        UInt32(truncatingIfNeeded: Int64(LiveClock().now() * 1000))
    }
}
