import Localization
import Config
import TrackingCore

/// Help for one app, generated from the keymap: the bindings in effect on that screen, and how to work the
/// app's controls with the gestures those bindings name. Opened with the help action from inside an app.
public struct AppHelpScreen: Screen {
    public let name = "help"
    public var title: String { N_("Help") }
    public var app: String
    public var appTitle: String

    public init(app: String, appTitle: String) { self.app = app; self.appTitle = appTitle }

    /// How to perform an action on `screen` in words ("open the jaw, hold 0.3 s"), or nil if nothing is bound.
    static func how(_ a: Action, _ ctx: ScreenContext, screen: String) -> String? {
        let b = ctx.keymap.bindings(screen: screen)
        if let g = b.gestures.first(where: { $0.1 == a })?.0 {
            return GestureText.describe(named: g, in: ctx.gestures, ctx.catalog, letterKeys: letterKeys(screen, ctx))
        }
        if let p = b.voice.first(where: { $0.1 == a })?.0 { return ctx.tr("say \"{phrase}\"", ["phrase": p]) }
        return nil
    }

    /// Whether `screen` has letter keys where the gestures' shorter hold applies: help elsewhere leaves it out.
    static func letterKeys(_ screen: String, _ ctx: ScreenContext) -> Bool {
        ctx.screens.make(screen)?.hasUndoableKeys ?? false
    }

    /// The app's tips, each using the gestures bound in the keymap.
    public static func tips(app: String, _ ctx: ScreenContext) -> [String] {
        let act = how(.activate, ctx, screen: app) ?? ctx.tr("press Enter")
        let scroll = how(.scroll, ctx, screen: app).map { ctx.tr("Scroll: look at the top or bottom quarter of a list and {how}.", ["how": $0]) }
            ?? ctx.tr("Scroll: look at ▲ or ▼ beside a list and {how}.", ["how": act])
        let confirm = how(.confirm, ctx, screen: app).map { ctx.tr("{how} (the countdown restarts if you stop)", ["how": $0]) }
            ?? ctx.tr("activate the armed button again")
        let lists = scroll
        var typing = [ctx.tr("Type: look at a key and {how}. ⌫ word deletes the last word.", ["how": act])]
        if let commit = how(.commitWord, ctx, screen: app) { typing.append(ctx.tr("Commit the ★ suggestion: {how}.", ["how": commit])) }
        if let dictate = how(.toggleDictation, ctx, screen: app) ?? how(.startDictation, ctx, screen: app) {
            typing.append(ctx.tr("Dictate: {how}.", ["how": dictate]))
        }
        let typed = typing.joined(separator: " ")
        let add = how(.addWord, ctx, screen: app), remove = how(.removeWord, ctx, screen: app)
        let words = add.map { a in
            remove.map { ctx.tr("Your words: {add} to add the word before the caret, look at a suggestion and {remove} to never see it again.",
                                ["add": a, "remove": $0]) }
                ?? ctx.tr("Your words: {add} to add the word before the caret.", ["add": a])
        }
        switch app {
        case "notes":
            return [ctx.tr("Open a note or New note: look at it and {how}.", ["how": act]), lists]
        case "note-editor":
            return [typed] + [words].compactMap { $0 } + [ctx.tr("Move the caret: look at a place in the text and {how}.", ["how": act]),
                    ctx.tr("Delete the note: look at Delete note, {how}, then {confirm}. A helper presses y.", ["how": act, "confirm": confirm]),
                    ctx.tr("Every change is saved at once.")]
        case "messages":
            return [ctx.tr("Practice chat — nobody receives these messages. The people and their replies are made up, to try typing and sending."),
                    ctx.tr("Open a conversation: look at a person and {how}.", ["how": act]), lists]
        case "conversation":
            return [ctx.tr("Practice chat — nobody receives these messages; the replies are made up.")] + [typed] + [words].compactMap { $0 }
                + [ctx.tr("Send: ➤ Send or the ➤ send key."), lists,
                   ctx.tr("Clear the conversation: look at it, {how}, then {confirm}. A helper presses y.", ["how": act, "confirm": confirm])]
        case "settings":
            let b = ctx.keymap.bindings(screen: app)
            let gesture = b.gestures.first { $0.1 == .restoreSettings }.map { g in ctx.gestures.first { $0.name == g.0 }.map { GestureText.describe($0, ctx.catalog, letterKeys: false) } ?? g.0 }
            let phrase = b.voice.first { $0.1 == .restoreSettings }.map { p in ctx.keymap.wakePhrase.map { "\($0), \(p.0)" } ?? p.0 }
            let restore = switch (gesture, phrase) {
            case let (g?, p?): ctx.tr("Locked out all the same? {how}, press F12 or say \"{phrase}\": the last settings you acted with come back.", ["how": g, "phrase": p])
            case let (g?, nil): ctx.tr("Locked out all the same? {how} or press F12: the last settings you acted with come back.", ["how": g])
            case let (nil, p?): ctx.tr("Locked out all the same? Press F12 or say \"{phrase}\": the last settings you acted with come back.", ["phrase": p])
            case (nil, nil): ctx.tr("Locked out all the same? Press F12: the last settings you acted with come back.")
            }
            return [ctx.tr("Change section: look at a tab and {how}.", ["how": act]),
                    ctx.tr("Sliders: look at − or +, or along the slider towards the value you want, and {how}: each time moves it one step.", ["how": act]),
                    ctx.tr("Switches, segments and keymaps: look at one and {how}. Changes apply at once and are saved.", ["how": act]),
                    ctx.tr("A change to how your gestures act (jaw, dwell, smoothing, keymap, head, calibrations) is kept only once you act with it within 15 s; else it goes back."),
                    ctx.tr("Language: each is named in its own language, so English is always there to go back to."),
                    restore]
        case "phrases":
            return [ctx.tr("Say a phrase: look at it and {how}. The ones you use most come first the next time you open the board.", ["how": act]),
                    ctx.tr("Change group: look at a tab and {how}. Saved holds yours: in a note or a message say \"save phrase\" ({save}).",
                           ["how": act, "save": how(.savePhrase, ctx, screen: "note-editor") ?? ctx.tr("not bound")]),
                    ctx.tr("Stop: {how}. The phrases are phrases.txt in your data folder: edit it to change them.",
                           ["how": how(.stopSpeaking, ctx, screen: app) ?? ctx.tr("look at Stop speaking and {how}", ["how": act])]),
                    ctx.tr("Remove a phrase: look at ✕ Remove phrases and {how}, pick the phrase, then confirm (a helper: y); ✓ Done removing ends it.", ["how": act])]
        case "media":
            let next = how(.next, ctx, screen: app), prev = how(.previous, ctx, screen: app)
            let turn = next.map { n in
                prev.map { ctx.tr("Turn the album carousel: {next} for the next, {previous} for the previous; or ◀ / ▶.", ["next": n, "previous": $0]) }
                    ?? ctx.tr("Turn the album carousel: {next} for the next; or ◀ / ▶.", ["next": n])
            } ?? ctx.tr("Turn the album carousel: look at ◀ or ▶ and {how}.", ["how": act])
            return [ctx.tr("Practice music — the albums are made up and no sound plays."),
                    turn, ctx.tr("Play a track or the album: look at it and {how}. ▶ Play pauses too.", ["how": act]), lists]
        case "terminal":
            let commit = how(.commitWord, ctx, screen: app).map { " " + ctx.tr("Commit the ★ suggestion: {how}.", ["how": $0]) } ?? ""
            let phrases = ctx.keymap.terminal.voice.sorted { $0.key < $1.key }.map { "\"\($0.key)\" → \($0.value.summary(in: ctx.catalog))" }
            let leave = ctx.keymap.terminal.voice.first { $0.value == .leave }.map {
                ctx.tr("Leave: ◀ Leave or say \"{phrase}\". Back does nothing here, so a stray gesture cannot take you out of an editor.", ["phrase": $0.key])
            } ?? ctx.tr("Leave: ◀ Leave. Back does nothing here, so a stray gesture cannot take you out of an editor.")
            return [ctx.tr("Type into the program: look at a key and {how}. ⏎ Enter runs the line; 123 #+= switches to digits and symbols.", ["how": act]) + commit,
                    ctx.tr("Suggestions: programs where a command begins, the ones you use first; files and folders where the program is (a folder ends in /, so the path goes on); words elsewhere."),
                    ctx.tr("Keys: Esc, Tab, arrows, Home/End, PgUp/PgDn, Ctrl-C/D/Z; Ctrl and Alt hold for the next key only."),
                    ctx.tr("Dictate: look at the program's screen and {how}; what you say is typed.", ["how": act]),
                    ctx.tr("Scroll back: look at the top or bottom quarter of the program's screen and {how}.", ["how": how(.scroll, ctx, screen: app) ?? ctx.tr("scroll")]),
                    leave,
                    ctx.tr("At a password prompt no suggestion is shown and nothing you type is learned or logged.")]
                + (phrases.isEmpty ? [] : [ctx.tr("Say: {phrases}", ["phrases": phrases.joined(separator: " · ")])])
        case "desktop":
            let commit = how(.commitWord, ctx, screen: app).map { " " + ctx.tr("Commit the ★ suggestion: {how}.", ["how": $0]) } ?? ""
            let phrases = ctx.keymap.desktop.voice.sorted { $0.key < $1.key }.map { "\"\($0.key)\" → \($0.value.summary(in: ctx.catalog))" }
            let pointing = ctx.keymap.desktop.gestures.sorted { $0.key < $1.key }
                .map { "\(GestureText.describe(named: $0.key, in: ctx.gestures, ctx.catalog, letterKeys: false)): \($0.value.summary(in: ctx.catalog))" }
            let leave = ctx.keymap.desktop.voice.first { $0.value == .leave }.map {
                ctx.tr("Leave: ◀ Leave or say \"{phrase}\". Back does nothing while typing, so a stray gesture cannot take the keyboard away.", ["phrase": $0.key])
            } ?? ctx.tr("Leave: ◀ Leave. Back does nothing while typing, so a stray gesture cannot take the keyboard away.")
            let pointer = ctx.tr("◎ Pointer mode: the pointer follows your gaze (or your head: Settings › Pointer); {how} clicks where it was when you began. It holds still while you make a gesture, while your face is lost and while paused. Back ({back}) stops pointing.",
                                 ["how": act, "back": how(.back, ctx, screen: app) ?? ctx.tr("back")])
                + (pointing.isEmpty ? "" : " " + ctx.tr("While pointing: {bindings}.", ["bindings": pointing.joined(separator: " · ")]))
            return [ctx.tr("Keys go to the focused window of your desktop (a browser, mail, chat): keep this window beside it. Look at a key and {how}.", ["how": act]) + commit,
                    ctx.tr("Ctrl, Alt and Super hold for the next key only (Ctrl then s saves; Super alone opens the launcher of many desktops)."),
                    ctx.tr("Dictate: look at the typed line and {how}; what you say is typed, \"delete that\" takes it back.", ["how": act]),
                    pointer,
                    ctx.tr("Private: nothing you type is suggested, learned, logged or spoken, for passwords; the title and status line say so."),
                    ctx.tr("♪ Speak (or \"speak that\") says the sentence you are typing aloud; ■ Stop or \"stop\" ends it."),
                    leave]
                + (phrases.isEmpty ? [] : [ctx.tr("Say: {phrases}", ["phrases": phrases.joined(separator: " · ")])])
        case "calibration":
            return [ctx.tr("Start: look at ▶ Start and {how}; then look at each dot until it fills, keeping the head still.", ["how": act]),
                    ctx.tr("Centre only: one dot in the middle, for a pointer that has drifted."),
                    ctx.tr("Back while the dots show cancels; the calibration in use stays.")]
        case "setup":
            return [ctx.tr("One step at a time: the tracker, its parts, the microphone and speaker, a gesture check, the pointer. ◀ Back and Next ▶ move between steps; nothing is lost by going back."),
                    ctx.tr("A helper: the arrow keys move, Enter presses, Esc goes back a step; letters type into the step's one field (a phone's address, a model file's path)."),
                    ctx.tr("Once the tracker sends frames, look at a button and {how}.", ["how": act]),
                    ctx.tr("Everything can be changed later: run handsfree setup again.")]
        case "gesture-calibration":
            return [ctx.tr("Start: look at ▶ Start and {how}. Relax and keep a neutral face for 3 seconds, then do each gesture twice when asked, holding it as you would to use it.", ["how": act]),
                    ctx.tr("Nothing acts while the steps run, so a gesture cannot press or leave by mistake."),
                    ctx.tr("To stop, keep still: a step that sees no gesture for 6 seconds ends the calibration, and your gestures keep the values they had."),
                    ctx.tr("The new thresholds are used at once and kept for this tracker; ↻ Redo any time.")]
        default:
            return []
        }
    }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let b = c.bounds
        var y = b.y + 1
        c.grid.centered(ctx.tr("How to use {app} with keymap \"{keymap}\"", ["app": ctx.tr(appTitle), "keymap": ctx.keymap.name]), in: b, y: y, style: Theme.tileLabel)
        y += 2
        let w = b.w - 6, x = b.x + 3
        let limit = b.maxY - 4
        for tip in Self.tips(app: app, ctx) {
            for (k, line) in Canvas.wrap(tip, width: w - 2).enumerated() where y < limit {
                c.text((k == 0 ? "• " : "  ") + line, x: x, y: y, maxWidth: w); y += 1
            }
        }
        y += 1
        if y < limit { c.text(ctx.tr("Bindings on this screen"), x: x, y: y, style: Theme.tileLabel); y += 1 }
        let bnd = ctx.keymap.bindings(screen: app)
        // Gestures one per line (they need the words); phrases grouped by action in a wrapped paragraph.
        // Wrapped like the tips: a binding cut at the edge ("→ go back t") said half of what it does.
        // A binding is shown whole or not at all; what does not fit is in Home › Help, which pages. Two rows
        // stay for the phrases, so that they are at least begun and said to go on.
        let gestureLimit = bnd.voice.isEmpty ? limit : limit - 2
        for (i, (g, a)) in bnd.gestures.enumerated() where y < gestureLimit {
            let how = GestureText.describe(named: g, in: ctx.gestures, ctx.catalog, letterKeys: Self.letterKeys(app, ctx))
            let lines = Canvas.wrap("\(how) → \(ctx.tr(a.summary))", width: w - 2)
            // The last row is kept for saying that more follow, unless this is the last binding.
            guard y + lines.count <= gestureLimit - (i == bnd.gestures.count - 1 ? 0 : 1) else {
                c.text(ctx.tr("… all gestures in Home › Help"), x: x, y: y, style: Theme.hint, maxWidth: w); y += 1
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
        let say = ctx.tr("Say: {phrases}", ["phrases": byAction.map { a, ps in
            ps.map { "\"\($0)\"" }.joined(separator: " / ")
                + (ps.contains(a.rawValue.replacingOccurrences(of: "-", with: " ")) ? "" : " → " + ctx.tr(a.summary))
        }.joined(separator: " · ")])
        var lines = Canvas.wrap(say, width: w)
        let room = max(0, limit - y)
        if lines.count > room, room > 0 {
            // Say that the list goes on rather than cut a phrase off unseen; Help pages through all of them.
            let more = " " + ctx.tr("… all phrases in Home › Help")
            lines = Array(lines.prefix(room))
            var last = String(lines[room - 1].prefix(max(0, w - more.count)))
            if let cut = last.range(of: " · ", options: .backwards) { last = String(last[..<cut.lowerBound]) }
            lines[room - 1] = last + more
        }
        for line in lines where y < limit {
            c.text(line, x: x, y: y, style: Theme.hint, maxWidth: w); y += 1
        }
        c.button("help.close", ctx.tr("Close help"), Rect(x: b.x + (b.w - 30) / 2, y: b.maxY - 3, w: 30, h: 3))
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        guard case .action(.activate, let t?, _) = input, t.id == "help.close" else { return .unhandled }
        return Reply(navigation: .back, record: "back")
    }
}

extension Optional where Wrapped == String {
    var orEmpty: String { self ?? "" }
}
