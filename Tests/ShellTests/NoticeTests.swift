import Localization
import Foundation
import Shell
import Testing
import TrackingCore

/// Every notice the shell can show, and the status line's readiness and speech texts, read whole at 80 and
/// 100 columns: in the title bar when it fits, else on the notice line (the status area's first row) in parts
/// split between words, each shown for four seconds of frame time. Nothing is ever cut mid-word.
@Suite struct NoticeTests {
    /// Each producer's text (grep `notice`, `.notice(`, `speechOutput`, `.status(` in Sources), with values as
    /// long as real ones: paths, device names, errors.
    static let notices: [String] = [
        // Reducer, SettingsApply, quitting
        "Dictation stopped after 10 s of silence",
        "Your unsaved text was written to /home/someone/.local/state/handsfree/handsfree-unsaved-1",
        "No copy could be written (No space left on device: /home/someone/.local/state/handsfree): your text stays here.",
        "unrecognised packets from 192.168.100.200:54321 (packet 1234567)",
        "Nothing to speak here: Speak reads a note or a message",
        "Nothing to save here: \"save phrase\" keeps what a note or a message says",
        "That screen is not part of this shell",
        "Open the jaw: only 0.42 of 0.50. Settings › Pointer › Calibrate gestures",
        "Close the right eye (left eye open): only 0.41 of 0.60. Settings › Pointer › Calibrate gestures",
        "Pointer recentred: the head's pose now points at the middle",
        "Nothing to recentre: this source sends no head pose",
        // Runtime: keymaps, settings, calibration, words
        "Keymap reloaded",
        "Keymap not reloaded: /home/someone/.config/handsfree/keymaps/default.toml:57: unknown action \"activte\" (did you mean \"activate\"?)",
        "Settings not saved: /home/someone/.config/handsfree/settings.toml: Permission denied",
        "Pointer calibration made at 100x30, not applied at 80x24: calibrate again (Settings › Calibrate pointer)",
        "Pointer not calibrated for this tracker: Settings › Calibrate pointer",
        "Calibration not saved: /home/someone/.config/handsfree/calibration.toml: Read-only file system",
        "Gesture calibration not saved: /home/someone/.config/handsfree/gesture-calibration.toml: Read-only file system",
        "Learned words not saved: /home/someone/.local/share/handsfree/words.txt: No space left on device",
        "Learned words file could not be read (invalid UTF-8 at line 12); kept as words.txt.corrupt-1.",
        "Word list cache /home/someone/.cache/handsfree/words.cache was damaged (bad header); the word lists were read instead.",
        "Words are still loading: “pharmacy” was not added, try again",
        "Words are still loading: “pharmacy” was not removed, try again",
        "This tracker sends no tongueOut: commit (stick the tongue out) cannot fire. Bind another gesture in your keymap.",
        // Speech in and out
        "microphone \"default\" not found: No such file or directory (list capture devices with arecord -l)",
        "microphone \"default\" is busy (another program is using it)",
        "Whisper is off (the Whisper worker did not start: No module named 'faster_whisper'); dictating with PocketSphinx",
        "Whisper: worker stopped answering; kept PocketSphinx's text",
        "/home/someone/.config/handsfree/cmn.txt: not a cepstral mean for this model; starting from the model's",
        "piper voice: no Python with piper-tts (scripts/python-env.sh speak); flite speaks instead",
        "flite could not say a sentence: out of memory",
        "speaker \"default\" could not be opened: No such file or directory (list playback devices with aplay -L)",
        "Speech output is off in this run",
        // The demo's captions
        "The user looks at Notes and opens the jaw: the note editor opens",
    ]

    /// The status line's readiness and speech texts, at their longest.
    static let statusTexts: [(readiness: Bool, mic: String?)] = [
        (true, nil),
        (false, "no microphone \"default\" · speech off"),
        (true, "mic default · say \"shell …\" or raise brows · pocketsphinx"),
        (true, "speech fell behind: 12 s of audio dropped"),
    ]

    static let sizes = [Size(width: 80, height: 24), Size(width: 100, height: 30)]

    /// What the title bar's right part and the notice line show at each second over `seconds` of frame time.
    static func shown(_ s: ShellState, seconds: Int) -> [(title: String, line: String, row: String)] {
        var s = s
        let start = s.now
        return (0...seconds).map { k in
            s.now = start + Double(k)
            let g = render(s, size: s.size).0
            let line = g.lines[g.height - 2]
            return (g.lines[0], line.trimmingCharacters(in: .whitespaces), g.lines[g.height - 1])
        }
    }

    /// The words of `text` read in order off the parts shown, each part a run of whole words of it.
    static func readWhole(_ text: String, parts: [String]) -> Bool {
        let words = text.split(separator: " ").map(String.init)
        var got: [String] = []
        for p in parts {
            var part = p
            if part.hasSuffix(" …") { part.removeLast(2) }
            let w = part.split(separator: " ").map(String.init)
            guard !w.isEmpty else { continue }
            // A part is whole words of the text, at a word boundary: never a word cut short.
            // Parts of other messages may take turns with it; a cut word matches nowhere, and its words stay unread.
            guard let i = (0...max(0, words.count - w.count)).first(where: { Array(words[$0..<min(words.count, $0 + w.count)]) == w })
            else { continue }
            if got.count == i { got += w }
        }
        return got == words
    }

    @Test(arguments: sizes)
    func everyNoticeIsReadWhole(_ size: Size) {
        for text in Self.notices {
            var s = ShellState(keymap: Fixture.keymap("default"), size: size)
            _ = s.show(screen: "note-editor")
            s.now = 10
            _ = reduce(&s, .notice(text))
            let views = Self.shown(s, seconds: 40)
            if views[0].title.contains(text) {
                #expect(views.allSatisfy { $0.title.contains(text) }, "\(text) stays in the title bar")
                continue
            }
            // On the notice line: its parts in turn, each for at least four seconds.
            let parts = views.map(\.line)
            #expect(Self.readWhole(text, parts: parts), "\(size.width) columns: \(text) read as \(Set(parts))")
            var runs: [Int] = [], last: String?
            for p in parts { if p == last { runs[runs.count - 1] += 1 } else { runs.append(1); last = p } }
            #expect(runs.dropLast().allSatisfy { $0 >= 4 }, "\(text): parts shown for \(runs) s")
            #expect(!views[0].row.contains("…"), "\(views[0].row)")
        }
    }

    /// A gesture or key clears a notice only once it has been up long enough to read.
    @Test func aNoticeStaysFourSecondsThroughGestures() {
        var s = Fixture.armedState()
        _ = s.show(screen: "notes")
        s.now = 5
        _ = reduce(&s, .notice("Keymap reloaded"))
        _ = reduce(&s, Fixture.gesture("wink_right", at: 6, gaze: nil))
        #expect(s.notice == "Keymap reloaded", "one second is too short to read it")
        _ = reduce(&s, Fixture.gesture("wink_right", at: 9.5, gaze: nil))
        #expect(s.notice == nil)
    }

    /// With a long source name, a restarted tracker and a microphone problem, the status line's second row
    /// keeps what fits whole and the notice line says the rest whole: "tracker restarted, hol" no more.
    @Test(arguments: sizes)
    func statusTextsAreNeverCut(_ size: Size) {
        for (restarted, mic) in Self.statusTexts {
            var s = ShellState(keymap: Fixture.keymap("default"), size: size,
                               source: "replay /work/shared/data/face/alex_rom_4.csv")
            s.micStatus = mic.map(UIMessage.verbatim)
            _ = reduce(&s, .frame(TrackingSample(t: 1, face: true, epoch: 0, lateFrames: 3)))
            if restarted { _ = reduce(&s, .frame(TrackingSample(t: 1.1, face: true, epoch: 1, lateFrames: 3))) }
            let label = try? #require(StatusProbe.readiness(s))
            let views = Self.shown(s, seconds: 24)
            let row = views[0].row
            for text in [label, mic].compactMap({ $0 }) {
                if row.contains(text) { continue }
                #expect(Self.readWhole(text, parts: views.map(\.line)), "\(size.width): \(text) in \(Set(views.map(\.line))) / \(row)")
            }
            #expect(!row.contains("…"), "\(row)")
        }
    }
}

/// The readiness text the status line shows for a state, as a user would read it there.
enum StatusProbe {
    static func readiness(_ s: ShellState) -> String? {
        let restarted = s.readiness.showsRestart(at: s.now)
        var parts: [String] = []
        if restarted { parts.append(s.readiness.armed ? "tracker restarted" : "tracker restarted, hold still") }
        else if !s.readiness.armed { parts.append("waiting for a still face") }
        if s.readiness.lateFrames > 0 { parts.append("\(s.readiness.lateFrames) late dropped") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}
