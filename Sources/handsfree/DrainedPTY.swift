#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Runtime
import Terminal

/// A pseudo-terminal for the benches to draw into with curses: a thread reads and drops its output, as a
/// terminal emulator would read it, so drawing never blocks.
final class DrainedPTY {
    let master: Int32
    /// The terminal side, for `Terminal(output:input:)`.
    let slave: UnsafeMutablePointer<FILE>

    init() throws {
        guard let (master, slavePath) = Terminal.openPTY() else { throw SetupError("cannot open a pty") }
        guard let slave = fopen(slavePath, "r+") else {
            Glibc.close(master)
            throw SetupError("cannot open \(slavePath)")
        }
        self.master = master; self.slave = slave
        let drain = Thread {
            var buf = [UInt8](repeating: 0, count: 65536)
            while true { if read(master, &buf, buf.count) <= 0 { break } }
        }
        drain.start()
    }

    /// Closes both sides (the drain thread then ends).
    func close() {
        fclose(slave)
        Glibc.close(master)
    }
}
