#if canImport(Glibc)
import Glibc
#endif
import Localization
import SystemIO

/// What the Wayland keyboard and pointer share: how a failed request or connection is told to the user,
/// and the clock their events are stamped with.
enum WaylandClient {
    /// A failed request's reason, from the connection's protocol error (or `errno` when it has none).
    static func requestFailure(_ code: Int32) -> UIMessage {
        switch code == 0 ? errno : code {
        case EPROTO: return UIMessage("the compositor refused a request")
        case EPIPE, ECONNRESET: return UIMessage("the compositor closed the connection")
        case let other: return describe(other)
        }
    }

    /// An errno as words (the system's own, translated as glibc translates them); 0, which a closed
    /// connection leaves, as "connection lost".
    static func describe(_ code: Int32) -> UIMessage {
        code == 0 ? UIMessage("connection lost") : .system(String(cString: strerror(code)))
    }

    /// The message for a display that could not be reached at all.
    static func noDisplay(_ display: String, code: Int32) -> OutputSinkError {
        OutputSinkError(UIMessage("cannot connect to the Wayland display {display}: {reason} (is the compositor running, and is XDG_RUNTIME_DIR its runtime folder?)",
                                  ["display": display], reasons: ["reason": describe(code)]))
    }

    /// The message for a compositor without the virtual-device protocol `manager` (GNOME and KDE), which
    /// the keyboard needs to type, or the pointer to move.
    static func noManager(_ display: String, _ manager: String, pointer: Bool) -> OutputSinkError {
        let arguments = ["display": display, "protocol": manager]
        return OutputSinkError(pointer
            ? UIMessage("the compositor at {display} offers no {protocol} (wlroots compositors such as sway do; GNOME and KDE do not): choose x11 or uinput (--output, --type-into) to move the pointer", arguments)
            : UIMessage("the compositor at {display} offers no {protocol} (wlroots compositors such as sway do; GNOME and KDE do not): choose x11 or uinput (--output, --type-into)", arguments))
    }

    /// The message for a connection that failed for another reason: the compositor refused the device (`refused`), or
    /// the system said why.
    static func failed(_ display: String, code: Int32, refused: UIMessage) -> OutputSinkError {
        OutputSinkError(UIMessage("the Wayland display {display} failed: {reason}", ["display": display],
                                  reasons: ["reason": code == EPROTO ? refused : describe(code)]))
    }

    /// Event times share one clock per device, with an undefined base: the monotonic clock, in ms. Live
    /// whatever clock the sink waits on, since the compositor passes them on to other programs.
    static func milliseconds() -> UInt32 {
        UInt32(truncatingIfNeeded: Int64(LiveClock().now() * 1000))
    }
}
