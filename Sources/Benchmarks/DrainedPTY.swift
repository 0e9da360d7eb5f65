#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Localization
import Runtime
import Shell
import TerminalModel
import Terminal

/// A pseudo-terminal for the benches to draw into with curses: a thread reads and drops its output, as a
/// terminal emulator would read it, so drawing never blocks.
public final class DrainedPTY {
    public let master: Int32
    /// The terminal side, for `Terminal(output:input:)`.
    public let slave: UnsafeMutablePointer<FILE>

    public init() throws {
        guard let (master, slavePath) = Terminal.openPTY() else { throw SetupError(UIMessage("cannot open a pty ({reason})", reasons: ["reason": .system(String(cString: strerror(errno)))])) }
        guard let slave = fopen(slavePath, "r+") else {
            let reason = String(cString: strerror(errno))
            Glibc.close(master)
            throw SetupError(UIMessage("cannot open {file} ({reason})", ["file": slavePath], reasons: ["reason": .system(reason)]))
        }
        self.master = master; self.slave = slave
        let drain = Thread {
            var buf = [UInt8](repeating: 0, count: 65536)
            while true { if read(master, &buf, buf.count) <= 0 { break } }
        }
        drain.start()
    }

    /// Closes both sides (the drain thread then ends).
    public func close() {
        fclose(slave)
        Glibc.close(master)
    }
}

/// Draws the shell into a terminal on a pty, with no keyboard (for the loop benchmarks).
public final class PtyDisplay: ShellDisplay {
    public let term: Terminal
    public let size: Size
    public init(_ term: Terminal, size: Size) {
        self.term = term; self.size = size
        term.resize(size)
    }
    public var inputFD: Int32 { -1 }
    public func readInput() -> TerminalInput? { nil }
    public func inputHungUp() -> Bool { false }
    public func show(_ state: ShellState, performed: [ActionRecord]) { term.draw(render(state, size: size).0) }
    public func showPane(_ state: ShellState, view: TerminalView, drawn: TerminalView?) -> Bool {
        term.drawPane(of: state, view: view, drawn: drawn)
    }
    public func stop() { term.stop() }
}
