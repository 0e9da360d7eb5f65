#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shell
import TerminalModel
import Terminal

/// Where the live loop shows the shell and reads keys: the full-screen terminal, or plain lines.
public protocol ShellDisplay: AnyObject {
    /// The size the shell lays out for.
    var size: Size { get }
    /// The descriptor to wait on for keys; negative when there is none (plain mode at end of input).
    var inputFD: Int32 { get }
    func readInput() -> TerminalInput?
    /// Whether a hang-up on the input ends the shell (a closed terminal does; the end of piped keys does not).
    func inputHungUp() -> Bool
    /// Shows the state after a change; `performed` lists what was done since the last call.
    func show(_ state: ShellState, performed: [ActionRecord])
    /// Shows only the Terminal screen's pane of `state`, with `view` in it, over the last drawing
    /// (`renderPane`), for a key's echo; `drawn` is the view that drawing shows. False when the display cannot,
    /// and the state is then drawn in full as usual.
    func showPane(_ state: ShellState, view: TerminalView, drawn: TerminalView?) -> Bool
    func stop()
}

extension ShellDisplay {
    public func showPane(_ state: ShellState, view: TerminalView, drawn: TerminalView?) -> Bool { false }
}

extension Terminal {
    /// Draws the Terminal screen's pane of `state`, with `view` in it, alone over what the terminal shows
    /// (`panePatch`), changing only its rows that differ from `drawn`; false when it cannot, and nothing is drawn.
    public func drawPane(of state: ShellState, view: TerminalView, drawn: TerminalView?) -> Bool {
        guard lastDrawn?.size == state.size, let patch = panePatch(state, view: view, drawn: drawn) else { return false }
        return drawRows(patch.rows) { patch.apply(to: &$0) }
    }
}

/// The curses display, ringing the bell on activation when the setting asks for it.
public final class CursesDisplay: ShellDisplay {
    public let term: Terminal
    public init(_ term: Terminal) { self.term = term }
    public var size: Size { term.size }
    public var inputFD: Int32 { 0 }
    public func readInput() -> TerminalInput? { term.readInput() }
    public func inputHungUp() -> Bool { true }
    public func show(_ state: ShellState, performed: [ActionRecord]) {
        if state.settings.bellOnActivate, performed.contains(where: \.isActivation) { term.bell() }
        term.draw(render(state, size: term.size).0)
    }
    public func showPane(_ state: ShellState, view: TerminalView, drawn: TerminalView?) -> Bool {
        term.drawPane(of: state, view: view, drawn: drawn)
    }
    public func stop() { term.stop() }
}

/// Plain mode: one line per change on standard output, no cursor addressing, no curses. Keys come from raw
/// standard input (a terminal switched to non-canonical mode, restored on stop) or from a pipe.
public final class PlainDisplay: ShellDisplay {
    /// The size the shell lays out for: targets and their labels, not what the terminal shows.
    public let size = Size(width: 100, height: 30)
    private var last: PlainView?
    private var saved: termios?
    /// Standard input's flags before it was made non-blocking: the file description is shared with the shell
    /// that started us (and whoever else holds the terminal), which must not be left non-blocking.
    private var savedFlags: Int32 = -1
    private var pending: [UInt8] = []
    private var eof = false
    private var active = true

    public init() {
        var t = termios()
        if isatty(0) == 1, tcgetattr(0, &t) == 0 {
            saved = t
            // Keys one at a time without echo; output processing stays on so lines end normally.
            t.c_lflag &= ~tcflag_t(ICANON | ECHO)
            withUnsafeMutableBytes(of: &t.c_cc) { cc in
                cc[Int(VMIN)] = 0
                cc[Int(VTIME)] = 0
            }
            tcsetattr(0, TCSANOW, &t)
        }
        savedFlags = fcntl(0, F_GETFL)
        if savedFlags >= 0 { _ = fcntl(0, F_SETFL, savedFlags | O_NONBLOCK) }
    }

    deinit { stop() }

    public var inputFD: Int32 { eof ? -1 : 0 }

    public func show(_ state: ShellState, performed: [ActionRecord]) {
        let view = PlainView(state, performed: performed)
        // Written at once, unbuffered: a screen reader speaks each change as it happens.
        let lines = describeChanges(last, view)
        if !lines.isEmpty { FileHandle.standardOutput.write(Data(lines.map { $0 + "\n" }.joined().utf8)) }
        last = view
    }

    public func stop() {
        guard active else { return }
        active = false
        if var t = saved { tcsetattr(0, TCSANOW, &t) }
        if savedFlags >= 0 { _ = fcntl(0, F_SETFL, savedFlags) }
    }

    public func inputHungUp() -> Bool {
        fill()
        eof = true
        return isatty(0) == 1
    }

    public func readInput() -> TerminalInput? {
        fill()
        return Self.parse(&pending)
    }

    private func fill() {
        guard !eof else { return }
        var buf = [UInt8](repeating: 0, count: 256)
        while true {
            let n = read(0, &buf, buf.count)
            if n > 0 { pending += buf[0..<n]; continue }
            // A terminal in non-canonical mode with VMIN 0 reads 0 bytes when no key is waiting; only a pipe
            // or file is at its end then.
            if n == 0, saved == nil { eof = true }
            return
        }
    }

    /// Takes one key off the front of `bytes`: arrows (`ESC [ A`…), F12 (`ESC [ 2 4 ~`, the carer's restore
    /// key), Enter, Esc, Tab, Backspace, or a UTF-8 character; control characters that stand for nothing are
    /// dropped.
    public static func parse(_ bytes: inout [UInt8]) -> TerminalInput? {
        while let b = bytes.first {
            switch b {
            case 0x1B:
                if bytes.starts(with: Array("\u{1B}[24~".utf8)) {
                    bytes.removeFirst(5)
                    return .key(.restoreSettings)
                }
                if bytes.count >= 3, bytes[1] == 0x5B || bytes[1] == 0x4F {
                    let k: Key? = [0x41: .up, 0x42: .down, 0x43: .right, 0x44: .left][bytes[2]]
                    bytes.removeFirst(3)
                    if let k { return .key(k) }
                    continue
                }
                bytes.removeFirst()
                return .key(.escape)
            case 10, 13: bytes.removeFirst(); return .key(.enter)
            case 9: bytes.removeFirst(); return .key(.tab)
            case 8, 127: bytes.removeFirst(); return .key(.backspace)
            case 0..<32: bytes.removeFirst(); continue
            default:
                let n = b < 0xC0 ? 1 : (b < 0xE0 ? 2 : (b < 0xF0 ? 3 : 4))
                guard bytes.count >= n else { return nil }
                let s = String(decoding: bytes[0..<n], as: UTF8.self)
                bytes.removeFirst(n)
                if let c = s.first, c != "\u{FFFD}" { return .key(.char(c)) }
            }
        }
        return nil
    }
}
