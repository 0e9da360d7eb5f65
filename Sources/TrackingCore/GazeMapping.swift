/// Maps eye and head angles to a normalised screen point through a linear range per axis.
///
/// Trackers such as Live Link Face send angles, not a point. Each axis maps `from…to` radians onto 0…1
/// (swap the ends to flip an axis); head angles add with their own gain so a user whose eyes do not reach an
/// edge can turn the head instead. Results are clamped to the screen.
public struct GazeMapping: Sendable, Equatable {
    public var yawRange: ClosedRangeD
    public var pitchRange: ClosedRangeD
    public var headYawGain: Double
    public var headPitchGain: Double

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

    /// The frame's own gaze point if it has one, else the point its angles map to, else nil.
    public func point(for frame: TrackingFrame) -> GazePoint? {
        if let g = frame.gaze { return g }
        guard let eyes = frame.eyes else { return nil }
        var yaw = (eyes.leftYaw + eyes.rightYaw) / 2
        var pitch = (eyes.leftPitch + eyes.rightPitch) / 2
        if let head = frame.head {
            yaw += headYawGain * head.yaw
            pitch += headPitchGain * head.pitch
        }
        return GazePoint(x: Self.map(yaw, yawRange), y: Self.map(pitch, pitchRange))
    }

    private static func map(_ v: Double, _ r: ClosedRangeD) -> Double {
        let span = r.to - r.from
        guard span != 0 else { return 0.5 }
        return min(1, max(0, (v - r.from) / span))
    }
}
