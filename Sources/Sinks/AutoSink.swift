import Localization
import PtyHost
import TerminalModel

/// The desktop sink the session offers (`--output auto`, the default): Wayland's virtual keyboard and
/// pointer where `$WAYLAND_DISPLAY` names a compositor that has them, XTest where `$DISPLAY` names an X
/// server and no Wayland session does, else the kernel's uinput (which also serves GNOME and KDE on Wayland
/// and the text console).
///
/// The choice is made at the first `check`, `start` or key, not when the shell starts, so a shell that never
/// shows the Desktop screen never connects; one that fails is made again at the next request. XTest is never
/// chosen inside a Wayland session: through Xwayland it would reach only X programs.
public final class AutoSink: TextSink, PointerSink {
    public static let kind = OutputSinkKind(
        scheme: "auto", argument: nil, example: "auto",
        summary: N_("the desktop session's own: wayland where the compositor has the virtual keyboard, x11 in an X session, else uinput")
    ) { _, _ in AutoSink(environment: PtyProcess.currentEnvironment()) }

    private let environment: [String: String]
    private let make: (String) -> (any TextSink)?
    private var chosen: (any TextSink)?

    /// `make` opens a sink by scheme (the known sinks by default), so tests can pass their own display.
    public init(environment: [String: String],
                make: ((String) -> (any TextSink)?)? = nil) {
        self.environment = environment
        self.make = make ?? { scheme in
            OutputSinks.known.first { $0.scheme == scheme && $0.scheme != "auto" }?.make(nil, OutputSetup(command: []))
        }
    }

    public var name: String { chosen?.name ?? "auto" }
    public var traits: SinkTraits { [] }

    /// The schemes to try, in order, for this environment.
    public var candidates: [String] {
        func set(_ k: String) -> Bool { environment[k].map { !$0.isEmpty } ?? false }
        if set("WAYLAND_DISPLAY") { return ["wayland", "uinput"] }
        if set("DISPLAY") { return ["x11", "uinput"] }
        return ["uinput"]
    }

    private func resolved() throws(OutputSinkError) -> any TextSink {
        if let chosen { return chosen }
        var reasons: [UIMessage] = []
        for scheme in candidates {
            guard let sink = make(scheme) else { reasons.append(UIMessage("{sink}: not built into this shell", ["sink": scheme])); continue }
            do throws(OutputSinkError) {
                try sink.check()
                chosen = sink
                return sink
            } catch {
                reasons.append(error.message)
            }
        }
        throw OutputSinkError(UIMessage("no desktop output: {reasons} (choose one with --output {sinks})", ["sinks": OutputSinks.desktopUsage],
                                        reasons: ["reasons": .together(reasons, separator: "; ")]))
    }

    public func check() throws(OutputSinkError) { _ = try resolved() }
    public func start(rows: Int, cols: Int) throws(OutputSinkError) { try resolved().start(rows: rows, cols: cols) }
    public func type(_ text: String) throws(OutputSinkError) { try deliver { s throws(OutputSinkError) in try s.type(text) } }
    public func press(_ key: TerminalKeyPress) throws(OutputSinkError) { try deliver { s throws(OutputSinkError) in try s.press(key) } }
    public func point(_ event: PointerEvent) throws(OutputSinkError) { try deliver { s throws(OutputSinkError) in try s.pointer().point(event) } }

    /// Sends through the chosen sink; one that fails is dropped, so the next request chooses again (the
    /// session may have gone and another come).
    private func deliver(_ send: (any TextSink) throws(OutputSinkError) -> Void) throws(OutputSinkError) {
        let sink = try resolved()
        do throws(OutputSinkError) { try send(sink) } catch {
            chosen = nil
            throw error
        }
    }
}
