import TrackingCore

/// The escape from settings that stop the user's gestures acting: the jaw held open for 3 s, read with the
/// built-in thresholds whatever the settings, calibration or config say. Every shipped keymap binds it to
/// `restore-settings` (with the phrase "restore settings" and the carer's F12).
///
/// Why the jaw, held 3 s at 0.5 (facts from real faces, `shared/data/README.md` and the recordings there):
/// - every tracker the shell reads sends the jaw (ARKit, MediaPipe, OpenSeeFace's mouth), while MediaPipe reads
///   a closed eye at only 0.35–0.40 and looking down raises both eyes to 0.5–0.65, so a long eye closure would
///   either be missed or be made by reading the keyboard at the bottom of the screen;
/// - deliberate openings read 0.6–0.93, so 0.5 is reached by a user whose jaw threshold was set out of reach;
/// - talking crosses 0.5 for at most 0.6–0.8 s (the talking take `S07-001.csv`: 0.73 s at most), and the
///   longest opening of a range-of-motion take (`alex_rom_4.csv`) lasts 2.83 s: 3 s is longer than both.
/// A yawn may still make it; it only puts back the last settings the user acted with, which are those in use
/// unless a change is being tried.
///
/// Not in any config file, so a config written before it (or one that leaves it out) still loads the shipped
/// keymaps, and no file, `--set`, jaw setting or gesture calibration can change it.
public enum EscapeGesture {
    /// Its name, as keymaps bind it.
    public static let name = "restore"
    /// How long the jaw is held.
    public static let hold = 3.0

    public static let definition = GestureDefinition(
        name: name,
        kind: .threshold(ThresholdSpec(signal: ShapeSignal([.jawOpen]), press: 0.5, release: 0.3, hold: hold, refractory: 1)))
}
