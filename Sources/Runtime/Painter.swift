import Shell
import TerminalModel

/// What the loop hands the state to: it draws it on the display and remembers what it last drew, so that a
/// drawing nothing would change is skipped and a key's echo can be drawn over the last one.
///
/// The loop reads nothing of the state itself (it decides nothing about the screens): every question about
/// what is shown is asked here, of the state it is handed, through the pure functions of `Render.swift`
/// (`FrameLook`, `panePatch`).
struct Painter {
    let display: ShellDisplay
    /// The look of the last full drawing (nil: none yet).
    private var look: FrameLook?
    /// The pane's view as the display shows it (the last full drawing's, or an echo drawn over it since).
    private var view: TerminalView?
    /// The state's `revision` at the last full drawing.
    private var revision: Int?

    init(_ display: ShellDisplay) { self.display = display }

    /// Draws `state` in full; `performed` lists what was done since the last drawing.
    mutating func draw(_ state: ShellState, performed: [ActionRecord]) {
        display.show(state, performed: performed)
        view = state.terminal
        look = FrameLook(state)
        revision = state.revision
    }

    /// Draws `state` unless its look equals the last drawing's and nothing else asks for a drawing (`forced`,
    /// actions performed); true if it drew.
    mutating func drawIfChanged(_ state: ShellState, performed: [ActionRecord], forced: Bool) -> Bool {
        guard forced || !performed.isEmpty || look?.matches(state) != true else { return false }
        draw(state, performed: performed)
        return true
    }

    /// Whether a screen changed what it shows since the last drawing without any input (a reply arrived on a
    /// tick, playback moved): its `revision` moved.
    func moved(_ state: ShellState) -> Bool { state.revision != revision }

    /// Whether time alone changes the drawing of `state` (the notice line's parts take turns).
    func turns(_ state: ShellState) -> Bool { state.noticeLineTurns }

    /// Draws the Terminal screen's pane of `state` alone, with `view`, over the last drawing; only over a
    /// drawing of this very layout and marks (one the loop has not drawn yet, a screen opened, the suggestions
    /// laid out again, the focus moved, waits for the full drawing). True if it drew.
    mutating func drawEcho(_ state: ShellState, view: TerminalView) -> Bool {
        guard let look, look.sameMarks(as: state) else { return false }
        guard display.showPane(state, view: view, drawn: self.view) else { return false }
        self.view = view
        return true
    }
}
