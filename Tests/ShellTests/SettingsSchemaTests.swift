import Config
import Foundation
@testable import Shell
import Testing

/// `settings.toml` has one schema (issue 48, item 4): every setting is declared once, and the parser, the writer
/// and the reference (docs/settings.md, the man page) walk it.
@Suite struct SettingsSchemaTests {
    static let schema = ShellSettings.schema

    /// Values in each setting's range that differ from its default: its bounds and middle, every choice, both
    /// truths, a few texts.
    static func samples(_ e: SettingEntry<ShellSettings>) -> [SettingValue] {
        switch e.kind {
        case .bool: return [.bool(true), .bool(false)]
        case .number(let r, let whole):
            let mid = (r.lowerBound + r.upperBound) / 2
            return [r.lowerBound, whole ? mid.rounded(.down) : mid, r.upperBound].map(SettingValue.number)
        case .choice(let words): return words.map(SettingValue.string)
        case .text: return e.key == "language" ? [.string("es"), .string("pt_BR"), .string("auto")] : [.string("dwell"), .string("my \"own\" keys")]
        case .strings: return [.strings([]), .strings(["htop", "-d", "20"]), .strings(["sh", "-c", "echo \"a\\b\"\tc"])]
        }
    }

    @Test func everySettingWrittenIsReadBackTheSame() {
        #expect(Self.schema.entries.count >= 29)
        var checked = 0
        for e in Self.schema.entries {
            for v in Self.samples(e) {
                var s = ShellSettings()
                e.set(&s, v)
                #expect(e.get(s) == v, "\(e.key) did not take \(v)")
                let (back, problems) = ShellSettings.parse(s.toml, file: "settings.toml")
                #expect(problems.isEmpty, "\(e.key) = \(v.toml): \(problems)")
                #expect(back == s, "\(e.key) = \(v.toml) came back as \(e.get(back)?.toml ?? "unset")")
                checked += 1
            }
        }
        #expect(checked > 60)
        let (defaults, problems) = ShellSettings.parse(ShellSettings().toml, file: "settings.toml")
        #expect(problems.isEmpty && defaults == ShellSettings())
    }

    @Test func everySettingHasOneKeyARangeASectionAndADescription() {
        let keys = Self.schema.entries.map(\.key)
        #expect(Set(keys).count == keys.count, "a key declared twice")
        let sections = Set(ShellSettings.referenceSections.map(\.key))
        for e in Self.schema.entries {
            #expect(sections.contains(e.section), "\(e.key): unknown section \(e.section)")
            #expect(!e.summary.isEmpty && !e.summary.contains("\n") && e.summary.hasSuffix("."), "\(e.key): \(e.summary)")
            switch e.kind {
            case .number(let r, _):
                #expect(r.lowerBound.isFinite && r.upperBound.isFinite && r.lowerBound < r.upperBound, "\(e.key): \(r)")
                // A tracking override is unset by default: the gesture config's value stands.
                if let d = e.get(Self.schema.defaults) { #expect(r.contains(Self.number(d)), "\(e.key): its default is out of its range") }
            case .choice(let words):
                #expect(words.count >= 2, "\(e.key): \(words)")
                if case .string(let d) = e.get(Self.schema.defaults) { #expect(words.contains(d), "\(e.key): its default is not a choice") }
            case .bool, .text, .strings:
                #expect(!e.kind.rule.isEmpty)
            }
        }
        #expect(Self.schema.entry("dwell_ms").map { if case .number(let r, _) = $0.kind { r == SettingRanges.dwellMilliseconds } else { false } } == true,
                "dwell_ms takes the one range of SettingRanges")
    }

    static func number(_ v: SettingValue) -> Double { if case .number(let d) = v { d } else { .nan } }

    @Test func aBrokenValueOrAnUnknownKeyIsNamedByFileAndLineAndTheRestLoads() {
        let text = "suggestions = 3\njaw_threshold = 5\ntheme = \"sparkly\"\ndwel_ms = 800\nsuggestions_ = 1\nspeech_rate = 2\nsuggest_rude_words = \"yes\"\n"
        let (s, problems) = ShellSettings.parse(text, file: "settings.toml")
        #expect(problems == [
            "settings.toml:2: jaw_threshold must be a number 0.05…0.95",
            "settings.toml:3: theme must be \"default\", \"high-contrast\" or \"colour-blind-safe\"",
            "settings.toml:4: unknown setting dwel_ms (a typing mistake, or one this version does not have)",
            "settings.toml:5: unknown setting suggestions_ (a typing mistake, or one this version does not have)",
            "settings.toml:7: suggest_rude_words must be true or false",
        ], "\(problems)")
        #expect(s.suggestions == 3 && s.speechRate == 2, "the good lines load")
        #expect(s.tracking.jawThreshold == ShellSettings().tracking.jawThreshold && s.theme == ShellSettings().theme, "a bad value keeps the default")
        #expect(ShellSettings.parse("dwell_ms = 100\n", file: "f").1 == ["f:1: dwell_ms must be a number 200…60000 (milliseconds)"])
        #expect(ShellSettings.parse("suggestions = 2.5\n", file: "f").1 == ["f:1: suggestions must be a whole number 0…6 (words)"])
        #expect(ShellSettings.parse("jaw_threshold = [\n", file: "f").1.first?.hasPrefix("f:1:") == true, "a syntax error keeps its line")
    }

    /// docs/settings.md is the schema's reference as `handsfree settings-reference` writes it: it cannot drift.
    @Test func theCheckedInReferenceIsTheOneTheSchemaMakes() throws {
        let path = Fixture.root + "/docs/settings.md"
        let checkedIn = try String(contentsOfFile: path, encoding: .utf8)
        #expect(checkedIn == ShellSettings.referenceMarkdown,
                "docs/settings.md differs from the schema: run `handsfree settings-reference --update docs/settings.md`")
        for e in Self.schema.entries {
            #expect(checkedIn.contains("| `\(e.key)` |"))
        }
    }

    /// The man page's SETTINGS section comes from the schema too: scripts/make-man.py asks the binary for it.
    @Test func theManPageSectionListsEverySettingWithItsRange() throws {
        let man = ShellSettings.referenceMan
        #expect(man.hasPrefix(".SH SETTINGS\n"))
        for e in Self.schema.entries {
            #expect(man.contains("\\fB" + e.key.replacingOccurrences(of: "-", with: "\\-") + "\\fR = "), "\(e.key)")
        }
        #expect(man.contains("\\fBsuggestions\\fR = 4\n"), "the default beside the key")
        #expect(man.contains("\\fBdwell_ms\\fR = the gesture config's\n"), "a tracking setting: the config's unless set")
        #expect(man.contains("Takes a number 200…60000 (milliseconds)."))
        let script = try String(contentsOfFile: Fixture.root + "/scripts/make-man.py", encoding: .utf8)
        #expect(script.contains("\"settings-reference\", \"--man\""), "make-man.py takes the section from the binary")
    }

    /// The Settings screen's controls name settings of the schema: a slider's span and a stepper's lie inside the
    /// setting's one range, a segmented control offers exactly its choices, and every setting of a tab is shown
    /// there (Language and Keymap are lists of their own).
    @Test func theSettingsScreensControlsAreTheSchemasSettings() {
        var shown: [String: String] = [:]
        for (tab, page) in SettingsScreen.pages {
            for row in page.rows {
                for cell in row.cells {
                    guard case .setting(let control) = cell else { continue }
                    guard let e = Self.schema.entry(control.setting) else { Issue.record("\(control.id): no setting \(control.setting)"); continue }
                    shown[e.key] = tab
                    #expect(e.section == tab, "\(e.key) is on \(tab), the schema says \(e.section)")
                    switch (control.look, e.kind) {
                    case (.toggle, .bool): break
                    case (.slider(_, let slider, let scale), .number(let r, _)):
                        #expect(r.contains(slider.range.lowerBound * scale) && r.contains(slider.range.upperBound * scale),
                                "\(e.key): the slider's \(slider.range) is outside \(r)")
                    case (.stepper(_, let stepper), .number(let r, true)):
                        #expect(r.contains(Double(stepper.range.lowerBound)) && r.contains(Double(stepper.range.upperBound)))
                    case (.segmented(let options), .choice(let words)):
                        // Every choice is offered, but no smoothing at all, which only the file can ask for.
                        #expect(options.map(\.key) == words.filter { e.key != "smoothing" || $0 != "none" },
                                "\(e.key): the screen offers \(options.map(\.key)), the file takes \(words)")
                    default:
                        Issue.record("\(control.id): a control that cannot show \(e.key)")
                    }
                }
            }
        }
        for e in Self.schema.entries where !["file", "language", "keymap"].contains(e.section) {
            #expect(shown[e.key] != nil, "\(e.key) belongs to \(e.section) but no control shows it")
        }
    }
}
