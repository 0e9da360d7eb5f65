import TrackingCore

/// A scripted user for `handsfree demo`: frames generated from the screens' own hit maps, so the demo
/// aims at whatever the layout is, at any terminal size.
///
/// Pure: it is asked for the next frame with the current state and advances its own clock by 1/fps.
public struct DemoScript: Sendable {
    /// One thing the scripted user does.
    public enum Step: Sendable, Equatable {
        /// Shows a caption saying what happens next.
        case say(String)
        /// Moves the gaze to the centre of a target and rests it there.
        case look(at: String, seconds: Double)
        /// Performs a face gesture: shapes rise to their values, hold, and relax.
        case face([BlendShape: Float], hold: Double)
        /// Does nothing for a while (the person watching reads the screen).
        case wait(Double)
        /// Does nothing while the word list is still loading, for at most this long: on a slow machine the
        /// suggestions would otherwise not be there when the scripted user commits one.
        case waitForWords(max: Double)
    }

    /// Waits for safe start with a still face, opens Notes with gaze + jaw (a blink does nothing), writes a note with the letter keyboard and the
    /// suggestion bar (tongue commits a word), goes back with the right eye, then opens Help and goes home.
    public static let standard: [Step] = {
        let jaw: Step = .face([.jawOpen: 0.85], hold: 0.6)
        let tongue: Step = .face([.tongueOut: 0.8], hold: 0.6)
        let rightEye: Step = .face([.eyeBlinkRight: 0.95], hold: 0.7)
        return [
            // Safe start: no gesture acts before the face has been still for a second.
            .say("Demo: gestures act once the face has been still for a second"), .wait(1.2),
            .say("Demo: the scripted user looks at the Notes tile"), .look(at: "launcher.notes", seconds: 1.2),
            .say("Demo: opening the jaw activates the tile the gaze is on"), jaw, .wait(1.2),
            .say("Demo: a full blink of both eyes does nothing"), .wait(0.6),
            .face([.eyeBlinkLeft: 0.95, .eyeBlinkRight: 0.95], hold: 0.15), .wait(1.0),
            .say("Demo: gaze on New note, jaw: the editor opens"), .look(at: "notes.new", seconds: 1.0), jaw, .wait(1.2),
            .waitForWords(max: 60),
            .say("Demo: gaze + jaw type letters on the keyboard: h"), .look(at: "note-editor.keyboard.key.h", seconds: 1.0), jaw,
            .say("Demo: gaze + jaw type letters on the keyboard: o"), .look(at: "note-editor.keyboard.key.o", seconds: 1.0), jaw,
            .wait(1.2),
            .say("Demo: suggestions follow each letter; tongue commits ★"), .look(at: "note-editor.suggestion.0", seconds: 1.5), tongue,
            .wait(1.5),
            .say("Demo: next word from context; gaze + tongue pick one"),
            .look(at: "note-editor.suggestion.1", seconds: 1.2), tongue, .wait(1.8),
            .say("Demo: the right eye goes back; the note was saved"), .wait(0.6), rightEye,
            .wait(2.0), rightEye, .wait(1.0),
            .say("Demo: looking at Help"), .look(at: "launcher.help", seconds: 1.2),
            .say("Demo: the jaw opens Help, generated from the keymap"), jaw, .wait(3.5),
            .say("Demo: the right eye returns home. The demo ends."), rightEye, .wait(1.5),
        ]
    }()

    public let steps: [Step]
    public let fps: Double
    /// What the scripted user is doing, for the title bar.
    public private(set) var caption = ""
    public private(set) var t: Double = 0
    private var index = 0
    private var stepStart: Double = 0
    private var gaze = GazePoint(x: 0.5, y: 0.5)
    private var from = GazePoint(x: 0.5, y: 0.5)
    private var to: GazePoint?

    public init(steps: [Step] = DemoScript.standard, fps: Double = 60) {
        self.steps = steps; self.fps = fps
    }

    public var isFinished: Bool { index >= steps.count }

    /// The next frame, or nil when the script has ended.
    public mutating func next(_ state: ShellState) -> TrackingFrame? {
        while index < steps.count {
            let elapsed = t - stepStart
            switch steps[index] {
            case .say(let s):
                caption = s
                advance(); continue
            case .wait(let d):
                if elapsed >= d { advance(); continue }
                return frame([:])
            case .waitForWords(let most):
                if elapsed >= most || !state.predictor.isLoading { advance(); continue }
                caption = "Demo: waiting for the word list to load"
                return frame([:])
            case .look(let id, let d):
                if elapsed == 0 {
                    guard let target = state.hitMap.target(id: id) else { caption = "Demo: no target \(id)"; advance(); continue }
                    let c = target.rect.center
                    from = gaze
                    to = GazePoint(x: (Double(c.x) + 0.5) / Double(state.size.width),
                                   y: (Double(c.y) + 0.5) / Double(state.size.height))
                }
                if elapsed >= d { advance(); continue }
                if let to {
                    // Eased travel over the first 0.4 s, then a small steady tremor like a real eye.
                    let k = min(1, elapsed / 0.4), e = k * k * (3 - 2 * k)
                    gaze = GazePoint(x: from.x + (to.x - from.x) * e + 0.002 * sinApprox(t * 9),
                                     y: from.y + (to.y - from.y) * e + 0.002 * sinApprox(t * 7))
                }
                return frame([:])
            case .face(let shapes, let hold):
                let ramp = 0.1, total = hold + 2 * ramp
                if elapsed >= total { advance(); continue }
                let level = elapsed < ramp ? elapsed / ramp : (elapsed > ramp + hold ? (total - elapsed) / ramp : 1)
                return frame(shapes.mapValues { $0 * Float(level) })
            }
        }
        return nil
    }

    private mutating func advance() {
        index += 1
        stepStart = t
    }

    private mutating func frame(_ shapes: [BlendShape: Float]) -> TrackingFrame {
        let f = TrackingFrame(t: t, face: true, blend: BlendShapes(shapes), gaze: gaze)
        t += 1 / fps
        return f
    }

    /// A sine good enough for a tremor, without Foundation.
    private func sinApprox(_ x: Double) -> Double {
        var a = x.truncatingRemainder(dividingBy: 2 * Double.pi)
        if a > Double.pi { a -= 2 * Double.pi }
        if a < -Double.pi { a += 2 * Double.pi }
        // Bhaskara's approximation on -π…π.
        let s = a < 0 ? -1.0 : 1.0, b = abs(a)
        return s * 16 * b * (Double.pi - b) / (5 * Double.pi * Double.pi - 4 * b * (Double.pi - b))
    }
}
