import Config
import Localization

/// The phrase board: the user's phrases in groups (greetings, needs, answers, and their own saved ones), each
/// said at once when activated. The most used rise to the top of their group, but not under the user's gaze:
/// the order holds while the board shows and is sorted anew the next time it opens.
///
/// Phrases live in `AppData` (`phrases.txt` in the data folder, an editable text file saved like notes);
/// "save phrase" on a note or a message adds what was typed to the saved group.
public struct PhrasesScreen: Screen {
    public let name = "phrases"
    public let title = N_("Phrases")
    public var group = "greetings"
    /// The order each group showed in when a phrase of it was first said on this visit.
    var held: [String: [String]] = [:]
    /// Remove mode: activating a phrase arms its removal (a held confirmation) instead of saying it.
    public private(set) var removing = false
    var remove = HoldToConfirm()
    /// The phrase whose removal is armed.
    var removingText: String?
    /// The phrase last said from the board: shown full-screen if it could not be heard.
    var lastSaid: String?
    public static let removeModeID = "phrases.remove-mode", removeID = "phrases.remove"

    public init(group: String = "greetings") { self.group = group }

    struct Layout { var banner: Int; var tabs: Rect; var tiles: [Rect]; var stop: Rect }

    func layout(_ b: Rect, large: Bool) -> Layout {
        let tabs = Rect(x: b.x + 2, y: b.y + 1, w: b.w - 4, h: 3)
        let stop = Rect(x: b.x + 2, y: b.maxY - 3, w: b.w - 4, h: 3)
        let area = Rect(x: b.x + 2, y: tabs.maxY + 1, w: b.w - 4, h: stop.y - tabs.maxY - 2)
        let cols = large || b.w < 90 ? 2 : 3
        let tileH = large ? 5 : 3
        let rows = max(0, (area.h + 1) / (tileH + 1))
        var tiles: [Rect] = []
        for r in 0..<rows {
            let row = Rect(x: area.x, y: area.y + r * (tileH + 1), w: area.w, h: tileH)
            tiles += row.columns(cols, gap: 2)
        }
        return Layout(banner: b.y, tabs: tabs, tiles: tiles, stop: stop)
    }

    /// The group "frequent": the sentences the user writes most and lately (their sentence history), not stored
    /// in phrases.txt.
    public static let frequentGroup = "frequent"

    /// The tabs: the stored groups, then the user's frequent sentences when there are any.
    static func groups(_ ctx: ScreenContext) -> [(key: String, label: String)] {
        AppData.phraseGroups + (ctx.predictor.frequentSentences(1).isEmpty ? [] : [(frequentGroup, N_("Frequent"))])
    }

    /// The group's phrases as shown: the held order on this visit, else the most used first.
    func shown(_ ctx: ScreenContext) -> [Phrase] {
        let all = group == Self.frequentGroup
            ? ctx.predictor.frequentSentences(24).map { Phrase(group: Self.frequentGroup, text: $0) }
            : ctx.data.phrases(in: ctx.data.phraseGroup(group, language: ctx.catalog.language))
        guard let order = held[group] else { return all }
        let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        return all.enumerated().sorted { (rank[$0.element.text] ?? order.count + $0.offset, $0.offset)
            < (rank[$1.element.text] ?? order.count + $1.offset, $1.offset) }.map(\.element)
    }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let l = layout(c.bounds, large: ctx.settings.largeTargets)
        if let p = ctx.data.phrasesProblem {
            c.text(p.text(ctx.catalog), x: c.bounds.x + 2, y: l.banner, style: Theme.error, maxWidth: c.bounds.w - 4)
        } else {
            // The tip about saving goes where it would be cut (its help says it too).
            let say = ctx.tr("Look at a phrase and {how} to say it.", ["how": activateHint(ctx)])
            let both = ctx.tr("Look at a phrase and {how} to say it. \"Save phrase\" in a note or message adds yours.", ["how": activateHint(ctx)])
            c.text(CellGrid.columns(of: both) <= c.bounds.w - 4 ? both : say,
                   x: c.bounds.x + 2, y: l.banner, style: Theme.hint, maxWidth: c.bounds.w - 4)
        }
        c.tabBar("phrases.group", ctx.tr(Self.groups(ctx)), selected: group, l.tabs)
        let phrases = shown(ctx)
        if phrases.isEmpty, let first = l.tiles.first {
            c.text(group == "saved" ? ctx.tr("No saved phrases yet: write one in a note, then say \"save phrase\".")
                                    : ctx.tr("No phrases in this group (phrases.txt in the data folder holds them)."),
                   x: first.x, y: first.y + 1, style: Theme.hint, maxWidth: l.tabs.w)
        }
        for (i, (p, r)) in zip(phrases, l.tiles).enumerated() {
            if !removing {
                c.button("phrases.say.\(i)", p.text, r)
            } else if remove.isArmed, p.text == removingText {
                c.holdToConfirm(Self.removeID, ctx.tr("Remove"), remove, screen: name, ctx, r)
            } else {
                c.button("phrases.pick.\(i)", "✕ " + p.text, r)
            }
        }
        let bottom = l.stop.columns(3, gap: 2)
        let stop = Rect(x: bottom[0].x, y: l.stop.y, w: bottom[1].maxX - bottom[0].x, h: 3)
        if ctx.speaking {
            c.button("phrases.stop", ctx.tr("■ Stop speaking"), stop)
        } else if removing {
            c.text(ctx.tr("Pick a phrase to remove, then confirm."), x: stop.x + 2, y: stop.y + 1, style: Theme.hint, maxWidth: stop.w - 4)
        } else {
            c.text(ctx.tr("■ Stop shows here while a phrase is said."), x: stop.x + 2, y: stop.y + 1, style: Theme.hint, maxWidth: stop.w - 4)
        }
        c.button(Self.removeModeID, removing ? ctx.tr("✓ Done removing") : ctx.tr("✕ Remove phrases"), bottom[2])
    }

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        if removing {
            switch remove.handle(input, id: Self.removeID, screen: name, ctx) {
            case .confirmed:
                guard let text = removingText else { return .handled }
                removingText = nil
                // A frequent sentence is forgotten from the history, the others removed from phrases.txt.
                if group == Self.frequentGroup { return Reply(effects: [.forgetSentence(text)], record: "remove-phrase") }
                return Reply(record: "remove-phrase", changes: [.removePhrase(text, group: ctx.data.phraseGroup(group, language: ctx.catalog.language))])
            case .cancelled: removingText = nil; return Reply(record: "cancel")
            case .changed: removingText = nil; return .handled
            case .armed, .ignored: break
            }
        }
        if case .tick = input { return .unhandled }
        if case .notHeard(let why) = input {
            // No speaker: the phrase is shown in big letters for the person in the room, with the reason.
            guard let text = lastSaid else { return .unhandled }
            lastSaid = nil
            return Reply(navigation: .push(PhraseShowScreen(text: text, why: why)), record: "show-phrase")
        }
        if case .action(.help, _, _) = input { return .push(AppHelpScreen(app: name, appTitle: title)) }
        let target: Target?
        switch input {
        case .action(.activate, let t?, _), .action(.speak, let t?, _): target = t
        default: return .unhandled
        }
        guard let t = target else { return .unhandled }
        if let g = choice(t.id, of: "phrases.group", in: Self.groups(ctx).map(\.key)) {
            group = g
            remove = HoldToConfirm(); removingText = nil
            return Reply(record: "group")
        }
        if t.id == Self.removeModeID {
            removing.toggle()
            remove = HoldToConfirm(); removingText = nil
            return Reply(record: removing ? "remove-mode" : "remove-done")
        }
        if t.id == "phrases.stop" { return ctx.speaking ? Reply(effects: [.stopSpeaking], record: "stop-speaking") : .handled }
        let phrases = shown(ctx)
        // Remove mode: picking a phrase arms its removal; the keymap's confirm gesture (or activating it
        // again, gaze only) removes it, so a glance or a stray jaw never deletes one.
        if removing, t.id.hasPrefix("phrases.pick."), let i = Int(t.id.dropFirst("phrases.pick.".count)), i < phrases.count {
            removingText = phrases[i].text
            remove.armedAt = ctx.now
            return Reply(record: "arm")
        }
        guard t.id.hasPrefix("phrases.say."), let i = Int(t.id.dropFirst("phrases.say.".count)), i < phrases.count else {
            return .unhandled
        }
        if held[group] == nil { held[group] = phrases.map(\.text) }
        let p = phrases[i]
        lastSaid = p.text
        // Said again: the history counts it, which is what orders the frequent row.
        if group == Self.frequentGroup { return Reply(effects: [ctx.speakEffect(p.text), .learnSentences(p.text)], record: "say") }
        return Reply(effects: [ctx.speakEffect(p.text)], record: "say", changes: [.usedPhrase(p.text, group: p.group)])
    }
}
