import Config
import Shell
import TrackingCore

/// Test helpers: keymaps from the repository and a state at 100×30.
enum Fixture {
    static let root: String = {
        // #filePath is …/Tests/ShellTests/Support.swift; the package root is three levels up.
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    static func keymap(_ name: String) -> Keymap {
        let path = root + "/keymaps/\(name).toml"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8),
              let km = try? Keymap.parse(text, file: path, knownGestures: GestureDefaults.definitions.map(\.name),
                                         knownScreens: ScreenRegistry.standard.names) else {
            fatalError("cannot load \(path)")
        }
        return km
    }

    static func state(_ keymap: String = "default", size: Size = Size(width: 100, height: 30)) -> ShellState {
        ShellState(keymap: Fixture.keymap(keymap), size: size)
    }

    /// The normalised gaze point at the centre of a target.
    static func gaze(at id: String, in s: ShellState) -> GazePoint {
        guard let t = s.hitMap.target(id: id) else { fatalError("no target \(id) on \(s.top.name)") }
        let c = t.rect.center
        return GazePoint(x: (Double(c.x) + 0.5) / Double(s.size.width), y: (Double(c.y) + 0.5) / Double(s.size.height))
    }

    /// A state whose tracker has shown a still face for a second (before time 0), so gestures act.
    static func armedState(_ keymap: String = "default") -> ShellState {
        var s = state(keymap)
        for k in 0...60 { _ = reduce(&s, .frame(TrackingSample(t: -1.5 + Double(k) / 60))) }
        return s
    }

    static func gesture(_ name: String, at t: Double, gaze: GazePoint?) -> ShellEvent {
        .gesture(GestureEvent(name: name, t: t, onset: t - 0.3, gaze: gaze))
    }
}

extension Array where Element == Effect {
    /// The records of performed actions.
    var records: [ActionRecord] { compactMap { if case .performed(let r) = $0 { return r } else { return nil } } }
}
