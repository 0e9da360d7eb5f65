#if canImport(Glibc)
import Glibc
#endif
import CX11

/// A program of the test's own on an X display: a window that takes the focus and looks its keys up only
/// when told, as a busy program does, and answers the X11 sink's markers as xterm does (by clearing exactly
/// the strip an Expose names). Unlike a stopped xterm, it can read the server's events, and fetch the
/// keyboard mapping as Xlib does at a lookup after reading a change, and still hold keys unhandled: the
/// state in which a binding changed under a waiting key changes its character.
final class X11SlowClient {
    private let display: OpaquePointer
    private let control: OpaquePointer
    private let window: Window

    /// Opens `name` twice (the window's connection and one to read the mapping on), and maps a window
    /// titled `title` and gives it the focus. Call after an `X11Sink` was made (Xlib's threads are set up then).
    init?(display name: String, title: String) {
        guard let display = XOpenDisplay(name) else { return nil }
        guard let control = XOpenDisplay(name) else { XCloseDisplay(display); return nil }
        self.display = display
        self.control = control
        window = XCreateSimpleWindow(display, XDefaultRootWindow(display), 0, 0, 400, 200, 1, 0, 0)
        XStoreName(display, window, title)
        XSelectInput(display, window, Int(KeyPressMask | ExposureMask))
        XMapWindow(display, window)
        XSync(display, 0)
        XSetInputFocus(display, window, RevertToParent, 0)
        XSync(display, 0)
    }

    deinit {
        XCloseDisplay(control)
        XCloseDisplay(display)
    }

    /// Reads every event the server has sent, handling none.
    func readAll() {
        XSync(display, 0)
        _ = XEventsQueued(display, QueuedAfterReading)
    }

    /// Handles up to `most` queued events, reading none: each key looked up now (the character it types),
    /// each Expose of a one-pixel strip at the top answered.
    func handle(most: Int = .max) -> String {
        var typed = ""
        var handled = 0
        while handled < most, XEventsQueued(display, QueuedAlready) > 0 {
            var event = XEvent()
            XNextEvent(display, &event)
            handled += 1
            switch event.type {
            case KeyPress:
                var sym: KeySym = 0
                var buffer = [CChar](repeating: 0, count: 32)
                _ = XLookupString(&event.xkey, &buffer, 32, &sym, nil)
                // Latin-1 and Unicode keysyms only: Shift's own press is a key too.
                let value = sym >= 0x0100_0000 ? UInt32(sym - 0x0100_0000) : sym < 0x100 ? UInt32(sym) : 0
                if value != 0, let scalar = Unicode.Scalar(value) { typed.unicodeScalars.append(scalar) }
            case Expose where event.xexpose.y == 0 && event.xexpose.height == 1:
                XClearArea(display, event.xexpose.window, event.xexpose.x, 0, UInt32(event.xexpose.width), 1, 0)
            default:
                break
            }
        }
        XFlush(display)
        return typed
    }

    /// How many events wait in the window's queue, read or not.
    func queued() -> Int {
        XSync(display, 0)
        return Int(XEventsQueued(display, QueuedAfterReading))
    }

    /// Queues a marker of strip `x`, `width` for the window as another process's sink sends one.
    func sendMarker(x: Int32, width: Int32) {
        handsfree_x11_send_marker(control, window, x, width)
        XSync(control, 0)
    }

    /// Whether some keycode is bound to `scalar`'s Unicode keysym now.
    func isBound(_ scalar: Unicode.Scalar) -> Bool {
        var low: Int32 = 0, high: Int32 = 0, per: Int32 = 0
        XDisplayKeycodes(control, &low, &high)
        guard let map = XGetKeyboardMapping(control, KeyCode(low), high - low + 1, &per) else { return false }
        defer { XFree(map) }
        return UnsafeBufferPointer(start: map, count: Int(high - low + 1) * Int(per)).contains(KeySym(0x0100_0000 + scalar.value))
    }
}
