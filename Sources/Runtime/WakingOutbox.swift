#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// What threads of a part hand to the shell's loop: items kept under a lock, and a pipe whose read end the
/// loop polls, so a post wakes it (`LiveSpeaker`, `SetupWorker`).
final class WakingOutbox<Item: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Item] = []
    private let fds: [Int32]

    init() {
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        }
        self.fds = fds
    }

    deinit { for fd in fds where fd >= 0 { close(fd) } }

    /// The descriptor for the loop's `poll`: readable when items are waiting.
    var descriptors: [Int32] { fds[0] >= 0 ? [fds[0]] : [] }

    /// Adds an item and wakes the loop; from any thread.
    func post(_ item: Item) {
        lock.withLock { items.append(item) }
        if fds[1] >= 0 { var b: UInt8 = 1; _ = write(fds[1], &b, 1) }
    }

    /// The items since the last call (empties the pipe).
    func drain() -> [Item] {
        var buf = [UInt8](repeating: 0, count: 64)
        while fds[0] >= 0, read(fds[0], &buf, buf.count) > 0 {}
        return lock.withLock { defer { items = [] }; return items }
    }
}
