import Config
import Localization
import TrackingCore

// Never locked out. A change to anything that decides whether the user's gestures act (the jaw threshold, the
// dwell time, smoothing, the keymap, the head's reach and dead zone, the pursuit pace, the mouth held while
// talking, a pointer or gesture calibration) is tried, not saved: the user keeps it by acting once with it
// within `SettingsTrial.seconds`, else it goes back by itself. What the user last acted with is kept as the
// last known good (`ShellState.knownGood`, and a copy beside the settings file), which the escape puts back
// from any screen: the built-in jaw hold (`EscapeGesture`), the carer's F12, or "restore settings".
// Pure like the rest of the core: the countdown runs on the frames' and ticks' time (`ShellState.now`).

/// What decides whether the user's gestures act, as it stood at one moment.
public struct GestureSetup: Sendable, Equatable {
    /// The settings (the escape and a lapsed trial put back only the fields `actsLike` compares).
    public var settings: ShellSettings
    /// The gesture definitions before the settings' overrides: the config's, with the calibrated thresholds.
    public var gestures: [GestureDefinition]
    /// The pointer calibration in use (nil: none).
    public var calibration: PointerCalibration?
    /// The gesture calibration's thresholds in use (empty: the config's).
    public var thresholds: [GestureThreshold]

    public init(settings: ShellSettings, gestures: [GestureDefinition], calibration: PointerCalibration? = nil,
                thresholds: [GestureThreshold] = []) {
        self.settings = settings; self.gestures = gestures; self.calibration = calibration; self.thresholds = thresholds
    }
}

/// A change being tried: what was in use before it, and since when (the frames' time).
public struct SettingsTrial: Sendable, Equatable {
    /// How long the user has to act with a change before it goes back.
    public static let seconds = 15.0
    /// What comes back if the user does not act in time.
    public var before: GestureSetup
    public var since: Double
    /// The whole seconds left as last drawn, so the countdown is drawn again only when it changes.
    var shownLeft: Int

    init(before: GestureSetup, since: Double) {
        self.before = before; self.since = since
        shownLeft = Int(Self.seconds)
    }

    /// Whole seconds left at `now`, counting up (15 just after the change, 1 in its last second).
    public func secondsLeft(at now: Double) -> Int { max(0, Int((Self.seconds - (now - since)).rounded(.up))) }

    public func expired(at now: Double) -> Bool { now - since >= Self.seconds }
}

extension ShellSettings {
    /// Whether the two decide the same about the user's gestures: the fields a change of which is tried.
    public func actsLike(_ o: ShellSettings) -> Bool {
        tracking == o.tracking && keymap == o.keymap
            && pursuitPace == o.pursuitPace && holdMouthWhileTalking == o.holdMouthWhileTalking
    }

    /// These settings with `o`'s fields that decide about gestures (those `actsLike` compares): the colours,
    /// voice and the rest stay as they are.
    public func withGestureFields(of o: ShellSettings) -> ShellSettings {
        var s = self
        s.tracking = o.tracking; s.keymap = o.keymap
        s.pursuitPace = o.pursuitPace; s.holdMouthWhileTalking = o.holdMouthWhileTalking
        return s
    }
}

extension ShellState {
    /// What decides whether the user's gestures act, as it stands now.
    public var gestureSetup: GestureSetup {
        GestureSetup(settings: settings, gestures: trackingConfig.gestures, calibration: trackingConfig.mapping.calibration,
                     thresholds: tracking.gestureThresholds)
    }

    /// Puts back a setup's gestures, calibrations and the settings fields that decide about gestures.
    mutating func restore(_ g: GestureSetup) {
        trackingConfig.gestures = g.gestures
        tracking.gestureThresholds = g.thresholds
        calibrate(g.calibration)
        apply(settings.withGestureFields(of: g.settings))
    }

    /// How long the banner says what became of a change (seconds of the frames' time).
    public static let outcomeSeconds = 4.0

    /// Says what became of a change on the banner for `outcomeSeconds`, where the eyes were (a notice in the
    /// title bar is taken down by the next gesture, a dwell on any target included). `outcome` is a message
    /// marked with `N_`, translated where it is drawn.
    mutating func tell(_ outcome: String) {
        settingsOutcome = outcome
        settingsOutcomeUntil = now + Self.outcomeSeconds
        revision &+= 1
    }

    /// What the settings banner says, as one line for plain output (nil: no banner).
    public var settingsBanner: String? {
        if trial != nil { return catalog.tr("Keep? Act once with the new setting within 15 s, or it goes back.") }
        if !settingsWarning.isEmpty { return (settingsWarning.map { $0.text(catalog) } + [restoreHint]).joined(separator: " ") }
        return settingsOutcome.map { catalog.tr($0) }
    }

    /// Starts trying a change just made (or carries on trying, its time starting again, when one is tried
    /// already: what comes back is what was there before the first). A change that undid the one tried ends
    /// the trial.
    mutating func tryChange(from before: GestureSetup) -> [Effect] {
        let first = trial?.before ?? before
        revision &+= 1
        guard gestureSetup != first else {
            trial = nil
            return [.saveSettings(settings)]
        }
        trial = SettingsTrial(before: first, since: now)
        return []
    }

    /// The user acted (a gesture that activates, recognised under the settings in use, or a helper's key
    /// other than the restore key): a change being tried is kept and saved, and what is in use becomes the
    /// last known good, written beside the settings when it changed.
    mutating func actedWithSettings() -> [Effect] {
        var out: [Effect] = []
        if let t = trial {
            trial = nil
            revision &+= 1
            out.append(.saveSettings(settings))
            let c = pipelineSettings.mapping.calibration
            if c != t.before.calibration { out.append(.saveCalibration(c, size: size)) }
            if tracking.gestureThresholds != t.before.thresholds { out.append(.saveGestureCalibration(tracking.gestureThresholds)) }
            tell(N_("Kept: you acted with the new setting."))
        }
        if !settingsWarning.isEmpty { settingsWarning = []; revision &+= 1 }
        let now = gestureSetup
        if now != knownGood {
            knownGood = now
            out.append(.saveKnownGood(settings))
        }
        return out
    }

    /// Ends a trial whose time is up: what was in use before the change comes back, and is saved. Takes down
    /// what the banner said of the last outcome once its time is up.
    mutating func stepTrial() -> [Effect] {
        if settingsOutcome != nil, now >= settingsOutcomeUntil { settingsOutcome = nil; revision &+= 1 }
        guard let t = trial else { return [] }
        guard t.expired(at: now) else {
            let left = t.secondsLeft(at: now)
            if left != t.shownLeft { trial?.shownLeft = left; revision &+= 1 }
            return []
        }
        trial = nil
        restore(t.before)
        revision &+= 1
        relayout()
        tell(N_("No action within 15 s: the setting went back."))
        // Nothing was saved while it was tried: the calibration files still hold what comes back.
        return [.settingsChanged(settings), .saveSettings(settings)]
    }

    /// The escape: puts back the last settings the user acted with, from any screen and whatever the
    /// settings in use (a trial ends, its change undone).
    mutating func restoreKnownGood() -> [Effect] {
        let was = gestureSetup
        trial = nil
        settingsWarning = []
        revision &+= 1
        let record = record(self, Action.restoreSettings.rawValue, nil)
        restore(knownGood)
        // The language goes back too (its screens are then drawn in it: the session asks for its catalog).
        if let language = languageBefore, language != settings.language {
            settings.language = language
            languageBefore = nil
        }
        relayout()
        guard gestureSetup != was else {
            tell(N_("Nothing to restore: you last acted with these settings."))
            return [record]
        }
        tell(N_("Restored the last settings you acted with."))
        var out: [Effect] = [record, .settingsChanged(settings), .saveSettings(settings)]
        if knownGood.calibration != was.calibration { out.append(.saveCalibration(knownGood.calibration, size: size)) }
        if knownGood.thresholds != was.thresholds { out.append(.saveGestureCalibration(knownGood.thresholds)) }
        return out
    }
}

// MARK: - At start

/// Why no gesture can activate with these gestures and this keymap (nil: one can), for the banner at start.
public enum ActivationCheck {
    /// The highest value a tracker sends: blend shapes are 0…1 (ARKit's overshoot is clamped).
    static let highest: Float = 1
    /// Deliberate jaw openings of real faces read 0.6–0.93 (shared/data/README.md).
    static let jawReach: Float = 0.93

    /// A sentence in `catalog`'s language saying why nothing can activate, or nil.
    public static func problem(gestures: [GestureDefinition], keymap: Keymap, catalog c: Catalog = .english) -> String? {
        let bound = keymap.global.gestures.filter { $0.value == .activate }.map(\.key).sorted()
        guard !bound.isEmpty else {
            return c.tr("No gesture activates in keymap “{keymap}”: it binds none to activate.", ["keymap": keymap.name])
        }
        var why: [String] = []
        for name in bound {
            guard let d = gestures.first(where: { $0.name == name }), case .threshold(let t) = d.kind else { return nil }
            let how = GestureText.movement(d, c)
            let value = GestureText.number(Double(t.press), c)
            if t.press > highest {
                why.append(c.tr("No gesture activates: “{gesture}” needs {value}, more than a tracker sends (1 at most).",
                                ["gesture": how, "value": value]))
            } else if t.release <= 0 {
                why.append(c.tr("No gesture activates: “{gesture}” must fall below 0 to start again, which it never does.", ["gesture": how]))
            } else if let m = t.maxHold, m < t.hold {
                why.append(c.tr("No gesture activates: “{gesture}” must be held longer than it may last.", ["gesture": how]))
            } else if t.signal.shapes == [.jawOpen], t.press > jawReach {
                why.append(c.tr("The jaw threshold {value} is above what faces reach when they open on purpose (0.6 to 0.93).", ["value": value]))
            } else {
                return nil
            }
        }
        return why.first
    }
}

extension ShellState {
    /// How to put back the last settings the user acted with, as this keymap binds it.
    var restoreHint: String {
        let (gestures, voice) = keymap.bindings(screen: topName)
        let how = gestures.first { $0.1 == .restoreSettings }
            .map { g in self.gestures.first { $0.name == g.0 }.map { GestureText.describe($0, catalog) } ?? g.0 }
        let phrase = voice.first { $0.1 == .restoreSettings }.map { p in keymap.wakePhrase.map { "\($0), \(p.0)" } ?? p.0 }
        switch (how, phrase) {
        case let (how?, phrase?): return catalog.tr("To restore your last good settings: {how} · F12 · say “{phrase}”.", ["how": how, "phrase": phrase])
        case let (how?, nil): return catalog.tr("To restore your last good settings: {how} · F12.", ["how": how])
        case let (nil, phrase?): return catalog.tr("To restore your last good settings: F12 · say “{phrase}”.", ["phrase": phrase])
        case (nil, nil): return catalog.tr("To restore your last good settings: F12.")
        }
    }
}

/// While a change is tried, a banner across the top of the body asks to act with it, with the seconds left;
/// after a start with settings that are wrong, it says what is wrong and how to put back the last good ones;
/// for a few seconds after, what became of a change.
func drawSettingsBanner(_ g: inout CellGrid, _ s: ShellState) {
    let style = Style(fg: .black, bg: .yellow, attrs: .bold)
    if let t = s.trial {
        guard g.height > statusRows + 2 else { return }
        g.fill(Rect(x: 0, y: 1, w: g.width, h: 1), " ", style: style)
        let left = s.catalog.tr("{n} s left", ["n": "\(t.secondsLeft(at: s.now))"]) + " "
        let lw = CellGrid.columns(of: left)
        g.text(CellGrid.truncate(" " + s.catalog.tr("Keep? Act once with the new setting within 15 s, or it goes back."), to: max(0, g.width - lw - 1)),
               x: 0, y: 1, style: style)
        g.text(left, x: g.width - lw, y: 1, style: style)
        return
    }
    guard !s.settingsWarning.isEmpty else {
        guard let outcome = s.settingsOutcome, g.height > statusRows + 2 else { return }
        g.fill(Rect(x: 0, y: 1, w: g.width, h: 1), " ", style: style)
        g.text(CellGrid.truncate(" " + s.catalog.tr(outcome), to: g.width), x: 0, y: 1, style: style)
        return
    }
    var lines = s.settingsWarning.flatMap { Canvas.wrap($0.text(s.catalog), width: g.width - 2) }
    let hint = Canvas.wrap(s.restoreHint, width: g.width - 2)
    // The way out is never cut off: the problems give way to it on a small screen.
    let most = max(hint.count, min(8, (g.height - statusRows - 1) / 2))
    lines = Array(lines.prefix(max(0, most - hint.count))) + hint
    for (i, line) in lines.enumerated() {
        g.fill(Rect(x: 0, y: 1 + i, w: g.width, h: 1), " ", style: style)
        g.text(" " + line, x: 0, y: 1 + i, style: style, maxWidth: g.width)
    }
}
