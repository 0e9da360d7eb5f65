/// A normalised point on the screen: 0…1 on each axis, origin top-left.
public struct GazePoint: Sendable, Equatable, Hashable {
    public var x: Double
    public var y: Double
    public init(x: Double, y: Double) { self.x = x; self.y = y }
}

/// Eye rotation angles in radians, per eye, as a tracker reports them.
public struct EyeAngles: Sendable, Equatable {
    public var leftYaw: Double, leftPitch: Double, rightYaw: Double, rightPitch: Double
    public init(leftYaw: Double, leftPitch: Double, rightYaw: Double, rightPitch: Double) {
        self.leftYaw = leftYaw; self.leftPitch = leftPitch; self.rightYaw = rightYaw; self.rightPitch = rightPitch
    }
}

/// Head rotation in radians.
public struct HeadPose: Sendable, Equatable {
    public var yaw: Double, pitch: Double, roll: Double
    public init(yaw: Double, pitch: Double, roll: Double) { self.yaw = yaw; self.pitch = pitch; self.roll = roll }
}

/// One face-tracking sample, carrying the source's own timestamp so replay and live runs behave alike.
public struct TrackingFrame: Sendable, Equatable {
    /// Seconds, on the source's clock.
    public var t: Double
    /// False when the tracker has lost the face; the other fields are then meaningless.
    public var face: Bool
    public var blend: BlendShapes
    public var gaze: GazePoint?
    public var eyes: EyeAngles?
    public var head: HeadPose?

    public init(t: Double, face: Bool = true, blend: BlendShapes = BlendShapes(), gaze: GazePoint? = nil,
                eyes: EyeAngles? = nil, head: HeadPose? = nil) {
        self.t = t; self.face = face; self.blend = blend; self.gaze = gaze; self.eyes = eyes; self.head = head
    }

    /// A frame saying the face is not tracked at time `t`.
    public static func noFace(at t: Double) -> TrackingFrame { TrackingFrame(t: t, face: false) }
}
