import Config
import Foundation
import Runtime
import Shell
import TrackingCore

/// `bench controls`' typing-bench half: pressing a named button of 16, 24 or 32 pixels by gaze + jaw on the
/// Controls view's list, against aiming at it in pointer mode, by simulated users (`TypingProfile`, the
/// webcam profile by default) whose frames go through the real session, as in `bench typing`.
///
/// On the list the button is a large entry of the shell's own screen, whatever its size on the desktop; in
/// pointer mode the gaze is the desktop's pointer (1280×800), and a click that lands outside the button is
/// tried again. A trial's time runs from the decision to press until the press (the list's
/// `.performControl`, or a click inside the button).
public struct ControlsAimBench {
    public var profile: TypingProfile
    /// Button sizes on the desktop, pixels (square).
    public var sizes = [16, 24, 32]
    /// Presses per size and way.
    public var trials = 20
    public var seed: UInt64 = 1
    /// Tries before a press in pointer mode is given up.
    public var maxTries = 8

    public init(profile: TypingProfile) { self.profile = profile }

    /// One size's figures: seconds per press on the list and in pointer mode, and pointer mode's misses.
    public struct Row: Sendable, Equatable {
        public var size: Int
        public var list: [Double] = []
        public var pointer: [Double] = []
        public var misses = 0
        public var givenUp = 0
        public var wrong = 0
    }

    static let desktop = (width: 1280.0, height: 800.0)
    static let buttons = 12

    public func run(out: BenchReport) throws -> [Row] {
        var rows: [Row] = []
        var rng = PointingBench.Rng(seed: seed)
        for size in sizes {
            var row = Row(size: size)
            var list = try typist(rng: rng, controls: true)
            for _ in 0..<trials {
                let k = Int(list.rng.uniform(0, Double(Self.buttons))) % Self.buttons
                let t0 = list.t
                let id = "desktop.control.\(k)"
                guard list.session.state.hitMap.target(id: id) != nil else { throw BenchError("the list shows no entry \(k + 1)") }
                list.lastPerformedControl = nil
                list.act(id)
                if list.lastPerformedControl?.index != k { row.wrong += 1 }
                row.list.append(list.t - t0)
                list.wait(0.3, \.reading)
            }
            rng = list.rng
            var point = try typist(rng: rng, controls: false)
            for _ in 0..<trials {
                let cx = point.rng.uniform(0.1, 0.9), cy = point.rng.uniform(0.1, 0.9)
                let w = Double(size) / Self.desktop.width, h = Double(size) / Self.desktop.height
                let t0 = point.t
                var hit = false
                for attempt in 0..<maxTries {
                    point.travel(to: GazePoint(x: cx, y: cy), width: w * Double(point.session.state.size.width), attempt == 0 ? \.travel : \.correcting)
                    point.wait(profile.settle, \.settle)
                    guard let at = point.clickInPointerMode() else { continue }
                    if abs(at.x - cx) <= w / 2 && abs(at.y - cy) <= h / 2 { hit = true; break }
                    row.misses += 1
                    point.wait(profile.notice, \.correcting)
                }
                if !hit { row.givenUp += 1 }
                row.pointer.append(point.t - t0)
                point.wait(0.3, \.reading)
            }
            rng = point.rng
            rows.append(row)
            func mean(_ v: [Double]) -> Double { v.isEmpty ? 0 : v.reduce(0, +) / Double(v.count) }
            out(String(format: "press a %2d px button, %@: list %.2f s · pointer mode %.2f s (%d misses, %d given up after %d tries) · list %.1fx faster%@",
                       size, profile.name, mean(row.list), mean(row.pointer), row.misses, row.givenUp, maxTries,
                       mean(row.pointer) / max(mean(row.list), 1e-9), row.wrong > 0 ? " · \(row.wrong) wrong entries pressed" : ""))
        }
        return rows
    }

    /// A simulated user on the Desktop screen, armed, with the Controls view showing twelve buttons or pointer
    /// mode on.
    private func typist(rng: PointingBench.Rng, controls: Bool) throws -> Typist {
        let settings = GestureConfig.defaults()
        let keymap = try Setup.keymap("default", gestures: settings.gestures)
        var state = ShellState(keymap: keymap, gestures: settings.gestures, services: Services())
        _ = state.show(screen: "desktop")
        var typist = Typist(session: Session(state: state, settings: settings), profile: profile, rng: rng,
                            hold: TypingBench.hold(settings))
        typist.arm()
        if controls {
            guard typist.act("desktop.controls") else { throw BenchError("the Controls key did not act") }
            let snapshot = ControlsSnapshot(generation: 1, application: "bench", window: "Buttons", controls: (0..<Self.buttons).map {
                DesktopControl(index: $0, role: .button, roleName: "push button", name: "Button \($0 + 1)")
            })
            _ = typist.session.send(.controlsRead(snapshot))
        } else {
            guard typist.act("desktop.pointer") else { throw BenchError("the Pointer mode key did not act") }
        }
        typist.wait(0.5, \.reading)
        typist.spent = TypingBench.TimeSpent()
        return typist
    }
}

extension Typist {
    /// Opens the jaw in pointer mode until the shell clicks; where the pointer was then (desktop fractions).
    mutating func clickInPointerMode() -> GazePoint? {
        let tc = t
        while closing != nil { frame() }
        spent.gesture += t - tc
        wait(profile.reaction, \.gesture)
        let t0 = t
        var clicked = false
        while !clicked && t < t0 + hold + 3 {
            jaw = Float(min(1, (t - t0) / 0.08)) * 0.8
            let effects = frame()
            clicked = effects.contains { if case .desktop(.point(.click)) = $0 { true } else { false } }
        }
        closing = (t + profile.release, .jaw)
        spent.gesture += t - t0
        guard clicked else { return nil }
        return (session.state.top as? DesktopScreen)?.pointer?.position
    }
}
