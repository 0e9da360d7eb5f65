#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing

/// The live edges of the built binary: a status line that tells the truth about the source, and clean ends
/// on signals and crashes (files complete, summary printed, terminal restored).
@Suite(.serialized) struct LiveEdgesTests {
    static let binary = ShellInTmuxTests.binary
    static let ready = ShellInTmuxTests.ready

    /// The local port a UDP socket sends from (after its first send).
    static func localPort(_ fd: Int32) -> UInt16 {
        var a = sockaddr_in()
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &a) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        return UInt16(bigEndian: a.sin_port)
    }

    static func send(_ fd: Int32, port: UInt16, _ bytes: [UInt8]) {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = bytes.withUnsafeBytes { b in
            withUnsafePointer(to: &a) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, b.baseAddress, b.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
    }

    /// When the sender stops, the status line says so within about a second instead of showing the last
    /// frame's face and rate forever; a garbage packet is counted and its sender named.
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree) and tmux"))
    func theStatusLineGoesStaleWhenFramesStop() throws {
        let port = try freeUDPPort()
        let dir = NSTemporaryDirectory() + "hf-e2e-stale-\(getpid())"
        let session = Tmux(name: "hf-e2e-stale-\(getpid())")
        defer { session.kill(); try? FileManager.default.removeItem(atPath: dir) }
        try session.start("env LANG=C.UTF-8 XDG_STATE_HOME=\(dir)/state HANDSFREE_DATA_DIR=\(dir)/data \(Self.binary) run --no-speech --no-onboarding --listen udp://127.0.0.1:\(port)")
        #expect(session.waitFor { $0.first?.contains("HandsFree │ Home") == true })
        let sender = try UDPSender(port: port)
        sender.play(gaze: (0.5, 0.5), blend: [:], seconds: 0.5)
        let status = { (lines: [String]) in lines.last { $0.contains("fps │") } ?? "" }
        #expect(session.waitFor(seconds: 5) { status($0).contains("face ? no frames for") },
                "the status line must say frames stopped:\n\(session.screen)")
        #expect(!status(session.capture()).contains("face ●"))
        #expect(status(session.capture()).contains(" 0 fps"), "no frames arrive, so the rate is 0:\n\(session.screen)")

        Self.send(sender.fd, port: port, [0xFF, 0x00, 0x13])
        let from = "127.0.0.1:\(Self.localPort(sender.fd))"
        #expect(session.waitFor(seconds: 5) { $0.first?.contains("unrecognised packets from \(from)") == true },
                "the sender of garbage is named:\n\(session.screen)")
        #expect(status(session.capture()).contains("1 unrecognised"), "\(session.screen)")

        // Frames again: the face is back, with a real rate.
        sender.play(gaze: (0.5, 0.5), blend: [:], seconds: 1.2)
        #expect(session.waitFor(seconds: 5) { status($0).contains("face ●") }, "\(session.screen)")
    }
}
