import Foundation
import Testing

/// The built binary writes one usage record per session to `metrics.ndjson` and `stats` reads them back.
@Suite(.serialized) struct MetricsEndToEndTests {
    static let binary = ShellInTmuxTests.binary
    static let built = FileManager.default.isExecutableFile(atPath: binary)
    static let take = ShellInTmuxTests.root + "/../shared/data/face/alex_rom_4.csv"
    static let hasTake = built && FileManager.default.fileExists(atPath: take)
    static let apfel = ShellInTmuxTests.root + "/../shared/data/face/apfel.csv"

    /// A fresh data and config folder for one test.
    final class Dirs {
        let root = NSTemporaryDirectory() + "hf-metrics-\(getpid())-\(UUID().uuidString.prefix(8))"
        var data: String { root + "/data" }
        var metrics: String { data + "/metrics.ndjson" }
        var env: [String: String] {
            ["HANDSFREE_DATA_DIR": data, "XDG_CONFIG_HOME": root + "/config", "XDG_STATE_HOME": root + "/state",
             "HOME": root, "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"]
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }

        /// Runs the binary with this environment; returns standard output and standard error.
        func run(_ args: [String]) throws -> (out: String, err: String) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: MetricsEndToEndTests.binary)
            p.arguments = args
            p.environment = env
            let out = Pipe(), err = Pipe()
            p.standardOutput = out
            p.standardError = err
            try p.run()
            // Standard error carries a few lines at most, so reading it after standard output cannot block.
            let o = out.fileHandleForReading.readDataToEndOfFile()
            let errData = err.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (String(decoding: o, as: UTF8.self), String(decoding: errData, as: UTF8.self))
        }

        /// The records in metrics.ndjson, parsed; [] when there is no file.
        func records() -> [[String: Any]] {
            guard let text = try? String(contentsOfFile: metrics, encoding: .utf8) else { return [] }
            return text.split(separator: "\n").compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
            }
        }
    }

    /// Writes the constructed take: three jaw openings on the Notes tile, the first gone back from after 1 s.
    static func writeTake(in d: Dirs) throws -> String {
        try FileManager.default.createDirectory(atPath: d.root, withIntermediateDirectories: true)
        // The Notes tile's centre at 100×30 (see `layout --screen launcher`).
        let gaze = "[0.175, 0.31667]"
        var lines: [String] = []
        var t = 0.0
        for (blend, secs) in [("", 1.5), ("\"jawOpen\": 0.8", 0.5), ("", 0.4), ("\"eyeBlinkRight\": 0.9", 0.6), ("", 0.5),
                              ("\"jawOpen\": 0.8", 0.5), ("", 3.0), ("\"eyeBlinkRight\": 0.9", 0.6), ("", 0.5),
                              ("\"jawOpen\": 0.8", 0.5), ("", 0.5)] {
            for i in 0..<Int(secs * 60) {
                lines.append("{\"t\": \(t + Double(i) / 60), \"face\": true, \"blend\": {\(blend)}, \"gaze\": \(gaze)}")
            }
            t += secs
        }
        let file = d.root + "/take.ndjson"
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    @Test(.enabled(if: built, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func headlessDemoAppendsARecordMarkedDemo() throws {
        let d = Dirs()
        _ = try d.run(["demo", "--headless"])
        let rs = d.records()
        #expect(rs.count == 1)
        let r = rs.last ?? [:]
        #expect(r["kind"] as? String == "demo")
        #expect((r["keystrokes"] as? Int ?? 0) > 0)
        #expect((r["selections"] as? Int ?? 0) > 0, "the demo commits suggested words")
        #expect((r["wpm"] as? Double ?? 0) > 0)
        #expect(r["ksr"] is Double)
        #expect(((r["gestures"] as? [String: Any])?["activate"] as? [String: Any])?["count"] as? Int ?? 0 > 0)
    }

    @Test(.enabled(if: built, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func noMetricsFlagAndSettingWriteNothing() throws {
        let d = Dirs()
        _ = try d.run(["demo", "--headless", "--no-metrics"])
        #expect(!FileManager.default.fileExists(atPath: d.metrics))
        try FileManager.default.createDirectory(atPath: d.root + "/config/handsfree", withIntermediateDirectories: true)
        try "record_metrics = false\n".write(toFile: d.root + "/config/handsfree/settings.toml", atomically: true, encoding: .utf8)
        _ = try d.run(["replay", "--fast", try Self.writeTake(in: d)])
        _ = try d.run(["replay", "--fast", "--no-metrics", try Self.writeTake(in: d)])
        #expect(!FileManager.default.fileExists(atPath: d.metrics))
    }

    /// A constructed take: three jaw openings on the Notes tile, the first gone back from after 1 s.
    @Test(.enabled(if: built, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func constructedTakeThroughReplayCountsActivationsAndAnUndo() throws {
        let d = Dirs()
        let file = try Self.writeTake(in: d)
        let out = try d.run(["replay", "--fast", "--events", "--screen-size", "100x30", file]).out
        #expect(out.components(separatedBy: "\"action\": \"open\"").count - 1 == 3)
        let r = d.records().last ?? [:]
        #expect(r["kind"] as? String == "replay")
        #expect(r["source"] as? String == "take.ndjson")
        #expect(((r["gestures"] as? [String: Any])?["activate"] as? [String: Any])?["count"] as? Int == 3)
        #expect(r["activations"] as? Int == 3)
        #expect(r["undoneActivations"] as? Int == 1)
        #expect(r["errors"] as? Int == 1)
    }

    /// The real Live Link Face take: the record's gesture counts are those `replay --events` reports.
    @Test(.enabled(if: hasTake, "needs .build/debug/handsfree and ../shared/data/face/alex_rom_4.csv"))
    func realTakeGestureCountsMatchReplayEvents() throws {
        let d = Dirs()
        let out = try d.run(["replay", "--fast", "--events", Self.take]).out
        let summaryLine = out.split(separator: "\n").last.map(String.init) ?? ""
        let summary = (try JSONSerialization.jsonObject(with: Data(summaryLine.utf8)) as? [String: Any])?["summary"] as? [String: Any]
        let reported = summary?["gestures"] as? [String: Int] ?? [:]
        #expect(reported.values.reduce(0, +) > 0)
        let r = d.records().last ?? [:]
        #expect(r["kind"] as? String == "replay")
        let recorded = (r["gestures"] as? [String: [String: Any]] ?? [:]).mapValues { $0["count"] as? Int ?? -1 }
        #expect(recorded == reported.filter { $0.value > 0 })
    }

    @Test(.enabled(if: built, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func statsPrintsSparklinesAndJSON() throws {
        let d = Dirs()
        let take = try Self.writeTake(in: d)
        _ = try d.run(["replay", "--fast", "--events", "--screen-size", "100x30", take])
        _ = try d.run(["replay", "--fast", take])
        let text = try d.run(["stats"]).out
        #expect(text.contains("2 sessions (2 replay)"))
        #expect(text.contains("Mistakes       █▁  last session 0; all sessions 1"), "the undone activation is seen only with screens:\n\(text)")
        #expect(text.contains("  activate  6 times, held "), "\(text)")
        let json = try d.run(["stats", "--json"]).out
        let obj = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(obj?["sessions"] as? Int == 2)
        #expect((obj?["records"] as? [Any])?.count == 2)
        #expect((obj?["wpmTrend"] as? [Double])?.count == 2)
    }

    /// What `stats` says of real takes, in words a clinician reads: the face lost only where the tracker
    /// said so (apfel.csv: 35 rows without a face, in 7 runs) or where frames stopped for over a second (a
    /// real take with 1.5 s cut out), not where they were 0.4 s apart; no keystroke savings where no
    /// suggestion was taken (never a negative rate); the demo's suggestions save keys; a dwell the keymap
    /// binds to nothing is not listed.
    @Test(.enabled(if: hasTake && FileManager.default.fileExists(atPath: apfel), "needs .build/debug/handsfree and ../shared/data/face"))
    func statsOfRealTakesSayWhatHappenedInPlainWords() throws {
        let d = Dirs()
        try FileManager.default.createDirectory(atPath: d.root, withIntermediateDirectories: true)
        _ = try d.run(["replay", "--fast", "--events", "--screen-size", "100x30", Self.apfel])
        var (text, _) = try d.run(["stats"])
        #expect(text.contains("Face lost 7 times (no face seen, or no frames for over a second)"), "\(text)")
        #expect(text.contains("Word suggestions saved: — (no suggestion was taken)"), "\(text)")
        #expect(!text.contains("dwell"), "the default keymap binds no dwell:\n\(text)")
        #expect(!text.contains(" -"), "no negative figure:\n\(text)")

        // alex_rom_4.csv at 30 rows a second: 12 rows (0.4 s) cut from one place, 45 rows (1.5 s) from another.
        let rows = try String(contentsOfFile: Self.take, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        let cut = Array(rows[..<1000]) + Array(rows[1012..<2000]) + Array(rows[2045...])
        let gaps = d.root + "/gaps.csv"
        try cut.joined(separator: "\n").write(toFile: gaps, atomically: true, encoding: .utf8)
        _ = try d.run(["replay", "--fast", "--events", "--screen-size", "100x30", Self.take])
        _ = try d.run(["replay", "--fast", "--events", "--screen-size", "100x30", gaps])
        let losses = d.records().map { $0["faceLosses"] as? Int ?? -1 }
        #expect(losses == [7, 0, 1], "apfel, the whole take, the take with two gaps")

        _ = try d.run(["demo", "--headless"])
        let demo = d.records().last ?? [:]
        #expect((demo["ksr"] as? Double ?? 0) > 0 && (demo["charactersSelected"] as? Int ?? 0) > 0, "\(demo)")
        (text, _) = try d.run(["stats", "--explain"])
        #expect(text.contains("Face lost 8 times"), "\(text)")
        #expect(text.range(of: #"Word suggestions saved [0-9]+\.[0-9]% of the key presses"#, options: .regularExpression) != nil, "\(text)")
        for measure in ["wpm ", "KSPC ", "KSR ", "MSD "] {
            #expect(text.split(separator: "\n").filter { $0.hasPrefix(measure) }.count == 1, "--explain says what \(measure)means once")
        }
    }

    /// A damaged file: bad lines are skipped with file:line, good ones kept, and new records still written.
    @Test(.enabled(if: built, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func damagedMetricsFileSkipsBadLinesAndKeepsWriting() throws {
        let d = Dirs()
        let take = try Self.writeTake(in: d)
        _ = try d.run(["replay", "--fast", take])
        let good = (try? String(contentsOfFile: d.metrics, encoding: .utf8)) ?? ""
        #expect(!good.isEmpty)
        // A garbage line, then a record cut short by a crash (no newline).
        try (good + "not json at all\n" + "{\"kind\": \"run\", \"dur").write(toFile: d.metrics, atomically: true, encoding: .utf8)
        _ = try d.run(["replay", "--fast", take])
        let (out, err) = try d.run(["stats"])
        #expect(err.contains(d.metrics + ":2: skipped"))
        #expect(err.contains(d.metrics + ":3: skipped"))
        #expect(out.contains("2 sessions (2 replay)"), "the good record and the new one")
        #expect(d.records().count == 2)
    }

    /// A live run ended by SIGTERM still appends its record, marked run, with what the helper did.
    @Test(.enabled(if: built && Tmux.available, "needs .build/debug/handsfree and tmux"))
    func liveRunEndedBySignalAppendsARunRecord() throws {
        let d = Dirs()
        let session = Tmux(name: "hf-metrics-\(getpid())")
        defer { session.kill() }
        let env = d.env.map { "\($0.key)=\(Tmux.quote($0.value))" }.sorted().joined(separator: " ")
        try session.start("exec env \(env) \(Self.binary) run --no-onboarding --no-speech")
        #expect(session.waitFor { $0.first?.contains("Home") == true })
        session.keys("Right", "Enter")
        #expect(session.waitFor { $0.first?.contains("Home ›") == true })
        session.keys("Escape")
        #expect(session.waitFor { $0.first?.contains("Home ›") == false })
        let pid = try #require(session.panePID)
        kill(pid, SIGTERM)
        #expect(session.waitFor(seconds: 10) { _ in !session.exists })
        let r = d.records().last ?? [:]
        #expect(d.records().count == 1)
        #expect(r["kind"] as? String == "run")
        #expect(r["source"] as? String == "keyboard")
        #expect(r["actions"] as? Int == 2, "one open and one back")
    }

    /// A data folder that cannot be written: the replay still prints its events and says why nothing was saved.
    @Test(.enabled(if: built, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func unwritableDataFolderIsReportedAndTheSessionRunsOn() throws {
        let d = Dirs()
        try FileManager.default.createDirectory(atPath: d.root, withIntermediateDirectories: true)
        // A plain file where the data folder should be.
        try "".write(toFile: d.data, atomically: true, encoding: .utf8)
        let take = d.root + "/take.ndjson"
        try (0..<120).map { "{\"t\": \(Double($0) / 60), \"face\": true, \"blend\": {\"jawOpen\": 0.8}}" }
            .joined(separator: "\n").write(toFile: take, atomically: true, encoding: .utf8)
        let (out, err) = try d.run(["replay", "--fast", "--events", take])
        #expect(out.contains("\"frames\": 120"))
        #expect(err.contains("metrics not saved: cannot create \(d.data)"))
    }

    /// A take whose frames are a subnormal number of seconds apart: its record was "cannot encode" (issue 33).
    @Test(.enabled(if: built, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func aTakeLastingASubnormalTimeIsSavedAndReadBack() throws {
        let d = Dirs()
        try FileManager.default.createDirectory(atPath: d.root, withIntermediateDirectories: true)
        let take = d.root + "/denormal.ndjson"
        try ["0", "5e-324", "1e-323"].map { "{\"t\": \($0), \"face\": true, \"blend\": {\"jawOpen\": 0.2}}" }
            .joined(separator: "\n").write(toFile: take, atomically: true, encoding: .utf8)
        for args in [["replay", "--fast", take], ["replay", "--fast", "--events", "--screen-size", "100x30", take]] {
            let (out, err) = try d.run(args)
            #expect(out.contains("3 frames") || out.contains("\"frames\": 3"), "\(out)")
            #expect(!err.contains("metrics not saved"), "\(err)")
        }
        let rs = d.records()
        #expect(rs.count == 2)
        #expect(rs.allSatisfy { $0["source"] as? String == "denormal.ndjson" && $0["duration"] as? Double == 0 })
        #expect(rs.allSatisfy { $0["wpm"] as? Double == 0 })
        let (json, err) = try d.run(["stats", "--json"])
        #expect(err.isEmpty, "\(err)")
        let obj = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        #expect(obj?["sessions"] as? Int == 2)
        #expect(obj?["skipped"] as? Int == 0)
    }
}
