#if canImport(Glibc)
import Glibc
#endif
import CVirtualKeyboard
import Localization
import PtyHost

/// One `zwlr_virtual_pointer_v1` on a wlroots compositor, on a connection of its own: the Wayland sink's
/// pointer, made on the first pointer event so a sink that only types never adds a pointer to the seat.
///
/// Each event goes out as one group closed by `frame` and is flushed at once; a failure, including a
/// compositor that went away, is thrown as `OutputSinkError` naming the display.
final class WaylandPointer {
    /// The display as the user named it, for messages.
    let display: String
    private let handle: OpaquePointer

    /// Connects to `socket` (a name in `$XDG_RUNTIME_DIR`, or an absolute path) and creates the pointer.
    init(socket: String, display: String) throws(OutputSinkError) {
        self.display = display
        var status: Int32 = 0
        var code: Int32 = 0
        guard let handle = hf_vp_connect(socket, &status, &code) else {
            throw Self.connectFailure(status: status, code: code, display: display)
        }
        self.handle = handle
    }

    deinit { hf_vp_close(handle) }

    /// The scale of absolute positions: `motion_absolute` takes a fraction as a numerator over an extent.
    static let extent: UInt32 = 65_535

    /// Sends one pointer event (a click is its presses and releases, a scroll one notch per group).
    func send(_ event: PointerEvent) throws(OutputSinkError) {
        let time = WaylandClient.milliseconds()
        switch event {
        case .moveTo(let x, let y):
            try checked(hf_vp_motion_absolute(handle, time, Self.scaled(x), Self.scaled(y), Self.extent, Self.extent))
        case .moveBy(let dx, let dy):
            try checked(hf_vp_motion(handle, time, dx, dy))
        case .button(let button, let down):
            try checked(hf_vp_button(handle, time, Self.code(button), down ? 1 : 0))
        case .click(let button, let count):
            for _ in 0..<PointerEvent.bounded(clicks: count) {
                try checked(hf_vp_button(handle, time, Self.code(button), 1))
                try checked(hf_vp_button(handle, time, Self.code(button), 0))
            }
        case .scroll(let dx, let dy):
            // One notch per group, as a wheel sends them; 15 is the scroll distance libinput gives a notch.
            let dy = PointerEvent.bounded(notches: dy), dx = PointerEvent.bounded(notches: dx)
            for _ in 0..<abs(dy) { try checked(hf_vp_wheel(handle, time, 0, dy > 0 ? 15 : -15, dy > 0 ? 1 : -1)) }
            for _ in 0..<abs(dx) { try checked(hf_vp_wheel(handle, time, 1, dx > 0 ? 15 : -15, dx > 0 ? 1 : -1)) }
        }
    }

    /// Whether the seat had a pointer before this one: if not, each program has to make a pointer object of
    /// its own for this one before any event can reach it.
    var seatHadPointer: Bool { hf_vp_seat_had_pointer(handle) != 0 }

    /// The connection's socket.
    var fd: Int32 { hf_vp_fd(handle) }

    /// How far behind the compositor's other programs are, as `WaylandKeyboard.backlog`; `other` is this
    /// process's keyboard connection (`WaylandKeyboard.fd`), which no one reads meanwhile.
    func backlog(other: Int32 = -1) -> (clients: UInt32, compositor: UInt32)? {
        var clients: UInt32 = 0, compositor: UInt32 = 0
        guard hf_vp_backlog(handle, other, &clients, &compositor) == 0 else { return nil }
        return (clients, compositor)
    }

    /// Waits until the compositor has handled everything sent, so the event is in effect when `point` returns.
    func sync() throws(OutputSinkError) {
        try checked(hf_vp_sync(handle))
    }

    /// A fraction of the desktop as a numerator over `extent`, clamped to 0…1 (NaN counts as 0).
    static func scaled(_ fraction: Double) -> UInt32 {
        let clamped = fraction.isNaN ? 0 : min(1, max(0, fraction))
        return UInt32((clamped * Double(extent)).rounded())
    }

    /// The Linux input code of a button (linux/input-event-codes.h).
    static func code(_ button: PointerButton) -> UInt32 {
        switch button {
        case .left: return 0x110
        case .right: return 0x111
        case .middle: return 0x112
        }
    }

    private func checked(_ result: Int32) throws(OutputSinkError) {
        guard result != 0 else { return }
        throw OutputSinkError(UIMessage("the Wayland display {display} stopped taking pointer events: {reason}", ["display": display],
                                        reasons: ["reason": WaylandClient.requestFailure(hf_vp_error(handle))]))
    }

    private static func connectFailure(status: Int32, code: Int32, display: String) -> OutputSinkError {
        switch UInt32(status) {
        case HF_VP_NO_DISPLAY.rawValue:
            return WaylandClient.noDisplay(display, code: code)
        case HF_VP_NO_MANAGER.rawValue:
            return WaylandClient.noManager(display, "zwlr_virtual_pointer_manager_v1", pointer: true)
        default:
            return WaylandClient.failed(display, code: code, refused: UIMessage("the compositor refused the virtual pointer"))
        }
    }
}
