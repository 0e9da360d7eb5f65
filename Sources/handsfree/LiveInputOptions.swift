import ArgumentParser
import FrameFormats
import Transport

/// How a live source is read: its format, and the iFacialMocap handshake.
struct LiveInputOptions: ParsableArguments {
    @Option(help: ArgumentHelp(tr("Live format: auto (recognised per datagram), ndjson, livelink-udp, openseeface, vmc, ifacialmocap.")))
    var format = "auto"
    @Option(name: .customLong("ifacialmocap"),
            help: ArgumentHelp(tr("Send iFacialMocap's start handshake to this phone address (port 49983); listen on an address the phone can reach.")))
    var ifacialmocapPhone: String?

    func frameFormat() throws -> FrameFormat {
        let live: [FrameFormat] = [.auto, .ndjson, .livelinkUDP, .openseeface, .vmc, .ifacialmocap]
        guard let f = FrameFormat(rawValue: format), live.contains(f) else {
            throw ValidationError(tr("unknown live format \"{name}\" (known: {known})", ["name": format, "known": live.map(\.rawValue).joined(separator: ", ")]))
        }
        return f
    }

    /// Binds the listening address and sends the handshake if one was asked for.
    func open(_ listen: String) throws -> LiveSource {
        let source = try LiveSource(ListenAddress(parsing: listen), format: frameFormat())
        if let phone = ifacialmocapPhone {
            try source.send(Array(IFacialMocap.handshake.utf8), to: phone, port: IFacialMocap.defaultPort)
        }
        return source
    }
}
