import Localization
import Config
import TrackingCore

/// A destructive action that needs a held confirmation: activating the button arms it, then the keymap's
/// `confirm` gesture (a smile held 2 s by default) carries it out. While armed, the button shows the hold
/// filling and the seconds left; the countdown resets as soon as the smile stops (the gesture's own
/// progress drops to zero). A keymap with no `confirm` gesture (gaze only) confirms by activating the armed
/// button again; a helper confirms with `y` and cancels with `n`. Arming lapses after `timeout` seconds.
public struct HoldToConfirm: Sendable, Equatable {
    /// When it was armed (source time), nil when idle.
    public var armedAt: Double?
    public var timeout: Double

    public init(timeout: Double = 12) { self.timeout = timeout }

    public var isArmed: Bool { armedAt != nil }

    /// What an input did to it.
    public enum Outcome: Sendable, Equatable { case ignored, armed, cancelled, confirmed, changed }

    /// Names of the gestures bound to `confirm` on a screen.
    public static func gestures(_ ctx: ScreenContext, screen: String) -> [String] {
        ctx.keymap.bindings(screen: screen).gestures.filter { $0.1 == .confirm }.map(\.0)
    }

    /// The hold under way (0…1) and the seconds it takes in all.
    public static func hold(_ ctx: ScreenContext, screen: String) -> (progress: Double, seconds: Double) {
        let names = gestures(ctx, screen: screen)
        let p = ctx.progress.filter { names.contains($0.name) }.map(\.progress).max() ?? 0
        var secs = 2.0
        if let n = names.first, let d = ctx.gestures.first(where: { $0.name == n }), case .threshold(let t) = d.kind { secs = t.hold }
        return (p, secs)
    }

    public mutating func handle(_ input: ScreenInput, id: String, screen: String, _ ctx: ScreenContext) -> Outcome {
        switch input {
        case .action(.activate, let t?, _) where t.id == id:
            if armedAt == nil { armedAt = ctx.now; return .armed }
            if Self.gestures(ctx, screen: screen).isEmpty { armedAt = nil; return .confirmed }
            return .ignored
        case .action(.activate, let t?, _) where t.id == id + ".cancel":
            guard armedAt != nil else { return .ignored }
            armedAt = nil
            return .cancelled
        case .action(.confirm, _, _):
            guard armedAt != nil else { return .ignored }
            armedAt = nil
            return .confirmed
        case .key(.char(let c)) where armedAt != nil && (c == "y" || c == "n"):
            armedAt = nil
            return c == "y" ? .confirmed : .cancelled
        case .tick(let now):
            // A lapse only while no hold is under way, so a slow smile is never cut short.
            if let a = armedAt, now - a > timeout, Self.hold(ctx, screen: screen).progress == 0 { armedAt = nil; return .changed }
            return .ignored
        default:
            return .ignored
        }
    }
}

extension Canvas {
    /// The hold-to-confirm button (`ID`) and, while armed, its countdown and a Cancel target (`ID.cancel`).
    public mutating func holdToConfirm(_ id: String, _ label: String, _ h: HoldToConfirm, screen: String,
                                       _ ctx: ScreenContext, _ rect: Rect) {
        guard h.isArmed else {
            grid.box(rect, style: Style(fg: .red))
            grid.centered("✖ " + label, in: rect.inset(1), y: rect.y + rect.h / 2, style: Theme.error)
            target(id, label, rect)
            return
        }
        let cw = min(14, rect.w / 4)
        let main = Rect(x: rect.x, y: rect.y, w: rect.w - cw - 1, h: rect.h)
        let cancel = Rect(x: main.maxX + 1, y: rect.y, w: cw, h: rect.h)
        grid.box(main, border: .heavy, style: Style(fg: .red, attrs: .bold))
        let (p, secs) = HoldToConfirm.hold(ctx, screen: screen)
        let names = HoldToConfirm.gestures(ctx, screen: screen)
        let how: String
        if let n = names.first, let d = ctx.gestures.first(where: { $0.name == n }) {
            let m = GestureText.movement(d, ctx.catalog)
            how = m.prefix(1).uppercased() + m.dropFirst()
        } else {
            how = ctx.tr("Activate again")
        }
        let left = ctx.catalog.number(max(0, secs * (1 - p)), digits: 1)
        let text = names.isEmpty ? ctx.tr("{how} to {action} (y)", ["how": how, "action": label.lowercased()])
            : ctx.tr("{how} {seconds} s to {action}", ["how": how, "seconds": left, "action": label.lowercased()])
        let inner = main.inset(dx: 2, dy: 1)
        let tw = CellGrid.columns(of: text)
        grid.text(text, x: inner.x, y: main.y + main.h / 2, style: Theme.error, maxWidth: inner.w)
        if !names.isEmpty {
            grid.bar(x: inner.x + tw + 1, y: main.y + main.h / 2, width: max(0, inner.w - tw - 1), fraction: p,
                     style: Style(fg: .red, attrs: .bold), empty: "░")
        }
        target(id, label, main)
        button(id + ".cancel", ctx.tr("Cancel"), cancel)
    }
}
