import Config
import Localization
import TrackingCore

/// The guided path from an installed shell to a face that drives it, one step a screen: the tracker, the
/// webcam's Python parts and face model, the microphone and speaker, a live gesture check (then the gesture
/// calibration screen), and the pointer calibration.
///
/// It is a screen like any other, so a helper drives it with the arrow keys and Enter, and the user with gaze
/// and the jaw as soon as the tracker sends frames. Everything outside (installing, downloading, the
/// devices, listening to the tracker) is asked for by `Effect.setup` and answered by `ShellEvent.setup`; the
/// screen reads no clock and does no I/O.
public struct SetupScreen: Screen {
    public let name = "setup"
    public var title: String { N_("Set up HandsFree Shell") }
    /// The live checks draw the frame's face and jaw.
    public var drawsFrames: Bool { step == .connect || step == .gestures }

    /// Opened because nothing was set up yet (the first `run`): leaving without a choice keeps "no tracker",
    /// so that later starts go straight to the shell (`handsfree setup` asks again).
    public var firstRun: Bool
    /// Opened by `handsfree setup`: the shell ends with it.
    public var quitsWhenDone: Bool

    enum Step: Sendable, Equatable {
        case tracker, python, model, connect, audio, gestures, pointer, done
    }

    /// A long task as the screen shows it.
    enum Task: Sendable, Equatable {
        case idle
        case running(done: Int, total: Int?, line: String?)
        case done(UIMessage?)
        case failed(UIMessage, offline: Bool)
    }

    struct Device: Sendable, Equatable {
        var name: String
        var level: Double?
        var problem: String?
    }

    var step = Step.tracker
    var choice = TrackerChoice(kind: .none)
    var chosen = false
    var survey: SetupSurvey?
    var surveyAsked = false
    var python = Task.idle
    var model = Task.idle
    /// What a helper typed: the phone's address (iFacialMocap) or the path of a model file.
    var typed = ""
    var microphone: Device?
    var speaker: Device?
    var heard: Bool?
    /// Where the tracker is listened to (nil: not yet), and what went wrong with it.
    var listening: String?
    var trackerProblem: UIMessage?
    /// The jaw's lowest and highest reading during the live check.
    var jawLow: Float?
    var jawHigh: Float?
    var savedProblem: String?
    var finished = false

    public init(firstRun: Bool = false, quitsWhenDone: Bool = false) {
        self.firstRun = firstRun
        self.quitsWhenDone = quitsWhenDone
    }

    static let prefix = "setup."
    static let backID = "setup.back", nextID = "setup.next", notNowID = "setup.not-now", finishID = "setup.finish"
    static let installID = "setup.python.install", downloadID = "setup.model.download", useFileID = "setup.model.use-file"
    static let foundPrefix = "setup.model.found.", cameraPrefix = "setup.camera.", trackerPrefix = "setup.tracker."
    static let lookAgainID = "setup.look-again", connectID = "setup.connect", testAgainID = "setup.audio.again"
    static let heardYesID = "setup.heard.yes", heardNoID = "setup.heard.no"
    static let calibrateGesturesID = "setup.gestures.calibrate", worksID = "setup.gestures.works"
    static let calibratePointerID = "setup.pointer.calibrate"

    /// The Python groups setup installs for a webcam.
    static let webcamGroups = ["webcam"]

    /// The steps for the tracker chosen, in order.
    var steps: [Step] {
        switch choice.kind {
        case .none: return chosen ? [.tracker, .audio, .done] : [.tracker]
        case .webcam: return [.tracker, .python, .model, .connect, .audio, .gestures, .pointer, .done]
        case .liveLinkFace, .iFacialMocap, .openSeeFace: return [.tracker, .connect, .audio, .gestures, .pointer, .done]
        }
    }

    /// Whether typed characters go into the screen's one field now.
    var takesTyping: Bool {
        (step == .connect && choice.kind == .iFacialMocap) || (step == .model && !modelReady)
    }

    var modelReady: Bool {
        if case .done = model { return true }
        return survey?.model != nil
    }

    var pythonReady: Bool {
        if case .done = python { return true }
        return survey?.packages["mediapipe"] != nil
    }

    // MARK: Input

    public mutating func handle(_ input: ScreenInput, _ ctx: ScreenContext) -> Reply {
        switch input {
        case .tick:
            if !surveyAsked {
                surveyAsked = true
                return Reply(effects: [.setup(.survey)], record: nil)
            }
            return watchJaw(ctx) ? Reply(record: nil) : .unhandled
        case .key(.char(let c)) where takesTyping:
            typed.append(c)
            return Reply(record: nil)
        case .key(.backspace) where takesTyping:
            if !typed.isEmpty { typed.removeLast() }
            return Reply(record: nil)
        case .action(.back, _, _):
            guard let i = steps.firstIndex(of: step), i > 0 else { return .unhandled }
            return move(to: steps[i - 1], ctx, record: "setup-back")
        case .action(.activate, let target?, _):
            return activate(target.id, ctx)
        case .action(.help, _, _):
            return .push(AppHelpScreen(app: name, appTitle: title))
        default:
            return .unhandled
        }
    }

    private mutating func activate(_ id: String, _ ctx: ScreenContext) -> Reply {
        if id.hasPrefix(Self.trackerPrefix), let kind = TrackerKind(rawValue: String(id.dropFirst(Self.trackerPrefix.count))) {
            // Another tracker: the one listened to so far is let go.
            var stop: [Effect] = []
            if choice.kind != kind {
                if listening != nil { stop = [.setup(.startTracker(TrackerChoice(kind: .none)))] }
                listening = nil; trackerProblem = nil; jawLow = nil; jawHigh = nil; typed = ""
            }
            choice.kind = kind
            chosen = true
            var reply = move(to: steps[1], ctx, record: "setup-tracker")
            reply.effects = stop + reply.effects
            return reply
        }
        if id.hasPrefix(Self.foundPrefix), let i = Int(id.dropFirst(Self.foundPrefix.count)),
           let files = survey?.modelFiles, files.indices.contains(i) {
            model = .running(done: 0, total: nil, line: nil)
            return Reply(effects: [.setup(.copyModel(path: files[i]))], record: "setup-model-file")
        }
        if id.hasPrefix(Self.cameraPrefix), let i = Int(id.dropFirst(Self.cameraPrefix.count)),
           let cameras = survey?.cameras, cameras.indices.contains(i) {
            choice.device = cameras[i]
            listening = nil; trackerProblem = nil
            return Reply(effects: [.setup(.startTracker(choice))], record: "setup-camera")
        }
        switch id {
        case Self.notNowID:
            return Reply(navigation: .back, effects: leavingEffects(), record: "setup-left")
        case Self.backID:
            guard let i = steps.firstIndex(of: step), i > 0 else { return .unhandled }
            return move(to: steps[i - 1], ctx, record: "setup-back")
        case Self.nextID, Self.worksID:
            guard let i = steps.firstIndex(of: step), i + 1 < steps.count else { return .unhandled }
            return move(to: steps[i + 1], ctx, record: id == Self.worksID ? "setup-gesture-works" : "setup-next")
        case Self.installID:
            python = .running(done: 0, total: nil, line: nil)
            return Reply(effects: [.setup(.installPython(Self.webcamGroups))], record: "setup-install")
        case Self.downloadID:
            model = .running(done: 0, total: survey?.modelSize, line: nil)
            return Reply(effects: [.setup(.downloadModel)], record: "setup-download")
        case Self.useFileID:
            let path = Self.trimmed(typed)
            guard !path.isEmpty else {
                model = .failed(UIMessage("type the path of the model file first (a helper's keyboard), or pick one found here"), offline: true)
                return Reply(record: nil)
            }
            model = .running(done: 0, total: nil, line: nil)
            return Reply(effects: [.setup(.copyModel(path: path))], record: "setup-model-file")
        case Self.lookAgainID:
            return Reply(effects: [.setup(.survey)], record: "setup-look-again")
        case Self.connectID:
            let phone = Self.trimmed(typed)
            choice.phone = phone.isEmpty ? nil : phone
            listening = nil; trackerProblem = nil
            return Reply(effects: [.setup(.startTracker(choice))], record: "setup-connect")
        case Self.testAgainID:
            microphone = nil; speaker = nil; heard = nil
            return Reply(effects: [.setup(.testMicrophone), .setup(.testSpeaker)], record: "setup-test-audio")
        case Self.heardYesID, Self.heardNoID:
            heard = id == Self.heardYesID
            return Reply(record: heard == true ? "setup-heard" : "setup-not-heard")
        case Self.calibrateGesturesID:
            return Reply(navigation: .open("gesture-calibration"), record: "open")
        case Self.calibratePointerID:
            return Reply(navigation: .open("calibration"), record: "open")
        case Self.finishID:
            finished = true
            var effects: [Effect] = [.setup(.save(choice))]
            if quitsWhenDone { effects.append(.quit) }
            return Reply(navigation: quitsWhenDone ? nil : .back, effects: effects, record: "setup-finished")
        default:
            return .unhandled
        }
    }

    /// Goes to a step and asks for what it needs.
    private mutating func move(to next: Step, _ ctx: ScreenContext, record: String) -> Reply {
        step = next
        var effects: [Effect] = []
        switch next {
        case .connect:
            // A phone app is listened to at once, so its frames show as it is set up; iFacialMocap waits for
            // the phone's address, to which the start handshake goes.
            if choice.kind != .iFacialMocap || choice.phone != nil { effects.append(.setup(.startTracker(choice))) }
        case .audio:
            if microphone == nil || speaker == nil { effects += [.setup(.testMicrophone), .setup(.testSpeaker)] }
        case .python, .model:
            if survey == nil { effects.append(.setup(.survey)) }
        case .tracker, .gestures, .pointer, .done:
            break
        }
        return Reply(effects: effects, record: record)
    }

    public func leaving(_ context: ScreenContext) -> [Effect] {
        finished ? [] : leavingEffects()
    }

    /// Leaving before the end: a tracker chosen is kept; on the first start, "none" is kept, so the next start
    /// goes to the shell; `handsfree setup` ends.
    func leavingEffects() -> [Effect] {
        var out: [Effect] = []
        if chosen { out.append(.setup(.save(choice))) } else if firstRun { out.append(.setup(.save(TrackerChoice(kind: .none)))) }
        if quitsWhenDone { out.append(.quit) }
        return out
    }

    /// Follows the jaw during the live checks; true when what is shown changed.
    private mutating func watchJaw(_ ctx: ScreenContext) -> Bool {
        guard step == .connect || step == .gestures, let blend = ctx.tracking.blend else { return false }
        let jaw = blend[.jawOpen]
        let (low, high) = (jawLow, jawHigh)
        jawLow = min(jawLow ?? jaw, jaw)
        jawHigh = max(jawHigh ?? jaw, jaw)
        return low != jawLow || high != jawHigh
    }

    /// Takes what the runtime reports; returns effects that follow (the speaker's test sentence).
    mutating func take(_ report: SetupReport, _ ctx: ScreenContext) -> [Effect] {
        switch report {
        case .surveyed(let s):
            survey = s
            if !s.cameras.isEmpty, !s.cameras.contains(choice.device), choice.kind == .webcam || !chosen {
                choice.device = s.cameras[0]
            }
        case .progress(let task, let done, let total, let line):
            let t = Task.running(done: done, total: total, line: line)
            if task == .python { python = t } else { model = t }
        case .finished(let task, let problem, let detail, let offline):
            let t = problem.map { Task.failed($0, offline: offline) } ?? .done(detail)
            if task == .python {
                python = t
            } else {
                model = t
                if problem == nil { typed = "" }
            }
            // The survey is read again, so the steps show what is there now.
            return [.setup(.survey)]
        case .microphone(let device, let level, let problem):
            microphone = Device(name: device, level: level, problem: problem)
        case .speaker(let device, let problem):
            speaker = Device(name: device, problem: problem)
            if problem == nil { return [ctx.speakEffect(ctx.tr("This is how HandsFree Shell speaks. Can you hear it?"))] }
        case .trackerStarted(let c, let at, let problem):
            guard c == choice else { return [] }
            listening = at
            trackerProblem = problem
        case .trackerStopped(let why):
            trackerProblem = why
        case .saved(let problem):
            savedProblem = problem
        case .trackerKeymap, .trackerCalibrations:
            break
        }
        return []
    }

    // MARK: Drawing

    /// A line of a step's text, and how it is drawn.
    typealias Line = (String, Style)

    /// What a step says and offers: its lines of text (frame-dependent ones only with a context: plain mode
    /// reads the rest), the step's own buttons, and the last button (Next, Skip, Finish; nil: none).
    struct Content {
        var lines: [Line] = []
        var middle: [(String, String)] = []
        var next: String? = N_("Next ▶")
    }

    public func render(_ c: inout Canvas, _ ctx: ScreenContext) {
        let b = c.bounds
        c.grid.centered(heading(ctx.catalog), in: b, y: b.y + 1, style: Theme.tileLabel)
        let text = Rect(x: b.x + 3, y: b.y + 3, w: b.w - 6, h: max(1, b.h - 8))
        let buttons = Rect(x: b.x + 2, y: b.maxY - 3, w: b.w - 4, h: 3)
        if step == .tracker { renderTracker(&c, text, buttons, ctx.catalog); return }
        let content = self.content(ctx, ctx.catalog)
        var y = Self.lines(&c, content.lines, in: text)
        switch step {
        case .model:
            if let files = survey?.modelFiles, !modelReady, !files.isEmpty, buttons.y - y >= 4 {
                let found = Array(files.prefix(3))
                let row = Rect(x: text.x, y: buttons.y - 4, w: text.w, h: 3)
                for (i, (rect, file)) in zip(row.columns(found.count, gap: 2), found).enumerated() {
                    c.button(Self.foundPrefix + String(i), ctx.tr("Use {file}", ["file": Self.shortPath(file, width: rect.w - 6)]), rect)
                }
            }
        case .gestures:
            // The jaw as a bar, with the threshold in use marked under it.
            y += 1
            let w = max(10, min(50, text.w - 20)), x = text.x + (text.w - w) / 2
            if y + 2 < buttons.y {
                let jaw = ctx.tracking.blend?[.jawOpen] ?? 0
                let filled = min(w, max(0, Int((Double(jaw) * Double(w)).rounded())))
                let jawLabel = ctx.tr("Jaw")
                c.text(jawLabel + " " + String(repeating: "█", count: filled) + String(repeating: "░", count: w - filled),
                       x: x - 1 - CellGrid.columns(of: jawLabel), y: y, style: Theme.dwell)
                c.text("▲", x: x + min(w - 1, Int((ctx.trackingInEffect.jawThreshold * Double(w)).rounded())), y: y + 1, style: Theme.hint)
                y += 3
            }
            Self.lines(&c, gestureNotes(ctx), in: text, from: y)
        default:
            break
        }
        bottom(&c, buttons, content.middle, next: content.next, ctx.catalog)
    }

    /// "Step 2 of 8: The webcam's Python parts", in `t`'s language.
    func heading(_ t: Catalog) -> String {
        let all = steps
        let number = (all.firstIndex(of: step) ?? 0) + 1
        let name = t.tr(Self.heading(step))
        return all.count > 1 ? t.tr("Step {number} of {count}: {step}", ["number": String(number), "count": String(all.count), "step": name]) : name
    }

    static func heading(_ step: Step) -> String {
        switch step {
        case .tracker: return N_("What follows your face?")
        case .python: return N_("The webcam's Python parts")
        case .model: return N_("The face model")
        case .connect: return N_("Connect the tracker")
        case .audio: return N_("Microphone and speaker")
        case .gestures: return N_("Check a gesture")
        case .pointer: return N_("Point where you look")
        case .done: return N_("Ready")
        }
    }

    /// Lines of text from the top of `r` down, each wrapped; returns the row after them.
    @discardableResult
    static func lines(_ c: inout Canvas, _ items: [Line], in r: Rect, from y: Int? = nil) -> Int {
        var y = y ?? r.y
        for (s, style) in items where y < r.maxY {
            y += c.paragraph(s, Rect(x: r.x, y: y, w: r.w, h: r.maxY - y), style: style)
        }
        return y
    }

    /// The bottom row: ◀ Back (not on the first step), the step's own buttons, then Next.
    func bottom(_ c: inout Canvas, _ r: Rect, _ middle: [(String, String)], next: String?, _ t: Catalog) {
        var items: [(String, String)] = step == .tracker ? [] : [(Self.backID, t.tr("◀ Back"))]
        items += middle.map { ($0.0, t.tr($0.1)) }
        if let next { items.append((step == .done ? Self.finishID : Self.nextID, t.tr(next))) }
        for (rect, item) in zip(r.columns(items.count, gap: 2), items) { c.button(item.0, item.1, rect) }
    }

    static let trackerIntro = N_("HandsFree Shell follows your face: where you look picks, opening your jaw acts, closing your right eye goes back. Choose what will track your face; you can change it later with handsfree setup. A helper can choose with the arrow keys and Enter.")

    private func renderTracker(_ c: inout Canvas, _ r: Rect, _ buttons: Rect, _ t: Catalog) {
        let y = c.paragraph(t.tr(Self.trackerIntro), r) + r.y + 1
        let tiles: [(TrackerKind, String, String)] = [
            (.liveLinkFace, "iPhone: Live Link Face", t.tr("free app; eyes, tongue")),
            (.iFacialMocap, "iPhone: iFacialMocap", t.tr("eyes and tongue")),
            (.webcam, t.tr("Webcam"), t.tr("any camera")),
            (.openSeeFace, "OpenSeeFace", t.tr("a tracker you run")),
            (.none, t.tr("Keys only"), t.tr("no face tracker")),
        ]
        let area = Rect(x: r.x, y: y, w: r.w, h: max(3, buttons.y - y - 1))
        let rows = area.h >= 7 ? area.rows(2, gap: 1) : [area]
        let perRow = rows.count == 2 ? 3 : tiles.count
        for (k, t) in tiles.enumerated() {
            let row = rows[min(rows.count - 1, k / perRow)]
            let cols = row.columns(perRow, gap: 2)
            c.tile(Self.trackerPrefix + t.0.rawValue, t.1, cols[k % perRow], detail: row.h >= 4 ? t.2 : nil)
        }
        if rows.count == 2 {
            let cols = rows[1].columns(3, gap: 2)
            c.tile(Self.notNowID, t.tr("✕ Not now"), cols[2], detail: rows[1].h >= 4 ? t.tr("set up later") : nil)
            bottom(&c, buttons, [], next: nil, t)
        } else {
            bottom(&c, buttons, [(Self.notNowID, N_("✕ Not now"))], next: nil, t)
        }
    }

    /// What the step says and offers, in `t`'s language; `ctx` nil leaves out what follows the frames (plain
    /// mode).
    func content(_ ctx: ScreenContext?, _ t: Catalog) -> Content {
        switch step {
        case .tracker: return Content(lines: [(t.tr(Self.trackerIntro), .plain)], next: nil)
        case .python: return pythonContent(t)
        case .model: return modelContent(t)
        case .connect: return connectContent(ctx, t)
        case .audio: return audioContent(t)
        case .gestures: return gesturesContent(ctx, t)
        case .pointer: return pointerContent(ctx, t)
        case .done: return doneContent(ctx, t)
        }
    }

    /// `v` with `digits` decimals and the language's decimal separator.
    static func decimal(_ v: Double, _ digits: Int, _ t: Catalog) -> String {
        t.decimal(v, digits: digits)
    }

    private func pythonContent(_ t: Catalog) -> Content {
        var c = Content(lines: [
            (t.tr("The webcam is tracked on this computer by MediaPipe, a Python part of about 1 GB. It goes in a folder beside the shell's data, where the shell finds it by itself."), .plain),
        ])
        guard let s = survey else {
            c.lines.append((t.tr("Looking at this computer…"), Theme.hint))
            return c
        }
        switch python {
        case .running(_, _, let line):
            c.lines.append((t.tr("Installing: this takes a few minutes."), Theme.tileLabel))
            if let line { c.lines.append((line, Theme.hint)) }
        case .failed(let why, _):
            c.lines.append((t.tr("Not installed: {reason}", ["reason": why.text(t)]), Theme.error))
            c.middle.append((Self.installID, N_("↻ Try again")))
        case .done, .idle:
            if let v = s.packages["mediapipe"] {
                c.lines.append((s.python.map { t.tr("Found: MediaPipe {version}, for {python}.", ["version": v, "python": $0]) }
                                ?? t.tr("Found: MediaPipe {version}.", ["version": v]), Theme.tileLabel))
            } else {
                c.lines.append((s.python.map { t.tr("MediaPipe is not installed for {python}.", ["python": $0]) }
                                ?? t.tr("MediaPipe is not installed for any Python found."), Theme.warning))
                if s.installProblem == nil { c.middle.append((Self.installID, N_("⬇ Install now"))) }
            }
        }
        if let problem = s.installProblem, s.packages["mediapipe"] == nil {
            c.lines.append((t.tr("Setup cannot install it here: {reason}", ["reason": problem]), Theme.warning))
        }
        c.lines.append((t.tr("In a terminal instead: {command} webcam (or point HANDSFREE_PYTHON at a Python that has mediapipe).",
                             ["command": s.installCommand]), Theme.hint))
        c.next = pythonReady ? N_("Next ▶") : N_("Skip ▶")
        return c
    }

    private func modelContent(_ t: Catalog) -> Content {
        guard let s = survey else { return Content(lines: [(t.tr("Looking at this computer…"), Theme.hint)]) }
        let mb = Self.decimal(Double(s.modelSize) / 1_000_000, 1, t)
        var c = Content(lines: [
            (t.tr("The webcam needs MediaPipe's face model ({size} MB, Apache-2.0) from {host}, Google's Project Gameface. Its checksum is checked before it is used.",
                  ["size": mb, "host": s.modelHost]), .plain),
        ])
        var offline = false
        switch model {
        case .running(let done, let total, _):
            if let total, total > 0 {
                let w = 30, filled = min(w, max(0, done * w / total))
                let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: w - filled)
                c.lines.append((t.tr("Downloading {bar} {done} of {total} MB",
                                     ["bar": bar, "done": Self.decimal(Double(done) / 1_000_000, 1, t),
                                      "total": Self.decimal(Double(total) / 1_000_000, 1, t)]), Theme.dwell))
            } else {
                c.lines.append((t.tr("Checking the file…"), Theme.hint))
            }
        case .done(let detail):
            c.lines.append((t.tr("Ready: {detail}.", ["detail": detail?.text(t) ?? ""]), Theme.tileLabel))
        case .failed(let why, let noNetwork):
            c.lines.append((t.tr("The model was not installed: {reason}.", ["reason": why.text(t)]), Theme.error))
            offline = noNetwork
            c.middle.append((Self.downloadID, N_("↻ Download again")))
        case .idle:
            if let found = s.model {
                c.lines.append((t.tr("Found: {file}, checked.", ["file": found]), Theme.tileLabel))
            } else {
                if let problem = s.modelProblem { c.lines.append((problem, Theme.warning)) }
                c.lines.append((t.tr("It will be kept in {folder}.", ["folder": s.modelFolder]), Theme.hint))
                c.middle.append((Self.downloadID, N_("⬇ Download")))
            }
        }
        if !modelReady {
            c.lines.append((offline ? t.tr("No network? Use a copy from a USB stick or another computer: type its path (a helper), or pick one found here.")
                            : t.tr("Or use a copy you have: type its path (a helper), or pick one found here."), Theme.hint))
            c.lines.append((t.tr("File: {path}", ["path": typed + "▏"]), Theme.tileLabel))
            if !typed.isEmpty { c.middle.append((Self.useFileID, N_("✓ Use this file"))) }
        }
        c.next = modelReady ? N_("Next ▶") : N_("Skip ▶")
        return c
    }

    /// A path cut from the left to fit, keeping its file name.
    static func shortPath(_ p: String, width: Int) -> String {
        guard p.count > width, width > 1 else { return p }
        return "…" + String(p.suffix(width - 1))
    }

    /// What a helper typed, without the spaces around it.
    static func trimmed(_ s: String) -> String {
        String(s.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }

    /// Whether frames arrive now, in words, from the status the runtime measures.
    static func frames(_ ctx: ScreenContext, listening: String?) -> Line {
        guard let at = listening else { return (ctx.tr("Not listening yet."), Theme.hint) }
        if let h = ctx.tracking.health, h.arrivalRate > 0 {
            let args = ["rate": String(h.arrivalRate), "address": at]
            return ctx.tracking.face ? (ctx.tr("Frames: {rate} a second at {address}, and your face is seen ✓", args), Theme.tileLabel)
                : (ctx.tr("Frames: {rate} a second at {address}, but no face is seen: is it in view?", args), Theme.warning)
        }
        return (ctx.tr("Listening at {address}: no frames yet.", ["address": at]), Theme.warning)
    }

    private func connectContent(_ ctx: ScreenContext?, _ t: Catalog) -> Content {
        var c = Content()
        let addresses = survey?.addresses ?? []
        let here = addresses.isEmpty ? t.tr("this computer's address (ip -4 addr shows it)") : addresses.joined(separator: t.tr(" or "))
        switch choice.kind {
        case .liveLinkFace:
            c.lines.append((t.tr("On the iPhone, in Live Link Face: Settings › Live Link › Add Target, address {address}, port 11111. The phone and this computer must be on the same network. Then hold the phone so it sees your face.",
                                 ["address": here]), .plain))
        case .iFacialMocap:
            c.lines.append((t.tr("Open iFacialMocap on the iPhone; it shows its own address at the top. A helper types it here, then Connect: the shell asks the phone for frames, which come to {address}, port 49983.",
                                 ["address": here]), .plain))
            c.lines.append((t.tr("Phone: {address}", ["address": typed + "▏"]), Theme.tileLabel))
            c.middle.append((Self.connectID, N_("⇄ Connect")))
        case .openSeeFace:
            c.lines.append((t.tr("Start OpenSeeFace's tracker sending here, e.g. facetracker -c 0 --ip 127.0.0.1 --port 11573. It sees the head and the mouth well, the eyes poorly."), .plain))
        case .webcam:
            let cameras = survey?.cameras ?? []
            if cameras.isEmpty {
                c.lines.append((t.tr("No camera was found (no /dev/video* device). Plug one in and look again; the shell starts it by itself at every handsfree run."), Theme.warning))
                c.middle.append((Self.lookAgainID, N_("↻ Look again")))
            } else {
                c.lines.append((t.tr("Camera {device}: the shell starts the webcam bridge now and at every handsfree run.", ["device": choice.device]), .plain))
                for (i, cam) in cameras.prefix(3).enumerated() where cam != choice.device && cameras.count > 1 {
                    c.middle.append((Self.cameraPrefix + String(i), t.tr("Use {file}", ["file": cam])))
                }
            }
        case .none:
            break
        }
        if let p = trackerProblem, !(choice.kind == .webcam && (survey?.cameras ?? []).isEmpty) { c.lines.append((p.text(t), Theme.error)) }
        if let ctx {
            c.lines.append(Self.frames(ctx, listening: listening))
        } else if let at = listening {
            c.lines.append((t.tr("Listening at {address}.", ["address": at]), .plain))
        }
        return c
    }

    private func audioContent(_ t: Catalog) -> Content {
        var c = Content(lines: [
            (t.tr("Speech is for dictating and for commands (\"shell, open notes\"); the speaker reads out what you write. Neither is needed: everything works by face and keys."), .plain),
        ], middle: [(Self.testAgainID, N_("↻ Test again"))])
        if let m = microphone {
            if let p = m.problem {
                c.lines.append((t.tr("Microphone: {problem}. Speech stays off until one is plugged in.", ["problem": p]), Theme.warning))
            } else {
                let level = m.level ?? 0, bars = Int((level * 20).rounded())
                let bar = String(repeating: "█", count: bars) + String(repeating: "░", count: 20 - bars)
                c.lines.append((level < 0.02
                                ? t.tr("Microphone \"{name}\" works, but heard only silence: say something and test again.", ["name": m.name])
                                : t.tr("Microphone \"{name}\" works: it heard {bar} {percent}%",
                                       ["name": m.name, "bar": bar, "percent": String(Int((level * 100).rounded()))]), Theme.tileLabel))
            }
        } else {
            c.lines.append((t.tr("Testing the microphone…"), Theme.hint))
        }
        if let s = speaker {
            if let p = s.problem {
                c.lines.append((t.tr("Speaker: {problem}. The shell stays silent; what it would say is still shown.", ["problem": p]), Theme.warning))
            } else if let heard {
                c.lines.append(heard ? (t.tr("Speaker \"{name}\" works ✓", ["name": s.name]), Theme.tileLabel)
                               : (t.tr("Speaker \"{name}\" opened but was not heard: check the volume, or pick another with handsfree run --speaker NAME.",
                                       ["name": s.name]), Theme.warning))
            } else {
                c.lines.append((t.tr("Speaker \"{name}\" is saying a sentence: did you hear it?", ["name": s.name]), Theme.tileLabel))
                c.middle = [(Self.heardYesID, N_("✓ Heard it")), (Self.heardNoID, N_("✕ Heard nothing"))]
            }
        } else {
            c.lines.append((t.tr("Testing the speaker…"), Theme.hint))
        }
        return c
    }

    private func gesturesContent(_ ctx: ScreenContext?, _ t: Catalog) -> Content {
        var c = Content(lines: [
            (t.tr("Look at “It works” below and open your jaw, as you would to press a key: the bar fills, and past ▲ it acts."), .plain),
        ], next: nil)
        if let p = trackerProblem { c.lines.append((p.text(t), Theme.error)) }
        if let ctx, listening == nil || ctx.tracking.blend == nil { c.lines.append(Self.frames(ctx, listening: listening)) }
        // "It works" only while a face is seen; else the way on is to skip.
        let works = ctx?.tracking.blend != nil ? (Self.worksID, N_("✓ It works: next")) : (Self.nextID, N_("Skip ▶"))
        c.middle = [(Self.calibrateGesturesID, N_("Calibrate gestures")), works]
        return c
    }

    /// Under the jaw's bar: the threshold the user's own openings suggest, and the calibration.
    private func gestureNotes(_ ctx: ScreenContext) -> [Line] {
        var notes: [Line] = []
        if let low = jawLow, let high = jawHigh, high - low > 0.15 {
            let suggested = low + (high - low) / 2
            let t = ctx.catalog
            notes.append((t.tr("Widest so far {widest}, at rest {rest}: a threshold near {suggested} suits you (now {now}). Calibrate gestures sets it from your own face and keeps it for this tracker.",
                               ["widest": Self.decimal(Double(high), 2, t), "rest": Self.decimal(Double(low), 2, t),
                                "suggested": Self.decimal(Double(suggested), 2, t), "now": Self.decimal(ctx.trackingInEffect.jawThreshold, 2, t)]), .plain))
        } else {
            notes.append((ctx.tr("Calibrate gestures measures your face at rest and at each gesture, and sets the thresholds from them."), Theme.hint))
        }
        if !ctx.tracking.gestureThresholds.isEmpty { notes.append((ctx.tr("Your gestures are calibrated for this tracker ✓"), Theme.tileLabel)) }
        return notes
    }

    private func pointerContent(_ ctx: ScreenContext?, _ t: Catalog) -> Content {
        let calibrated = ctx?.calibration != nil
        return Content(lines: [
            (t.tr("Every tracker is off in its own way for each person and seat. Calibrating shows nine dots one after another; look at each until it fills, and the pointer then goes where you look."), .plain),
            calibrated ? (t.tr("The pointer is calibrated for this tracker ✓"), Theme.tileLabel) : (t.tr("The pointer is not calibrated yet."), Theme.hint),
        ], middle: [(Self.calibratePointerID, N_("◎ Calibrate pointer"))], next: calibrated ? N_("Next ▶") : N_("Skip ▶"))
    }

    private func doneContent(_ ctx: ScreenContext?, _ t: Catalog) -> Content {
        let tracker = t.tr(choice.title)
        var lines: [Line] = [(listening.map { t.tr("Tracker: {tracker}, listened to at {address}", ["tracker": tracker, "address": $0]) }
                              ?? t.tr("Tracker: {tracker}", ["tracker": tracker]), .plain)]
        if choice.kind == .webcam {
            let cameras = survey?.cameras ?? []
            lines.append(cameras.contains(choice.device) ? (t.tr("Camera: {device} ✓", ["device": choice.device]), .plain)
                         : (t.tr("Camera: none found yet ({device} when one is plugged in)", ["device": choice.device]), Theme.warning))
            lines.append(pythonReady ? (t.tr("Python parts: installed ✓"), .plain)
                         : (t.tr("Python parts: not installed (the webcam cannot track yet)"), Theme.warning))
            lines.append(modelReady ? (t.tr("Face model: ready ✓"), .plain) : (t.tr("Face model: missing (the webcam cannot track yet)"), Theme.warning))
        }
        let mic = microphone.map { $0.problem == nil ? t.tr("Microphone \"{name}\": works ✓", ["name": $0.name]) : t.tr("Microphone: none found (speech off)") }
            ?? t.tr("Microphone: not tested")
        let spk = speaker.map {
            $0.problem == nil ? (heard == false ? t.tr("Speaker \"{name}\": not heard", ["name": $0.name]) : t.tr("Speaker \"{name}\": works ✓", ["name": $0.name]))
                : t.tr("Speaker: none found")
        } ?? t.tr("Speaker: not tested")
        lines.append((mic, .plain))
        lines.append((spk, .plain))
        if choice.kind != .none, let ctx {
            lines.append((ctx.tracking.gestureThresholds.isEmpty ? t.tr("Gestures: the usual thresholds") : t.tr("Gestures: calibrated ✓"), .plain))
            lines.append(((ctx.calibration != nil) ? t.tr("Pointer: calibrated ✓") : t.tr("Pointer: not calibrated"), .plain))
        }
        if let p = savedProblem { lines.append((t.tr("Not saved: {reason}", ["reason": p]), Theme.error)) }
        lines.append((quitsWhenDone ? t.tr("Finish keeps these; then start the shell with: handsfree run")
                      : t.tr("Finish keeps these and opens the shell; handsfree setup changes them later."), Theme.hint))
        return Content(lines: lines, next: N_("✓ Finish"))
    }
}

/// Plain mode (screen readers, braille) reads each step's text as it changes, without what follows the
/// frames (the jaw meter, the frame rate), which would change many times a second.
extension SetupScreen: PlainFields {
    public func plainFields(_ catalog: Catalog) -> [PlainField] {
        [PlainField(id: "setup.step", label: heading(catalog), text: content(nil, catalog).lines.map(\.0).joined(separator: " "))]
    }
}

/// Takes what the runtime did for setup: the setup screen (wherever it is on the stack: a calibration may be
/// above it) hears it, and a tracker's keymap and gestures are used at once.
func setupReported(_ s: inout ShellState, _ report: SetupReport) -> [Effect] {
    switch report {
    case .trackerKeymap(let keymap, let settings):
        // The one in use already stays as it is, with its gestures and calibrations.
        guard keymap.name != s.keymap.name else { return [] }
        // The webcam's keymap is written for its own gesture config: both change together, the calibration in
        // use stays (it is the pointer's, whatever the gestures).
        var settings = settings
        // Its own values are the ones in effect: the tracking overrides made for the other config go.
        settings.mapping.calibration = s.trackingConfig.mapping.calibration
        s.keymap = keymap
        s.trackingConfig = settings
        s.settings.keymap = keymap.name
        s.settings.tracking = TrackingSettings()
        s.relayout()
        return []
    case .trackerCalibrations(let pointer, let gestures):
        s.calibrate(pointer.flatMap { $0.size == s.size ? $0.calibration : nil })
        s.calibrateGestures(gestures)
        return []
    case .trackerStarted(let choice, let at, _):
        s.tracking.source = at == nil ? "keyboard" : choice.shortName
    case .trackerStopped(let why):
        s.noticeMessage = why
    default:
        break
    }
    guard let i = s.stack.lastIndex(where: { $0 is SetupScreen }), var screen = s.stack[i] as? SetupScreen else { return [] }
    let effects = screen.take(report, s.context)
    s.stack[i] = screen
    s.revision &+= 1
    if i == s.stack.count - 1 { s.relayout() }
    return effects
}
