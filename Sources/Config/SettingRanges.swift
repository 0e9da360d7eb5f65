/// The allowed range of a setting that more than one file reads or clamps, written once: the gesture config's
/// parser, the settings file's parser and the value handed to the pipeline all take it from here (issue 48: one
/// range per setting).
public enum SettingRanges {
    /// How long a look must rest on a target to activate it, in milliseconds: `dwell_ms` in a gesture config's
    /// `[gesture.NAME]` table and in `settings.toml`.
    public static let dwellMilliseconds: ClosedRange<Double> = 200...60_000

    /// `dwellMilliseconds` in seconds, as the pipeline and the settings hold a dwell time.
    public static var dwellSeconds: ClosedRange<Double> {
        dwellMilliseconds.lowerBound / 1000...dwellMilliseconds.upperBound / 1000
    }
}
