#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Where sway has put the windows, from its tree (IPC `GET_TREE`, the i3 protocol, on the socket `SWAYSOCK`
/// names, which sway gives every program it starts). Read by the Controls view (where windows are) and the
/// Wayland sink (which window the keys go to).
///
/// A Wayland program is never told where its window is, so a toolkit's "screen" coordinates there are its
/// window's own; only the compositor knows the window's place on the desktop, and sway says it.
public struct SwayTree {
    /// The whole desktop (every output), in pixels: what the pointer sink's absolute moves span.
    public var desktop: (width: Int, height: Int)
    /// Each window: the process showing it, its title, where its contents are on the desktop, whether focused.
    public var windows: [(pid: Int, title: String, x: Int, y: Int, focused: Bool)]

    /// Reads the tree from the socket `SWAYSOCK` names; nil when there is none or it does not answer in a second.
    public static func read(environment: [String: String] = ProcessInfo.processInfo.environment) -> SwayTree? {
        guard let path = environment["SWAYSOCK"], !path.isEmpty, let payload = ask(path, type: 4),
              let root = try? JSONSerialization.jsonObject(with: payload) as? [String: Any] else { return nil }
        return parse(root)
    }

    /// The tree's desktop size and windows; nil when it has no size.
    public static func parse(_ root: [String: Any]) -> SwayTree? {
        func int(_ object: Any?, _ key: String) -> Int { ((object as? [String: Any])?[key] as? NSNumber)?.intValue ?? 0 }
        let size = (int(root["rect"], "width"), int(root["rect"], "height"))
        guard size.0 > 0, size.1 > 0 else { return nil }
        var tree = SwayTree(desktop: size, windows: [])
        var stack: [[String: Any]] = [root]
        while let node = stack.popLast() {
            if let pid = node["pid"] as? NSNumber, let rect = node["rect"] {
                let inner = node["window_rect"]
                tree.windows.append((pid.intValue, node["name"] as? String ?? "", int(rect, "x") + int(inner, "x"),
                                     int(rect, "y") + int(inner, "y"), node["focused"] as? Bool ?? false))
            }
            stack += (node["nodes"] as? [[String: Any]] ?? []) + (node["floating_nodes"] as? [[String: Any]] ?? [])
        }
        return tree
    }

    /// Where the window of process `pid` called `title` has its contents: the one window of that process, else
    /// the one with that title, else the focused one of them.
    public func origin(pid: Int, title: String) -> (x: Int, y: Int)? {
        let mine = windows.filter { $0.pid == pid }
        let chosen = mine.count == 1 ? mine[0] : mine.first { $0.title == title } ?? mine.first { $0.focused }
        return chosen.map { ($0.x, $0.y) }
    }

    /// The process showing the focused window; nil when no window has the focus.
    public var focusedPid: Int? { windows.first { $0.focused }?.pid }

    /// Sends one i3-ipc message of `type` with no payload and returns the answer's payload (at most 16 MB).
    private static func ask(_ path: String, type: UInt32) -> Data? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { return nil }
        var message = Array("i3-ipc".utf8)
        withUnsafeBytes(of: UInt32(0).littleEndian) { message += $0 }
        withUnsafeBytes(of: type.littleEndian) { message += $0 }
        guard write(fd, message, message.count) == message.count, let head = readAll(fd, 14),
              head.prefix(6) == Data("i3-ipc".utf8) else { return nil }
        let length = head.subdata(in: 6..<10).withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(as: UInt32.self)) }
        guard length <= 16 << 20 else { return nil }
        return readAll(fd, Int(length))
    }

    private static func readAll(_ fd: Int32, _ count: Int) -> Data? {
        var out = Data(capacity: count)
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while out.count < count {
            let n = Glibc.read(fd, &buffer, min(buffer.count, count - out.count))
            guard n > 0 else { return nil }
            out.append(contentsOf: buffer[0..<n])
        }
        return out
    }
}
