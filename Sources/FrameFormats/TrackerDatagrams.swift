import TrackingCore

/// Frames as the other trackers would send them, one datagram per frame: for `bench pipeline` and for tests
/// that compare readers on realistic datagrams.
public enum TrackerDatagrams {
    /// An OpenSeeFace face with the eyes and the jaw of `f`.
    public static func openSeeFace(_ f: TrackingFrame) -> [UInt8] {
        OpenSeeFace.encode(t: 1_700_000_000 + f.t, rightOpen: 1 - f.blend[.eyeBlinkRight],
                           leftOpen: 1 - f.blend[.eyeBlinkLeft], euler: (180, 0, 90),
                           features: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, f.blend[.jawOpen], 0])
    }

    /// A VMC bundle: all 52 values by their ARKit names, then Apply.
    public static func vmc(_ f: TrackingFrame) -> [UInt8] {
        OSC.bundle(BlendShape.allCases.map { OSC.encode("/VMC/Ext/Blend/Val", [.string($0.name), .float(Double(f.blend[$0]))]) }
                   + [OSC.encode("/VMC/Ext/Blend/Apply", [])])
    }

    /// An iFacialMocap line: all 52 values 0–100 with `_L`/`_R` names, then the head.
    public static func iFacialMocap(_ f: TrackingFrame) -> [UInt8] {
        Array((BlendShape.allCases.map { s -> String in
            var n = s.name
            if n.hasSuffix("Left") { n = n.dropLast(4) + "_L" } else if n.hasSuffix("Right") { n = n.dropLast(5) + "_R" }
            // A recording may hold any value; the app sends whole percentages 0–100.
            let v = f.blend[s]
            return "\(n)-\(v.isFinite ? Int((min(1, max(0, v)) * 100).rounded()) : 0)"
        }.joined(separator: "|") + "|=head#0.0,0.0,0.0,0.0,0.0,0.0|").utf8)
    }

    /// Each format's encoder, named as `bench pipeline` prints it, so a caller builds only the datagrams it uses.
    public static let encoders: [(name: String, encode: @Sendable (TrackingFrame) -> [UInt8])] =
        [("openseeface", openSeeFace), ("vmc bundles", vmc), ("ifacialmocap", iFacialMocap)]
}
