/// Maps eye and head angles to a normalised screen point through a linear range per axis.
///
/// Trackers such as Live Link Face send angles, not a point. Each axis maps `from…to` radians onto 0…1
/// (swap the ends to flip an axis); head angles add with their own gain so a user whose eyes do not reach an
/// edge can turn the head instead. Webcam trackers (MediaPipe, OpenSeeFace) send only the head's angles: the
/// head then points, through its own ranges, around a centre the user can reset, with a dead zone so a
/// still head holds the pointer still.
///
/// The point it gives (`point(for:)`) is raw: it may lie up to `reach` past the screen's edges, as a tracker's
/// own gaze point may, so a calibration fitted to it sees a tracker that overshoots for what it is. The pointer
/// is clamped to the screen after the calibration (`onScreen`).
public struct GazeMapping: Sendable, Equatable {
    public var yawRange: ClosedRangeD
    public var pitchRange: ClosedRangeD
    public var headYawGain: Double
    public var headPitchGain: Double
    /// Head-only pointing: the turn (radians from the centre) that reaches the left and right edges, and the
    /// nod that reaches the top and bottom. The defaults follow MediaPipe's signs (yaw > 0 turns to the
    /// user's left, pitch > 0 is chin down) and a seated user's comfortable range.
    public var headYawRange = ClosedRangeD(0.2, -0.2)
    public var headPitchRange = ClosedRangeD(-0.12, 0.12)
    /// Head turns smaller than this (radians, per axis) from the centre count as none.
    public var headDeadZone = 0.01
    /// The head pose taken as looking at the middle of the screen (`recentre` sets it to the pose now).
    public var headCentre = HeadPose(yaw: 0, pitch: 0, roll: 0)
    /// The user's calibration for this source, applied to the point after mapping; nil: none.
    public var calibration: PointerCalibration?

    /// A closed interval whose ends may be given in either order.
    public struct ClosedRangeD: Sendable, Equatable {
        public var from: Double, to: Double
        public init(_ from: Double, _ to: Double) { self.from = from; self.to = to }
    }

    public init(yawRange: ClosedRangeD = .init(-0.35, 0.35), pitchRange: ClosedRangeD = .init(0.25, -0.25),
                headYawGain: Double = 1.0, headPitchGain: Double = 1.0) {
        self.yawRange = yawRange; self.pitchRange = pitchRange
        self.headYawGain = headYawGain; self.headPitchGain = headPitchGain
    }

    /// How far past the screen's edges (a fraction of it) a raw point may lie: the pipeline's range tolerance.
    public static let reach = 0.25

    /// The pointer on the screen for a raw point: corrected by the calibration, then clamped to the screen.
    public func onScreen(_ raw: GazePoint) -> GazePoint {
        if let calibration { return calibration.apply(raw) }
        return GazePoint(x: min(1, max(0, raw.x)), y: min(1, max(0, raw.y)))
    }

    /// The frame's own gaze point if it has one, else the point its angles map to, else nil; raw, not clamped
    /// to the screen.
    public func point(for frame: TrackingFrame) -> GazePoint? {
        if let g = frame.gaze { return g }
        guard let eyes = frame.eyes else {
            guard let head = frame.head else { return nil }
            return headPoint(head)
        }
        var yaw = (eyes.leftYaw + eyes.rightYaw) / 2
        var pitch = (eyes.leftPitch + eyes.rightPitch) / 2
        if let head = frame.head {
            yaw += headYawGain * head.yaw
            pitch += headPitchGain * head.pitch
        }
        return GazePoint(x: Self.map(yaw, yawRange), y: Self.map(pitch, pitchRange))
    }

    /// Where the head points: its turn from the centre, less the dead zone, through the head ranges (whose
    /// middle is the centre).
    public func headPoint(_ head: HeadPose) -> GazePoint {
        func off(_ v: Double, _ c: Double) -> Double {
            let d = v - c
            return abs(d) <= headDeadZone ? 0 : d - (d > 0 ? headDeadZone : -headDeadZone)
        }
        let yaw = off(head.yaw, headCentre.yaw), pitch = off(head.pitch, headCentre.pitch)
        let mid = { (r: ClosedRangeD) in (r.from + r.to) / 2 }
        return GazePoint(x: Self.map(mid(headYawRange) + yaw, headYawRange),
                         y: Self.map(mid(headPitchRange) + pitch, headPitchRange))
    }

    /// Where `v` falls on the range, 0 at one end and 1 at the other, at most `reach` beyond either.
    private static func map(_ v: Double, _ r: ClosedRangeD) -> Double {
        let span = r.to - r.from
        guard span != 0 else { return 0.5 }
        return min(1 + reach, max(-reach, (v - r.from) / span))
    }
}
