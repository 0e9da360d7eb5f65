import Config
import FrameFormats
import Foundation
import SystemIO
import Testing
import TrackingCore
@testable import Transport

private let sharedFace: String? = {
    let pkg = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let p = pkg.deletingLastPathComponent().appendingPathComponent("shared/data/face/LLV_dao.gesichter").path
    return FileManager.default.fileExists(atPath: p) ? p : nil
}()

/// Polls until `count` items arrived or two seconds passed.
private func collect(_ source: LiveSource, count: Int) -> [DecodedItem] {
    var items: [DecodedItem] = []
    let deadline = LiveClock().now() + 2
    while items.count < count && LiveClock().now() < deadline { items += source.poll(timeoutMs: 20) }
    return items
}

private func gestures(_ items: [DecodedItem]) -> [String] {
    var p = Pipeline(GestureConfig.defaults())
    return items.flatMap { p.step($0) }.map { "\($0.name)@\(NDJSONEncoder.fmt($0.t, 3))" }
}

struct LoopbackTests {
    @Test func addressesDefaultToLoopback() throws {
        #expect(try ListenAddress(parsing: "udp://:11111") == ListenAddress(proto: .udp, host: "127.0.0.1", port: 11111))
        #expect(try ListenAddress(parsing: "tcp://localhost:7007").host == "127.0.0.1")
        #expect(try ListenAddress(parsing: "udp://0.0.0.0:9").host == "0.0.0.0")
        #expect(throws: TransportError.self) { try ListenAddress(parsing: "http://x:1") }
        #expect(throws: TransportError.self) { try ListenAddress(parsing: "udp://127.0.0.1:99999") }
    }

    @Test func busyPortIsAClearError() throws {
        let a = try LiveSource(ListenAddress(proto: .tcp, port: 0))
        do {
            _ = try LiveSource(ListenAddress(proto: .tcp, port: a.port))
            Issue.record("bound a busy port")
        } catch {
            #expect(error.description.contains("cannot listen"))
        }
    }

    @Test(.enabled(if: sharedFace != nil, "../shared/data/face/LLV_dao.gesichter is absent"))
    func realPacketsOverUDPGiveTheSameGesturesAsTheFile() throws {
        let path = try #require(sharedFace)
        let fileItems = try FrameFile.read(path: path)
        let data = try #require(FileManager.default.contents(atPath: path))
        let packets = GesichterContainer.packets([UInt8](data)).packets
        #expect(packets.count == 180)

        let source = try LiveSource(ListenAddress(proto: .udp, port: 0))
        let sender = try FrameSender(to: ListenAddress(proto: .udp, port: source.port))
        var received: [DecodedItem] = []
        // Send in small bursts so the socket buffer never overflows.
        for chunk in stride(from: 0, to: packets.count, by: 20) {
            for p in packets[chunk..<min(packets.count, chunk + 20)] { sender.send(p) }
            received += collect(source, count: min(20, packets.count - chunk))
        }
        #expect(received.count == 180)
        #expect(received == fileItems)
        let g = gestures(received)
        #expect(!g.isEmpty)
        #expect(g == gestures(fileItems))
    }

    @Test func garbageDatagramsAreCountedWithTheirIndex() throws {
        let source = try LiveSource(ListenAddress(proto: .udp, port: 0))
        let sender = try FrameSender(to: ListenAddress(proto: .udp, port: source.port))
        let good = LiveLinkUDP.encode(TrackingFrame(t: 1))
        sender.send(good)
        sender.send(Array(good.prefix(20)))
        sender.send([0xFF, 0x00, 0x13])
        sender.send(Array("{\"t\": 2, \"blend\": {\"jawOpen\": 0.5}}".utf8))
        sender.send(Array("{\"t\": ".utf8))
        let items = collect(source, count: 5)
        var p = Pipeline(GestureConfig.defaults())
        for i in items { _ = p.step(i) }
        #expect(p.stats.frames == 2)
        #expect(p.stats.malformed == 3)
        #expect(p.stats.issues.map { $0.position?.index ?? 0 } == [2, 3, 5])
        #expect(p.stats.issues.first?.description.hasPrefix("packet 2: truncated") == true)
    }

    @Test func ndjsonOverTCPSplitAnywhere() throws {
        let source = try LiveSource(ListenAddress(proto: .tcp, port: 0))
        let sender = try FrameSender(to: ListenAddress(proto: .tcp, port: source.port))
        let frames = (0..<50).map { k in
            TrackingFrame(t: Double(k) / 60, blend: BlendShapes([.jawOpen: k >= 10 && k < 40 ? 0.9 : 0.1]), gaze: GazePoint(x: 0.5, y: 0.5))
        }
        let bytes = Array(frames.map { NDJSONEncoder.encode($0) + "\n" }.joined().utf8)
        var i = 0
        var items: [DecodedItem] = []
        while i < bytes.count {
            let n = min(bytes.count - i, 37)
            sender.send(Array(bytes[i..<(i + n)]))
            i += n
            items += source.poll(timeoutMs: 5)
        }
        items += collect(source, count: 50 - items.count)
        #expect(items.count == 50)
        #expect(gestures(items).count == 1)
    }

    @Test func liveLinkPacketsOverTCPAreLengthPrefixed() throws {
        let source = try LiveSource(ListenAddress(proto: .tcp, port: 0))
        let sender = try FrameSender(to: ListenAddress(proto: .tcp, port: source.port))
        var stream: [UInt8] = []
        for k in 0..<10 {
            let p = LiveLinkUDP.encode(TrackingFrame(t: Double(k) / 60))
            stream += withUnsafeBytes(of: UInt32(p.count).bigEndian) { Array($0) } + p
        }
        sender.send(stream)
        let items = collect(source, count: 10)
        #expect(items.count == 10)
        #expect(items.allSatisfy { if case .frame = $0 { return true }; return false })
    }
}

/// A flood is shed, not queued: one turn hands on only the newest items, counts the rest as dropped, and
/// names the sender of unrecognised packets.
struct FloodTests {
    /// Sends `count` NDJSON frames whose `t` is their number.
    private func flood(_ sender: FrameSender, _ count: Int, from start: Int = 0) {
        for i in start..<(start + count) { sender.send(Array("{\"t\": \(i), \"face\": true}".utf8)) }
    }

    @Test func oneTurnKeepsTheNewestFramesAndCountsTheRestAsDropped() throws {
        let source = try LiveSource(ListenAddress(proto: .udp, port: 0))
        let sender = try FrameSender(to: ListenAddress(proto: .udp, port: source.port))
        flood(sender, 500)
        let items = source.drain()
        let keep = source.limits.keepPerTurn
        #expect(items.count == keep, "one turn must hand on at most \(keep) items, not the whole queue")
        let times = items.compactMap { if case .frame(let f, _) = $0 { return f.t }; return nil }
        #expect(times.last == 499, "the newest frame wins")
        #expect(times == (500 - keep..<500).map(Double.init))
        #expect(source.dropped == 500 - keep)
        #expect(source.received == 500)
    }

    @Test func aTurnReadsAtMostItsBudget() throws {
        let limits = LiveSource.Limits(readsPerTurn: 100, keepPerTurn: 10)
        let source = try LiveSource(ListenAddress(proto: .udp, port: 0), limits: limits)
        let sender = try FrameSender(to: ListenAddress(proto: .udp, port: source.port))
        flood(sender, 250)
        #expect(source.drain().count == 10)
        #expect(source.received == 100, "the rest waits in the socket for the next turn")
        #expect(source.dropped == 90)
        _ = source.drain(); _ = source.drain()
        #expect(source.received == 250)
        #expect(source.drain().isEmpty)
    }

    @Test func unrecognisedPacketsNameTheirSender() throws {
        let source = try LiveSource(ListenAddress(proto: .udp, port: 0))
        let sender = try FrameSender(to: ListenAddress(proto: .udp, port: source.port))
        sender.send([0xFF, 0x00, 0x13])
        sender.send(Array("{\"t\": 1}".utf8))
        sender.send(Array("{\"t\": ".utf8))
        _ = collect(source, count: 3)
        #expect(source.unrecognised == 2)
        let last = try #require(source.lastUnrecognised)
        #expect(last.from == "127.0.0.1:\(sender.localPort)")
        #expect(last.issue.position == SourcePosition(.packet, 3))
    }

    @Test func tcpClientsAreBoundedAndAFastClientIsReadInSlices() throws {
        let limits = LiveSource.Limits(keepPerTurn: 16, tcpBytesPerClient: 4096, maxClients: 2)
        let source = try LiveSource(ListenAddress(proto: .tcp, port: 0), limits: limits)
        let a = try FrameSender(to: ListenAddress(proto: .tcp, port: source.port))
        let b = try FrameSender(to: ListenAddress(proto: .tcp, port: source.port))
        let c = try FrameSender(to: ListenAddress(proto: .tcp, port: source.port))
        let lines = (0..<2000).map { "{\"t\": \($0), \"face\": true}\n" }.joined()
        a.send(Array(lines.utf8))
        _ = b; _ = c
        // The first turn that finds a's lines, which reach the socket a moment after the send.
        var first: [DecodedItem] = []
        let start = LiveClock().now()
        while first.isEmpty, LiveClock().now() - start < 2 { first = source.poll(timeoutMs: 20) }
        #expect(source.refused == 1)
        #expect(first.count <= 16)
        #expect(first.count + source.dropped <= 4096 / 20, "one turn reads at most the client's byte budget")
        var all = first
        let deadline = LiveClock().now() + 2
        while LiveClock().now() < deadline {
            let got = source.poll(timeoutMs: 20)
            #expect(got.count <= 16)
            all += got
            if case .frame(let f, _) = all.last, f.t == 1999 { break }
        }
        if case .frame(let f, _) = all.last { #expect(f.t == 1999) } else { Issue.record("no frames arrived") }
        #expect(all.count + source.dropped == 2000)
    }
}

private let venvPython: String? = {
    let pkg = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let py = pkg.appendingPathComponent(".venv/bin/python").path
    guard FileManager.default.isExecutableFile(atPath: py) else { return nil }
    let check = Process()
    check.executableURL = URL(fileURLWithPath: py)
    check.arguments = ["-c", "import pythonosc"]
    guard (try? check.run()) != nil else { return nil }
    check.waitUntilExit()
    return check.terminationStatus == 0 ? py : nil
}()

/// Real senders of the other trackers' protocols, over UDP on 127.0.0.1.
struct TrackerLoopbackTests {
    /// Runs python/vmc_send.py (python-osc) against a live source and collects what arrives.
    func vmc(_ extra: [String]) throws -> [DecodedItem] {
        let source = try LiveSource(ListenAddress(proto: .udp, port: 0))
        let pkg = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try #require(venvPython))
        p.arguments = [pkg.appendingPathComponent("python/vmc_send.py").path, String(source.port), "--frames", "90",
                       "--jaw-open-from", "30"] + extra
        try p.run()
        var items: [DecodedItem] = []
        while p.isRunning { items += source.poll(timeoutMs: 10) }
        items += source.poll(timeoutMs: 50)
        #expect(p.terminationStatus == 0)
        #expect(source.formatSeen == .vmc)
        return items
    }

    @Test(.enabled(if: venvPython != nil, "needs python-osc in .venv (scripts/python-env.sh test)"),
          arguments: [[String](), ["--loose"]])
    func pythonOSCSenderDrivesGestures(_ extra: [String]) throws {
        let items = try vmc(extra)
        let frames = items.compactMap { if case .frame(let f, _) = $0 { return f } else { return nil } }
        #expect(frames.count == 90, "\(items.count) items")
        #expect(frames.first?.blend[.jawOpen] == 0.05 && frames.last?.blend[.jawOpen] == 1)
        #expect(zip(frames, frames.dropFirst()).allSatisfy { $0.t < $1.t })
        #expect(gestures(items).contains { $0.hasPrefix("activate@") }, "\(gestures(items))")
    }

    @Test func iFacialMocapHandshakeStartsThePhone() throws {
        let source = try LiveSource(ListenAddress(proto: .udp, port: 0))
        // The phone: a UDP socket on 127.0.0.1 that answers the handshake by sending one frame back.
        let phone = try LiveSource(ListenAddress(proto: .udp, port: 0))
        try source.send(Array(IFacialMocap.handshake.utf8), to: "127.0.0.1", port: phone.port)
        let got = collect(phone, count: 1)
        #expect(got.count == 1)
        if case .malformed(let i) = got.first { #expect(i.message.contains("not a known format")) }
        let sender = try FrameSender(to: ListenAddress(proto: .udp, port: source.port))
        sender.send(Array("eyeBlink_R-100|jawOpen-20|=head#0,5,0,0,0,0|".utf8))
        let items = collect(source, count: 1)
        guard case .frame(let f, _)? = items.first else { Issue.record("no frame: \(items)"); return }
        #expect(f.blend[.eyeBlinkRight] == 1 && source.formatSeen == .ifacialmocap)
        #expect(throws: TransportError.self) { try source.send([1], to: "phone.local", port: 49983) }
    }

    /// A protocol that carries no time (iFacialMocap) gives its frames their arrival's on the source's clock.
    @Test func framesWithoutATimeTakeTheirArrivalOnTheSourcesClock() throws {
        let clock = TestClock(now: 500)
        let source = try LiveSource(ListenAddress(proto: .udp, port: 0), clock: clock)
        let sender = try FrameSender(to: ListenAddress(proto: .udp, port: source.port))
        var times: [Double] = []
        for _ in 0..<2 {
            sender.send(Array("eyeBlink_R-100|jawOpen-20|=head#0,5,0,0,0,0|".utf8))
            if case .frame(let f, _)? = collect(source, count: 1).first { times.append(f.t) }
            clock.advance(by: 0.25)
        }
        #expect(times == [500, 500.25])
    }
}
