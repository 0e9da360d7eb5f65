import Config
import Testing
@testable import FrameFormats
import TrackingCore

/// Replays the real Live Link Face takes in ../shared/data/face through the default gestures.
struct RealRecordingTests {
    struct Run {
        var frames: [TrackingFrame]
        var events: [GestureEvent]
        var stats: PipelineStats
        func times(_ name: String) -> [Double] { events.filter { $0.name == name }.map(\.t) }
    }

    static func replay(_ name: String, onKey: Bool = false) throws -> Run {
        let path = try #require(SharedData.path("face/\(name)"), "\(name) is in ../shared/data/face")
        let items = try FrameFile.read(path: path)
        var p = Pipeline(GestureConfig.defaults())
        p.onKey = onKey
        var events: [GestureEvent] = []
        for item in items { events += p.step(item) }
        let frames = items.compactMap { if case .frame(let f, _) = $0 { return f }; return nil }
        return Run(frames: frames, events: events, stats: p.stats)
    }

    /// Runs of consecutive frames where `cond` holds, as (start, end) times.
    static func runs(_ fs: [TrackingFrame], _ cond: (TrackingFrame) -> Bool) -> [(Double, Double)] {
        var out: [(Double, Double)] = []
        var start: Double?
        var last = 0.0
        for f in fs {
            if cond(f) { if start == nil { start = f.t }; last = f.t } else if let s = start { out.append((s, last)); start = nil }
        }
        if let s = start { out.append((s, last)) }
        return out
    }

    /// The activation definition, written out independently: a performance is armed once jawOpen is below
    /// 0.3, and fires when jawOpen has stayed at or above 0.5 for 300 ms; then 300 ms of refractory time.
    static func expectedActivations(_ fs: [TrackingFrame]) -> [Double] {
        var armed = false
        var aboveSince: Double?
        var quietUntil = -Double.infinity
        var fired: [Double] = []
        for f in fs {
            let v = f.blend[.jawOpen]
            if v < 0.3 { armed = true; aboveSince = nil; continue }
            guard armed else { continue }
            if v >= 0.5 {
                if aboveSince == nil { aboveSince = f.t >= quietUntil ? f.t : nil }
                if let s = aboveSince, f.t - s >= 0.3 {
                    fired.append(f.t); armed = false; aboveSince = nil; quietUntil = f.t + 0.3
                }
            } else {
                aboveSince = nil
            }
        }
        return fired
    }

    @Test(.enabled(if: SharedData.path("face/alex_rom_4.csv") != nil, "../shared/data/face/alex_rom_4.csv is absent"))
    func alexActivationsMatchTheJawOpenEpisodes() throws {
        let run = try Self.replay("alex_rom_4.csv")
        #expect(run.frames.count == 3809)
        let expected = Self.expectedActivations(run.frames)
        #expect(run.times("activate") == expected)
        // The take has about 24 jaw-open episodes; the short ones (under 300 ms at 0.5) do not qualify.
        let episodes = Self.runs(run.frames) { $0.blend[.jawOpen] > 0.5 }
        #expect(episodes.count >= 20)
        #expect(expected.count >= 10 && expected.count < episodes.count)
        for t in expected {
            #expect(episodes.contains { $0.0 <= t && t <= $0.1 }, "activation at \(t) lies inside a jaw-open episode")
        }
    }

    @Test(.enabled(if: SharedData.path("face/alex_rom_4.csv") != nil, "../shared/data/face/alex_rom_4.csv is absent"))
    func alexRightEyeClosureGivesOneBackAndFullBlinksNone() throws {
        let run = try Self.replay("alex_rom_4.csv")
        let rightOnly = Self.runs(run.frames) { $0.blend[.eyeBlinkRight] >= 0.6 && $0.blend[.eyeBlinkLeft] <= 0.3 }
        let long = rightOnly.filter { $0.1 - $0.0 >= 0.4 }
        #expect(long.count == 1, "one right-only closure is long enough for back")
        let backs = run.times("back")
        #expect(backs.count == long.count)
        for (s, e) in long { #expect(backs.contains { $0 >= s && $0 <= e + 0.05 }) }
        let fullBlinks = Self.runs(run.frames) { $0.blend[.eyeBlinkRight] >= 0.5 && $0.blend[.eyeBlinkLeft] >= 0.5 }
        #expect(fullBlinks.count >= 25, "the take has about 31 full blinks")
        for b in backs {
            #expect(!fullBlinks.contains { b >= $0.0 - 0.05 && b <= $0.1 + 0.05 }, "a back at \(b) falls on a full blink")
        }
    }

    @Test(.enabled(if: SharedData.path("face/alex_rom_4.csv") != nil, "../shared/data/face/alex_rom_4.csv is absent"))
    func alexTongueEpisodeGivesOneCommit() throws {
        let run = try Self.replay("alex_rom_4.csv")
        let tongue = Self.runs(run.frames) { $0.blend[.tongueOut] >= 0.5 }.filter { $0.1 - $0.0 >= 0.2 }
        #expect(tongue.count == 1)
        let commits = run.times("commit")
        #expect(commits.count == 1)
        if let c = commits.first, let ep = tongue.first { #expect(c >= ep.0 && c <= ep.1 + 0.05) }
    }

    @Test(.enabled(if: SharedData.path("face/apfel.csv") != nil, "../shared/data/face/apfel.csv is absent"))
    func apfelFaceLostRowsProduceNoGesture() throws {
        let run = try Self.replay("apfel.csv")
        #expect(run.stats.faceLost == 35)
        #expect(run.stats.malformed == 0)
        let lost = run.frames.filter { !$0.face }.map(\.t)
        for e in run.events {
            #expect(!lost.contains(e.t), "\(e.name) fired on a face-lost frame")
            // No performance spans a face loss: nothing lost lies between its onset and its firing.
            #expect(!lost.contains { $0 >= e.onset && $0 <= e.t }, "\(e.name) at \(e.t) spans a face loss")
        }
    }

    @Test(.enabled(if: SharedData.path("face/S07-001.csv") != nil, "../shared/data/face/S07-001.csv is absent"))
    func talkingTakeBarelyActivates() throws {
        let run = try Self.replay("S07-001.csv")
        // Speech holds the jaw between the thresholds, not above press: at most one activation in 67 s.
        #expect(run.times("activate").count <= 1)
        #expect(run.times("back").isEmpty)
    }

    @Test(.enabled(if: SharedData.path("face/S07-001.csv") != nil && SharedData.path("face/alex_rom_4.csv") != nil,
                   "../shared/data/face/S07-001.csv or alex_rom_4.csv is absent"))
    func talkingWithTheEyesOnALetterKeyActivatesNoMoreThanTheFullHold() throws {
        // The shipped key hold (150 ms) alone gives 6 activations on the talking take (against 1) and 18 on the
        // range-of-motion take (against 12); key_calm_ms grants it only to openings from a still jaw. The one
        // it keeps on the range-of-motion take is a quick opening from a still face (what a key press is).
        for (name, extra) in [("S07-001.csv", 0), ("alex_rom_4.csv", 1)] {
            let full = try Self.replay(name).times("activate")
            let onKey = try Self.replay(name, onKey: true).times("activate")
            #expect(onKey.count <= full.count + extra, "\(name): \(onKey.count) on a key against \(full.count)")
        }
    }

    @Test(.enabled(if: SharedData.path("face/LLV_dao.gesichter") != nil, "../shared/data/face/LLV_dao.gesichter is absent"))
    func gesichterContainerDecodesAll180Packets() throws {
        let run = try Self.replay("LLV_dao.gesichter")
        #expect(run.frames.count == 180)
        #expect(run.stats.malformed == 0)
        #expect(run.times("activate").count == 1)
    }
}
