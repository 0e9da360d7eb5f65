import Controls
import Shell

/// What the controls thread read and did, for the loop (the thread and the AT-SPI client are the Controls
/// module's; only the source, which speaks the loop's events, is the loop's).
public struct ControlsSource: EventSource {
    public let controls: LiveControls
    public init(_ controls: LiveControls) { self.controls = controls }
    public var descriptors: [Int32] { controls.descriptors }
    public mutating func events(_ wake: Wakeup) -> [LoopEvent] {
        controls.drain().map { .shell($0) }
    }
}
