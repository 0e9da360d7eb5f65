import Config
import Foundation
import FrameFormats
import Shell
import Testing
import TrackingCore

/// The loop skips drawing a frame whose `FrameLook` equals the last drawing's: that is only right if equal
/// looks always draw equal grids. Checked on every screen with a real recorded face, and with the same face
/// held still, where most frames must then be skipped.
@Suite struct FrameLookTests {
    /// Frames of a real take, as CorePurityTests reads it.
    static let frames: [DecodedItem]? = CorePurityTests.take.flatMap { try? Array(FrameFile.read(path: $0).prefix(600)) }

    /// Steps `items` on `screen`, and at each frame compares the look and the drawing with the last frame's.
    /// Returns how many frames looked the same; a pair that looked the same but drew differently is an issue.
    static func check(screen: String, _ items: [DecodedItem]) throws -> (same: Int, steps: Int) {
        let settings = GestureConfig.defaults()
        var state = ShellState(keymap: try CorePurityTests.keymap(), gestures: settings.gestures,
                               services: CorePurityTests.services, data: AppData.load(.memory()),
                               predictor: CorePurityTests.predictor)
        state.show(screen: screen)
        var session = Session(state: state, settings: settings)
        // The runtime's measures, as a live run has them: the status line shows the arrival rate it measured,
        // not a rate counted frame by frame.
        _ = session.send(.inputHealth(InputHealth(arrivalRate: 60, quietSeconds: 0)))
        var last: (FrameLook, CellGrid)?
        var same = 0
        for (k, item) in items.enumerated() {
            _ = session.step(item)
            let look = FrameLook(session.state)
            let grid = render(session.state, size: session.state.size).0
            // The marks worked out alone (for an echo) agree with the marks of the whole look.
            if let (l, _) = last, l.sameMarks(as: session.state) != l.sameMarks(look) {
                Issue.record("\(screen), frame \(k): sameMarks(as:) disagrees with the look's marks")
                return (same, k)
            }
            // The loop asks `matches`, part by part: it must agree with a whole look's comparison.
            if let (l, _) = last, l.matches(session.state) != (l == look) {
                Issue.record("\(screen), frame \(k): matches says \(!(l == look)), the whole look \(l == look)")
                return (same, k)
            }
            if let (l, g) = last, l == look {
                same += 1
                if g != grid {
                    let row = zip(g.lines, grid.lines).enumerated().first { $0.element.0 != $0.element.1 }
                    Issue.record("""
                        \(screen), frame \(k) (now \(session.state.top.name)): the look did not change but row \
                        \(row?.offset ?? -1) did: \(row?.element.0 ?? "") → \(row?.element.1 ?? "")
                        """)
                    return (same, k)
                }
            }
            last = (look, grid)
        }
        return (same, items.count)
    }

    @Test(.enabled(if: frames != nil, "needs ../shared/data/face/alex_rom_4.csv"))
    func equalLooksDrawEqualScreensOnEveryScreenWithARealFace() throws {
        let items = try #require(Self.frames)
        var same = 0, steps = 0
        for name in ScreenRegistry.standard.names {
            let r = try Self.check(screen: name, items)
            same += r.same; steps += r.steps
        }
        // The take moves (a range-of-motion recording), yet between movements frames do look the same: the
        // comparison above was made on those.
        #expect(same > steps / 10, "\(same) of \(steps) frames looked the same")
        print("FrameLookTests: \(same) of \(steps) frames of the real take looked the same")
    }

    @Test(.enabled(if: frames != nil, "needs ../shared/data/face/alex_rom_4.csv"))
    func aStillFaceIsDrawnOnlyWhenSomethingOnScreenMoves() throws {
        // One real frame, again and again at 60 frames/s with a tracker's jitter of a few thousandths: after
        // arming and the dwell under the gaze, nothing on a static screen changes.
        let items = try #require(Self.frames)
        guard let still = items.lazy.compactMap({ item -> TrackingFrame? in
            if case .frame(let f, _) = item, f.face { return f } else { return nil }
        }).first else { Issue.record("no frame with a face in the take"); return }
        let held: [DecodedItem] = (0..<480).map { i in
            var f = still
            f.t = Double(i) / 60
            let jitter = Float((i * 7919) % 201 - 100) / 100
            f.blend[.jawOpen] = max(0, f.blend[.jawOpen] + 0.002 * jitter)
            f.blend[.eyeBlinkLeft] = max(0, f.blend[.eyeBlinkLeft] - 0.002 * jitter)
            if let g = f.gaze { f.gaze = GazePoint(x: g.x + 0.0005 * Double(jitter), y: g.y - 0.0005 * Double(jitter)) }
            return .frame(f, nil)
        }
        for name in ["launcher", "notes", "settings", "help", "terminal"] {
            let (same, steps) = try Self.check(screen: name, held)
            #expect(steps == held.count)
            #expect(same > held.count / 2, "\(name): \(same) of \(held.count) frames looked the same")
        }
        // A screen that draws the frames themselves is drawn at each.
        let (same, _) = try Self.check(screen: "calibration", held)
        #expect(same == 0)
    }
}
