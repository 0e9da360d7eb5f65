import Config
import TrackingCore

/// Help for one app, generated from the keymap: the bindings in effect on that screen, and how to work the
/// app's controls with the gestures those bindings name. Opened with the help action from inside an app.
public struct AppHelpScreen: Screen {
    public let name = "help"
    public var title: String { "Help: " + appTitle }
    public var app: String
    public var appTitle: String

    public init(app: String, appTitle: String) { self.app = app; self.appTitle = appTitle }

    /// How to perform an action on `screen` in words ("open the jaw, hold 0.3 s"), or nil if nothing is bound.
    static func how(_ a: Action, _ ctx: ScreenContext, screen: String) -> String? {
        let b = ctx.keymap.bindings(screen: screen)
        if let g = b.gestures.first(where: { $0.1 == a })?.0 { return GestureText.describe(named: g, in: ctx.gestures) }
        if let p = b.voice.first(where: { $0.1 == a })?.0 { return "say \"\(p)\"" }
        return nil
    }

    /// The app's tips, each using the gestures bound in the keymap.
    public static func tips(app: String, _ ctx: ScreenContext) -> [String] {
        let act = how(.activate, ctx, screen: app) ?? "press Enter"
        let scroll = how(.scroll, ctx, screen: app).map { "look at the top or bottom quarter of a list and \($0)" }
            ?? "look at ▲ or ▼ beside a list and \(act)"
        let confirm = how(.confirm, ctx, screen: app).map { "\($0) (the countdown restarts if you stop)" }
            ?? "activate the armed button again"
        let lists = "Scroll: \(scroll)."
        let typing = "Type: look at a key and \(act). ⌫ word deletes the last word."
            + (how(.commitWord, ctx, screen: app).map { " Commit the ★ suggestion: \($0)." } ?? "")
            + (how(.toggleDictation, ctx, screen: app) ?? how(.startDictation, ctx, screen: app)).map { " Dictate: \($0)." }.orEmpty
        let add = how(.addWord, ctx, screen: app), remove = how(.removeWord, ctx, screen: app)
        let words = add.map { a in "Your words: \(a) to add the word before the caret"
            + (remove.map { ", look at a suggestion and \($0) to never see it again" } ?? "") + "." }
        switch app {
        case "notes":
            return ["Open a note or New note: look at it and \(act).", lists]
        case "note-editor":
            return [typing] + [words].compactMap { $0 } + ["Move the caret: look at a place in the text and \(act).",
                    "Delete the note: look at Delete note, \(act), then \(confirm). A helper presses y.",
                    "Every change is saved at once."]
        case "messages":
            return ["Practice chat — nobody receives these messages. The people and their replies are made up, to try typing and sending.",
                    "Open a conversation: look at a person and \(act).", lists]
        case "conversation":
            return ["Practice chat — nobody receives these messages; the replies are made up."] + [typing] + [words].compactMap { $0 } + ["Send: ➤ Send or the ➤ send key.", lists,
                    "Clear the conversation: look at it, \(act), then \(confirm). A helper presses y."]
        case "settings":
            let b = ctx.keymap.bindings(screen: app)
            let gesture = b.gestures.first { $0.1 == .restoreSettings }.map { g in ctx.gestures.first { $0.name == g.0 }.map(GestureText.describe) ?? g.0 }
            let phrase = b.voice.first { $0.1 == .restoreSettings }.map { p in ctx.keymap.wakePhrase.map { "\($0), \(p.0)" } ?? p.0 }
            let restore = switch (gesture, phrase) {
            case let (g?, p?): "Locked out all the same? \(g), press F12 or say \"\(p)\": the last settings you acted with come back."
            case let (g?, nil): "Locked out all the same? \(g) or press F12: the last settings you acted with come back."
            case let (nil, p?): "Locked out all the same? Press F12 or say \"\(p)\": the last settings you acted with come back."
            case (nil, nil): "Locked out all the same? Press F12: the last settings you acted with come back."
            }
            return ["Change section: look at a tab and \(act).",
                    "Sliders: look at − or +, or along the slider towards the value you want, and \(act): each time moves it one step.",
                    "Switches, segments and keymaps: look at one and \(act). Changes apply at once and are saved.",
                    "A change to how your gestures act (jaw, dwell, smoothing, keymap, head, calibrations) is kept only once you act with it within 15 s; else it goes back.",
                    restore]
        case "phrases":
            return ["Say a phrase: look at it and \(act). The ones you use most come first the next time you open the board.",
                    "Change group: look at a tab and \(act). Saved holds yours: in a note or a message say \"save phrase\" (\(how(.savePhrase, ctx, screen: "note-editor") ?? "not bound")).",
                    "Stop: \(how(.stopSpeaking, ctx, screen: app) ?? "look at Stop speaking and \(act)"). The phrases are phrases.txt in your data folder: edit it to change them.",
                    "Remove a phrase: look at ✕ Remove phrases and \(act), pick the phrase, then confirm (a helper: y); ✓ Done removing ends it."]
        case "media":
            let next = how(.next, ctx, screen: app), prev = how(.previous, ctx, screen: app)
            let turn = next.map { n in "Turn the album carousel: \(n) for the next" + (prev.map { ", \($0) for the previous" } ?? "") + "; or ◀ / ▶." }
                ?? "Turn the album carousel: look at ◀ or ▶ and \(act)."
            return ["Practice music — the albums are made up and no sound plays.",
                    turn, "Play a track or the album: look at it and \(act). ▶ Play pauses too.", lists]
        case "terminal":
            let commit = how(.commitWord, ctx, screen: app).map { " Commit the ★ suggestion: \($0)." } ?? ""
            let phrases = ctx.keymap.terminal.voice.sorted { $0.key < $1.key }.map { "\"\($0.key)\" → \($0.value.summary)" }
            let leave = ctx.keymap.terminal.voice.first { $0.value == .leave }.map { " or say \"\($0.key)\"" } ?? ""
            return ["Type into the program: look at a key and \(act). ⏎ Enter runs the line; 123 #+= switches to digits and symbols.\(commit)",
                    "Suggestions: programs where a command begins, the ones you use first; files and folders where the program is (a folder ends in /, so the path goes on); words elsewhere.",
                    "Keys: Esc, Tab, arrows, Home/End, PgUp/PgDn, Ctrl-C/D/Z; Ctrl and Alt hold for the next key only.",
                    "Dictate: look at the program's screen and \(act); what you say is typed.",
                    "Scroll back: look at the top or bottom quarter of the program's screen and \(how(.scroll, ctx, screen: app) ?? "scroll").",
                    "Leave: ◀ Leave\(leave). Back does nothing here, so a stray gesture cannot take you out of an editor.",
                    "At a password prompt no suggestion is shown and nothing you type is learned or logged."]
                + (phrases.isEmpty ? [] : ["Say: " + phrases.joined(separator: " · ")])
        case "desktop":
            let commit = how(.commitWord, ctx, screen: app).map { " Commit the ★ suggestion: \($0)." } ?? ""
            let phrases = ctx.keymap.desktop.voice.sorted { $0.key < $1.key }.map { "\"\($0.key)\" → \($0.value.summary)" }
            let pointing = ctx.keymap.desktop.gestures.sorted { $0.key < $1.key }
                .map { "\(GestureText.describe(named: $0.key, in: ctx.gestures)): \($0.value.summary)" }
            let leave = ctx.keymap.desktop.voice.first { $0.value == .leave }.map { " or say \"\($0.key)\"" } ?? ""
            return ["Keys go to the focused window of your desktop (a browser, mail, chat): keep this window beside it. Look at a key and \(act).\(commit)",
                    "Ctrl, Alt and Super hold for the next key only (Ctrl then s saves; Super alone opens the launcher of many desktops).",
                    "Dictate: look at the typed line and \(act); what you say is typed, \"delete that\" takes it back.",
                    "◎ Pointer mode: the pointer follows your gaze (or your head: Settings › Pointer); \(act) clicks where it was when you began. "
                        + "It holds still while you make a gesture, while your face is lost and while paused. Back (\(how(.back, ctx, screen: app) ?? "back")) stops pointing."
                        + (pointing.isEmpty ? "" : " While pointing: " + pointing.joined(separator: " · ") + "."),
                    "Private: nothing you type is suggested, learned, logged or spoken, for passwords; the title and status line say so.",
                    "♪ Speak (or \"speak that\") says the sentence you are typing aloud; ■ Stop or \"stop\" ends it.",
                    "Leave: ◀ Leave\(leave). Back does nothing while typing, so a stray gesture cannot take the keyboard away."]
                + (phrases.isEmpty ? [] : ["Say: " + phrases.joined(separator: " · ")])
        case "calibration":
            return ["Start: look at ▶ Start and \(act); then look at each dot until it fills, keeping the head still.",
                    "Centre only: one dot in the middle, for a pointer that has drifted.",
                    "Back while the dots show cancels; the calibration in use stays."]
        case "gesture-calibration":
            return ["Start: look at ▶ Start and \(act). Relax and keep a neutral face for 3 seconds, then do each gesture twice when asked, holding it as you would to use it.",
                    "Nothing acts while the steps run, so a gesture cannot press or leave by mistake.",
                    "To stop, keep still: a step that sees no gesture for 6 seconds ends the calibration, and your gestures keep the values they had.",
                    "The new thresholds are used at once and kept for this tracker; ↻ Redo any time."]
        default:
            return []
        }
    }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let b = c.bounds
        var y = b.y + 1
        c.grid.centered("How to use \(appTitle) with keymap \"\(ctx.keymap.name)\"", in: b, y: y, style: Theme.tileLabel)
        y += 2
        let w = b.w - 6, x = b.x + 3
        let limit = b.maxY - 4
        for tip in Self.tips(app: app, ctx) {
            for (k, line) in Canvas.wrap(tip, width: w - 2).enumerated() where y < limit {
                c.text((k == 0 ? "• " : "  ") + line, x: x, y: y, maxWidth: w); y += 1
            }
        }
        y += 1
        if y < limit { c.text("Bindings on this screen", x: x, y: y, style: Theme.tileLabel); y += 1 }
        let bnd = ctx.keymap.bindings(screen: app)
        // Gestures one per line (they need the words); phrases grouped by action in a wrapped paragraph.
        // Wrapped like the tips: a binding cut at the edge ("→ go back t") said half of what it does.
        // A binding is shown whole or not at all; what does not fit is in Home › Help, which pages. Two rows
        // stay for the phrases, so that they are at least begun and said to go on.
        let gestureLimit = bnd.voice.isEmpty ? limit : limit - 2
        for (i, (g, a)) in bnd.gestures.enumerated() where y < gestureLimit {
            let how = GestureText.describe(named: g, in: ctx.gestures)
            let lines = Canvas.wrap("\(how) → \(a.summary)", width: w - 2)
            // The last row is kept for saying that more follow, unless this is the last binding.
            guard y + lines.count <= gestureLimit - (i == bnd.gestures.count - 1 ? 0 : 1) else {
                c.text("… all gestures in Home › Help", x: x, y: y, style: Theme.hint, maxWidth: w); y += 1
                break
            }
            for (k, line) in lines.enumerated() {
                c.text((k == 0 ? "• " : "  ") + line, x: x, y: y, style: Theme.hint, maxWidth: w); y += 1
            }
        }
        var byAction: [(Action, [String])] = []
        for (p, a) in bnd.voice {
            if let k = byAction.firstIndex(where: { $0.0 == a }) { byAction[k].1.append(p) } else { byAction.append((a, [p])) }
        }
        // The action is named only where no phrase already says it ("select" → activate).
        let say = "Say: " + byAction.map { a, ps in
            ps.map { "\"\($0)\"" }.joined(separator: " / ")
                + (ps.contains(a.rawValue.replacingOccurrences(of: "-", with: " ")) ? "" : " → " + a.summary)
        }.joined(separator: " · ")
        var lines = Canvas.wrap(say, width: w)
        let room = max(0, limit - y)
        if lines.count > room, room > 0 {
            // Say that the list goes on rather than cut a phrase off unseen; Help pages through all of them.
            let more = " … all phrases in Home › Help"
            lines = Array(lines.prefix(room))
            var last = String(lines[room - 1].prefix(max(0, w - more.count)))
            if let cut = last.range(of: " · ", options: .backwards) { last = String(last[..<cut.lowerBound]) }
            lines[room - 1] = last + more
        }
        for line in lines where y < limit {
            c.text(line, x: x, y: y, style: Theme.hint, maxWidth: w); y += 1
        }
        c.button("help.close", "Close help", Rect(x: b.x + (b.w - 30) / 2, y: b.maxY - 3, w: 30, h: 3))
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        guard case .action(.activate, let t?, _) = input, t.id == "help.close" else { return .unhandled }
        return Reply(navigation: .back, record: "back")
    }
}

extension Optional where Wrapped == String {
    var orEmpty: String { self ?? "" }
}
