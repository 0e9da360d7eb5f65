import Localization
import Config
import FrameFormats
import Foundation
@testable import Runtime
@testable import Shell
import Testing
import TrackingCore

/// Event sources on their own: what they give the loop.
@Suite struct SourceTests {
    @Test func theKeymapWatcherGivesAReloadOrTheReasonItKeptTheOldOne() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("km-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("mine.toml")
        let good = try String(contentsOfFile: Setup.keymapPath("default"), encoding: .utf8)
        try good.write(to: file, atomically: true, encoding: .utf8)
        let gestures = GestureConfig.defaults().gestures
        var w = KeymapWatcher(keymap: file.path, gestures: gestures)
        #expect(w.events(Wakeup(now: 10)).isEmpty, "unchanged")

        try good.replacingOccurrences(of: "name = \"default\"", with: "name = \"mine\"")
            .write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 5)], ofItemAtPath: file.path)
        let reloaded = w.events(Wakeup(now: 11))
        guard case .shell(.keymapLoaded(let km, let notice))? = reloaded.first else {
            Issue.record("expected a reload, got \(reloaded)"); return
        }
        #expect(km.name == file.path, "named as it was chosen, not by its file's name line")
        #expect(notice?.english == "Keymap reloaded")

        try "[global\nactivate = ".write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 10)], ofItemAtPath: file.path)
        #expect(w.events(Wakeup(now: 11.5)).isEmpty, "checked at most once a second")
        let broken = w.events(Wakeup(now: 12))
        guard case .shell(.message(let message?))? = broken.first else { Issue.record("expected a notice, got \(broken)"); return }
        #expect(message.english.hasPrefix("Keymap not reloaded: \(file.path):1"))
    }

    /// Settings › Keymap picks a keymap whose file calls itself something else, then the file is edited and
    /// reloaded: the keymap in use and the one the settings hold (what settings.toml gets once the trial is
    /// kept) have one name throughout, and a later change of another setting asks for no second load.
    @Test func aKeymapChosenInSettingsKeepsTheChosenNameThroughAReload() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("km-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("mine.toml")
        let good = try String(contentsOfFile: Setup.keymapPath("default"), encoding: .utf8)
        try good.replacingOccurrences(of: "name = \"default\"", with: "name = \"My keys\"").write(to: file, atomically: true, encoding: .utf8)
        let config = GestureConfig.defaults()
        var state = ShellState(keymap: try Setup.keymap("default", gestures: config.gestures), gestures: config.gestures)
        state.services.keymapNames = ["default", file.path]
        var r = ShellRuntime(session: Session(state: state, settings: config), feed: .none, exitAtEnd: true,
                             paths: UserPaths(environment: ["HOME": dir.path], dataDir: nil))
        _ = r.session.state.show(screen: "settings")
        func activate(_ id: String) -> Bool {
            r.session.state.focus.set(id, at: r.session.state.now)
            return r.runEffects(r.session.send(.key(.enter)))
        }
        _ = activate("settings.tab.keymap")
        _ = activate("settings.keymap." + file.path)
        #expect(r.session.state.keymap.name == file.path)
        #expect(r.session.state.settings.keymap == file.path)

        try good.replacingOccurrences(of: "name = \"default\"", with: "name = \"My keys, edited\"")
            .write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 5)], ofItemAtPath: file.path)
        var watcher = try #require(r.keymapWatcher)
        let reloaded = watcher.events(Wakeup(now: 10))
        guard case .shell(let event)? = reloaded.first, case .keymapLoaded = event else {
            Issue.record("expected a reload, got \(reloaded)"); return
        }
        _ = r.runEffects(r.session.send(event))
        #expect(r.session.state.keymap.name == r.session.state.settings.keymap)
        #expect(r.session.state.keymap.name == file.path)

        // Another setting changed afterwards: the keymap is the chosen one already, so nothing is loaded.
        var changed = r.session.state.settings
        changed.speakFocus.toggle()
        #expect(!r.session.state.settingsFollowUps(changed).contains { if case .loadKeymap = $0 { true } else { false } })
    }

    @Test func aReplayGivesFramesWhenDueAndSaysWhenItEnds() {
        let items: [DecodedItem] = [.frame(TrackingFrame(t: 0), nil), .malformed(FrameIssue(nil, "bad")),
                                    .frame(TrackingFrame(t: 1), nil)]
        var s = FrameSource(.replay(items: items, speed: 2, name: "r"), start: 100)
        let first = s.events(Wakeup(now: 100))
        #expect(first.filter { if case .item = $0 { true } else { false } }.count == 2, "the first frame and the bad line")
        #expect(s.nextWake(now: 100) == 100.5, "the next frame is due half a second later at speed 2")
        #expect(s.events(Wakeup(now: 100.4)).allSatisfy { if case .item = $0 { false } else { true } })
        let last = s.events(Wakeup(now: 100.5))
        #expect(last.contains { if case .sourceEnded = $0 { true } else { false } })
        #expect(s.meter.used == 2)
    }

    /// Hands out frames one second apart and counts how many were taken.
    final class CountingTake: Sequence, IteratorProtocol {
        let length: Int
        private(set) var taken = 0
        init(_ length: Int) { self.length = length }
        func next() -> DecodedItem? {
            guard taken < length else { return nil }
            taken += 1
            return .frame(TrackingFrame(t: Double(taken - 1)), nil)
        }
    }

    @Test func aReplayTakesItemsFromItsRecordingOnlyAsTheyFallDue() {
        // A file's reader works the same way: the recording is read as far as the replay has got.
        let take = CountingTake(1_000_000)
        var s = FrameSource(.replay(ReplayItems(take), speed: 1, name: "long"), start: 0)
        for now in [0.0, 1, 2.5] { _ = s.events(Wakeup(now: now)) }
        #expect(s.meter.used == 3)
        #expect(take.taken == 4, "the three frames due and the one looked at next, of a million")
        #expect(s.nextWake(now: 2.5) == 3)
    }
}
