import Foundation
import TerminalModel
import TrackingCore

/// How the desktop pointer follows the face in pointer mode.
public enum DesktopPointing: String, Sendable, CaseIterable {
    /// The calibrated gaze is where the pointer goes (0…1 of the pointer's range is the whole desktop).
    case gaze
    /// The head is a joystick: how far it points from the middle sets how fast the pointer moves.
    case head
}

/// The pointer mode's steering: turns each tracking frame into pointer moves, and the dwell into clicks.
///
/// Pure and deterministic: it reads only the frame's own time and values. It sends nothing while the face is
/// lost, while the shell is paused or not yet armed, or while a gesture is being made (the pointer holds still
/// where the gesture began, so opening the jaw does not drag it off the target), and it starts afresh after
/// any of those, so the pointer never jumps for the time it was held.
public struct DesktopPointer: Sendable, Equatable {
    /// Head mode: the speed at full deflection (half the pointer range from the middle), desktop pixels per
    /// second.
    public var speed: Double
    /// Head mode: how far from the middle (of 0.5) counts as no deflection.
    public var deadZone: Double
    /// Head mode: the acceleration curve: speed grows with deflection to this power (1: linear).
    public var curve: Double
    /// Seconds the pointer must rest for a dwell click (nil: no dwell clicking).
    public var dwell: Double?
    /// How far (of the desktop) the pointer may wander and still count as resting.
    public var dwellRadius = 0.02

    /// The last position sent (gaze mode), 0…1.
    public private(set) var position: GazePoint?
    /// Where the pointer rests for the dwell, and since when.
    private var restPoint: GazePoint?
    private var restSince = 0.0
    /// A dwell click fired and the pointer has not moved away since: one rest, one click.
    private var dwellSpent = false
    /// Head mode: the time of the last frame steered, and the pixels not yet sent.
    private var lastT: Double?
    private var carry = GazePoint(x: 0, y: 0)
    /// Head mode: where the pointer is, in pixels moved since pointer mode began (for the dwell).
    private var travelled = GazePoint(x: 0, y: 0)
    public private(set) var mode: DesktopPointing

    public init(mode: DesktopPointing, speed: Double = 600, deadZone: Double = 0.06, curve: Double = 1.6,
                dwell: Double? = nil) {
        self.mode = mode; self.speed = speed; self.deadZone = deadZone; self.curve = curve; self.dwell = dwell
    }

    /// What the frame does to the pointer: moves, and a click when the dwell completes. `held` is true while
    /// the pointer must not move (face lost, paused, not armed, a gesture under way).
    public mutating func follow(_ sample: TrackingSample, held: Bool) -> [PointerEvent] {
        guard !held, sample.face, let g = sample.gaze, g.x.isFinite, g.y.isFinite else {
            // Steering starts afresh: no catching up on the time held, no dwell across it.
            lastT = nil
            carry = GazePoint(x: 0, y: 0)
            restPoint = nil
            return []
        }
        var out: [PointerEvent] = []
        let here: GazePoint
        switch mode {
        case .gaze:
            let p = GazePoint(x: min(1, max(0, g.x)), y: min(1, max(0, g.y)))
            // Steps under a pixel of a 4K screen are noise: not sending them keeps the event stream quiet.
            if position.map({ abs($0.x - p.x) > 1.0 / 4096 || abs($0.y - p.y) > 1.0 / 4096 }) ?? true {
                out.append(.moveTo(x: p.x, y: p.y))
                position = p
            }
            here = p
        case .head:
            defer { lastT = sample.t }
            guard let t0 = lastT, sample.t > t0 else { return [] }
            // A frame after a long gap (a stalled tracker) moves for a frame's time at most.
            let dt = min(sample.t - t0, 0.1)
            let vx = velocity(g.x - 0.5), vy = velocity(g.y - 0.5)
            carry.x += vx * dt
            carry.y += vy * dt
            let dx = carry.x.rounded(.towardZero), dy = carry.y.rounded(.towardZero)
            if dx != 0 || dy != 0 {
                out.append(.moveBy(dx: dx, dy: dy))
                carry.x -= dx; carry.y -= dy
                travelled.x += dx; travelled.y += dy
            }
            // The dwell radius in pixels of a 1920-wide desktop.
            here = GazePoint(x: travelled.x / 1920, y: travelled.y / 1920)
        }
        if let dwell { out += dwellStep(here, at: sample.t, dwell: dwell) }
        return out
    }

    /// Pixels per second for a deflection `d` from the middle (−0.5…0.5).
    func velocity(_ d: Double) -> Double {
        let reach = 0.5 - deadZone
        guard abs(d) > deadZone, reach > 0 else { return 0 }
        let x = min(1, (abs(d) - deadZone) / reach)
        return (d < 0 ? -1 : 1) * speed * pow(x, curve)
    }

    private mutating func dwellStep(_ p: GazePoint, at t: Double, dwell: Double) -> [PointerEvent] {
        guard let r = restPoint, abs(r.x - p.x) <= dwellRadius, abs(r.y - p.y) <= dwellRadius else {
            restPoint = p
            restSince = t
            dwellSpent = false
            return []
        }
        guard !dwellSpent, t - restSince >= dwell else { return [] }
        dwellSpent = true
        return [.click(.left, count: 1)]
    }

    /// How far the dwell has filled, 0…1 (0 when not dwelling or spent), for the screen to show.
    public func dwellProgress(at t: Double) -> Double {
        guard let dwell, dwell > 0, restPoint != nil, !dwellSpent else { return 0 }
        return min(1, max(0, (t - restSince) / dwell))
    }
}

