import FrameFormats
import Foundation
import Localization
import Shell
import SystemIO
import Transport
import UserFiles

/// The source a calibration is saved for: `run --source`, else the tracker's, else `default`. Shared by
/// reference between the runtime, which changes it when setup starts another tracker, and the closures that
/// save calibrations.
public final class CalibrationKey: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String
    public init(_ name: String) { value = name }
    public var name: String {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// Listening to a tracker setup chose, the same for `run` (from `tracker.toml`) and for setup itself.
public enum TrackerLaunch {
    /// Binds the tracker's address and, for iFacialMocap, asks the phone for frames; `clock` times arrivals.
    public static func open(_ choice: TrackerChoice, clock: any ShellClock = LiveClock()) throws(TransportError) -> LiveSource {
        guard let (host, port) = choice.address else { throw TransportError("no tracker to listen to") }
        let source = try LiveSource(ListenAddress(proto: .udp, host: host, port: port), format: .auto, clock: clock)
        if choice.kind == .iFacialMocap, let phone = choice.phone {
            try source.send(Array(IFacialMocap.handshake.utf8), to: phone, port: IFacialMocap.defaultPort)
        }
        return source
    }

    /// The webcam bridge for a webcam choice sending to `source`, or why it cannot start (no Python, no model).
    /// The bridge is made but not started.
    public static func webcam(_ choice: TrackerChoice, sendingTo source: LiveSource, paths: UserPaths) -> (WebcamBridge?, UIMessage?) {
        guard choice.kind == .webcam else { return (nil, nil) }
        let listen = "udp://127.0.0.1:\(source.address.port)"
        let python = PythonEnv.python()
        let model = FaceModel.find(paths: paths)
        if let missing = WebcamBridge.missing(python: python, model: model) { return (nil, missing) }
        guard let python, let model else { return (nil, nil) }
        return (WebcamBridge(.init(python: python, script: PythonEnv.script("webcam_bridge.py"), model: model,
                                   device: choice.device, send: listen)), nil)
    }
}
