import Foundation
import Testing
@testable import Config
import TrackingCore

/// `include = "…"` in a keymap: the included keymap is the base, the including file's bindings and options go
/// over it key by key, and a missing file or a cycle is named at the `include` line.
struct KeymapIncludeTests {
    static let gestures = GestureConfig.defaults().gestures.map(\.name)
    static let screens = KeymapTests.screens
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Keymap files kept in memory by path; a name without "/" is one of the shipped keymaps, read from disk.
    static func includer(_ files: [String: String]) -> KeymapInclude {
        { name, _ in
            if let text = files[name] { return .success((name, text)) }
            let shipped = root.appendingPathComponent("keymaps/\(name).toml")
            if !name.contains("/"), let text = try? String(contentsOf: shipped, encoding: .utf8) {
                return .success((shipped.path, text))
            }
            return .failure(KeymapIncludeError("\(name): no such keymap (known: default, dwell, no-wink, webcam)"))
        }
    }

    static func load(_ text: String, file: String = "mine.toml", _ files: [String: String] = [:]) throws(ConfigError) -> Keymap {
        try Keymap.load(text, file: file, knownGestures: gestures, knownScreens: screens, include: includer(files))
    }

    @Test func aKeymapThatIncludesTheDefaultListsOnlyItsOwnPhrases() throws {
        let def = try Keymap.load(try String(contentsOf: Self.root.appendingPathComponent("keymaps/default.toml"), encoding: .utf8),
                                  file: "default.toml", knownGestures: Self.gestures, knownScreens: Self.screens)
        let text = """
        name = "español"
        include = "default"

        [global.voice]
        "atrás" = "back"
        "ayuda" = "help"

        [screen.launcher.gestures]
        wink_left = "help"
        """
        let km = try Self.load(text)
        #expect(km.name == "español")
        // Every binding of the default is there, the file's own added over them.
        for (g, a) in def.global.gestures { #expect(km.global.gestures[g] == a, "\(g)") }
        for (p, a) in def.global.voice { #expect(km.global.voice[p] == a, "\(p)") }
        #expect(km.action(phrase: "atrás", screen: "launcher") == .back)
        #expect(km.action(phrase: "Ayuda", screen: "notes") == .help)
        #expect(km.action(gesture: "wink_left", screen: "launcher") == .help)
        #expect(km.keyboardRows == def.keyboardRows && km.wakePhrase == def.wakePhrase)
        #expect(km.terminal == def.terminal && km.desktop == def.desktop)
        for (name, sec) in def.screens {
            for (g, a) in sec.gestures where !(name == "launcher" && g == "wink_left") { #expect(km.screens[name]?.gestures[g] == a) }
        }
    }

    @Test func includesNestAndTheNearestFileWins() throws {
        let files = ["/k/base.toml": "include = \"default\"\n[options]\nshow_back_target = true\n[global.voice]\n\"go back\" = \"back\"\n",
                     "/k/mid.toml": "include = \"/k/base.toml\"\n[global.voice]\n\"go back\" = \"home\"\n"]
        let km = try Self.load("include = \"/k/mid.toml\"\n[options]\nshow_back_target = false\n", files)
        #expect(km.action(phrase: "go back", screen: "notes") == .home)
        #expect(!km.showBackTarget)
        #expect(km.action(gesture: "activate", screen: "notes") == .activate)
    }

    @Test func aMissingKeymapIsNamedAtTheIncludeLine() {
        #expect {
            _ = try Self.load("name = \"x\"\n\ninclude = \"nowhere\"\n")
        } throws: { e in
            guard let e = e as? ConfigError else { return false }
            return e.file == "mine.toml" && e.line == 3
                && e.message == "include \"nowhere\": nowhere: no such keymap (known: default, dwell, no-wink, webcam)"
        }
    }

    @Test func aCycleIsNamedAtTheIncludeThatClosesIt() {
        let files = ["/k/a.toml": "# a\ninclude = \"/k/b.toml\"\n", "/k/b.toml": "\n\ninclude = \"/k/a.toml\"\n"]
        #expect {
            _ = try Self.load(files["/k/a.toml"] ?? "", file: "/k/a.toml", files)
        } throws: { e in
            guard let e = e as? ConfigError else { return false }
            return e.file == "/k/b.toml" && e.line == 3 && e.message == "include \"/k/a.toml\" makes a cycle: /k/a.toml → /k/b.toml → /k/a.toml"
        }
        // Including itself.
        #expect {
            _ = try Self.load("include = \"/k/self.toml\"\n", file: "/k/self.toml", ["/k/self.toml": "include = \"/k/self.toml\"\n"])
        } throws: { e in (e as? ConfigError)?.message.contains("makes a cycle: /k/self.toml → /k/self.toml") == true }
    }

    @Test func aMistakeInTheIncludedFileNamesThatFile() {
        let files = ["/k/bad.toml": "include = \"default\"\n[global.gestures]\nsneeze = \"back\"\n"]
        #expect {
            _ = try Self.load("include = \"/k/bad.toml\"\n", files)
        } throws: { e in
            guard let e = e as? ConfigError else { return false }
            return e.file == "/k/bad.toml" && e.line == 3 && e.message.contains("sneeze")
        }
    }

    @Test func includeMustBeAName() {
        for text in ["include = 3\n", "include = \"\"\n"] {
            #expect {
                _ = try Self.load(text)
            } throws: { e in (e as? ConfigError)?.message.contains("include must name a keymap") == true }
        }
        // Text parsed without a way to read files cannot include.
        #expect {
            _ = try Keymap.parse("include = \"default\"\n", file: "t.toml", knownGestures: Self.gestures, knownScreens: Self.screens)
        } throws: { e in (e as? ConfigError)?.message.contains("cannot include another") == true }
    }
}
