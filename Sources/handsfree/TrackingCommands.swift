import ArgumentParser
import Config
import FrameFormats
import Foundation
import Runtime
import Shell
import SystemIO
import Terminal
import TrackingCore
import Transport

/// Options shared by the commands that run the tracking pipeline.
struct PipelineOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(tr("Gesture config file (default: config/gestures.toml, else built in).")))
    var config: String?

    @Option(name: .customLong("set"), help: ArgumentHelp(tr("Override one value for this run, e.g. gesture.activate.press=0.55.")))
    var overrides: [String] = []

    /// The pipeline settings, or a `file:line:` error.
    func settings() throws -> PipelineSettings {
        try Setup.settings(config: config, overrides: overrides)
    }
}

/// Prints the first few problems of a run to standard error, then a count of the rest.
func reportIssues(_ stats: PipelineStats, source: String) {
    for issue in stats.issues { FileHandle.standardError.write(Data("\(source): \(issue)\n".utf8)) }
    if stats.malformed > stats.issues.count {
        FileHandle.standardError.write(Data((trn("{source}: … and {n} more problem", "{source}: … and {n} more problems", stats.malformed - stats.issues.count,
                                                 ["source": source]) + "\n").utf8))
    }
}

enum EventJSON {
    static func gesture(_ e: GestureEvent) -> String {
        var s = "{\"t\": \(NDJSONEncoder.fmt(e.t, 3)), \"gesture\": \"\(e.name)\""
        if let g = e.gaze { s += ", \"gaze\": [\(NDJSONEncoder.fmt(g.x, 3)), \(NDJSONEncoder.fmt(g.y, 3))]" }
        if let target = e.target { s += ", \"target\": \"\(target)\"" }
        return s + "}"
    }

    static func summary(_ s: PipelineStats, gestureNames: [String]) -> String {
        let counts = gestureNames.map { "\"\($0)\": \(s.gestures[$0, default: 0])" }.joined(separator: ", ")
        return "{\"summary\": {\"frames\": \(s.frames), \"faceLost\": \(s.faceLost), \"malformed\": \(s.malformed), \"gestures\": {\(counts)}}}"
    }
}

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: tr("Replay a recording through the tracking pipeline."),
        discussion: tr("Formats: native NDJSON, Live Link Face CSV takes, .gesichter containers of Live Link Face UDP packets."))

    @Argument(help: ArgumentHelp(tr("The recording."))) var file: String
    @Option(help: ArgumentHelp(tr("auto, ndjson, livelink-csv or livelink-udp."))) var format: String = "auto"
    @Flag(help: ArgumentHelp(tr("Print one JSON line per recognised gesture, then a summary line."))) var events = false
    @Option(help: ArgumentHelp(tr("Replay speed factor (1 = real time)."))) var speed: Double?
    @Flag(help: ArgumentHelp(tr("Replay as fast as possible."))) var fast = false
    @Option(help: ArgumentHelp(tr("Run the real screens headless at this size (e.g. 100x30) and print each action too.")))
    var screenSize: String?
    @Option(help: ArgumentHelp(tr("Keymap name or file for --screen-size (default: default)."))) var keymap: String?
    @OptionGroup var pipeline: PipelineOptions
    @Flag(help: ArgumentHelp(tr("Do not append this replay's usage record to metrics.ndjson."))) var noMetrics = false
    @Option(help: ArgumentHelp(tr("Folder for the usage record (default: $HANDSFREE_DATA_DIR, else $XDG_DATA_HOME/handsfree).")))
    var dataDir: String?

    func validate() throws {
        if screenSize != nil && !events { throw ValidationError(tr("--screen-size goes with --events")) }
        if keymap != nil && screenSize == nil { throw ValidationError(tr("--keymap goes with --screen-size")) }
        guard FrameFormat(rawValue: format) != nil else {
            throw ValidationError(tr("unknown format \"{name}\" (known: {known})", ["name": format, "known": FrameFormat.allCases.map(\.rawValue).joined(separator: ", ")]))
        }
        if let s = speed, !(s > 0) { throw ValidationError(tr("--speed must be above 0")) }
        if fast && speed != nil { throw ValidationError(tr("--fast and --speed cannot be used together")) }
    }

    func run() throws {
        let settings = try pipeline.settings()
        // Read as the replay goes: a recording is never held whole, however long or however far it expands.
        let items = try FrameFileReader(path: file, format: FrameFormat(rawValue: format) ?? .auto)
        let pace: ReplayPace = fast ? .fast : speed.map { .speed($0) } ?? .realTime
        let out = FileHandle.standardOutput
        let stats: PipelineStats
        var metrics = SessionMetrics()
        if let screenSize {
            // The real screens, headless: gestures and the actions they caused, from one pipeline run.
            let size = try Setup.size(screenSize)
            let km = try Setup.keymap(keymap, gestures: settings.gestures)
            var headless = HeadlessSession(keymap: km, settings: settings, size: size)
            Transport.replay(items, pace: pace) { item in
                let (gestures, actions) = headless.stepDetailed(item)
                var lines = gestures.map(EventJSON.gesture)
                lines += actions.map(\.json)
                if !lines.isEmpty { out.write(Data((lines.joined(separator: "\n") + "\n").utf8)) }
                return !headless.quit
            }
            stats = headless.session.pipeline.stats
            metrics = headless.session.metrics
        } else {
            var p = Pipeline(settings)
            Transport.replay(items, pace: pace) { item in
                let found = p.step(item)
                if case .frame(let f, _) = item { metrics.gestures(at: f.t, face: f.face, found) }
                for e in found {
                    let line = events ? EventJSON.gesture(e) : "\(NDJSONEncoder.fmt(e.t, 3))s  \(e.name)"
                    out.write(Data((line + "\n").utf8))
                }
                return true
            }
            stats = p.stats
        }
        reportIssues(stats, source: file)
        let paths = UserPaths.current(dataDir: dataDir)
        MetricsFile.save(metrics, kind: "replay", source: (file as NSString).lastPathComponent, paths: paths,
                         enabled: MetricsFile.enabled(noMetrics: noMetrics, paths: paths))
        let names = settings.gestures.map(\.name)
        if events {
            print(EventJSON.summary(stats, gestureNames: names))
        } else {
            let g = names.map { "\($0) \(stats.gestures[$0, default: 0])" }.joined(separator: ", ")
            print("\(stats.frames) frames, \(stats.faceLost) without a face, \(stats.malformed) malformed; \(g)")
        }
    }
}

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: tr("Save a live source as native NDJSON."))

    @Option(help: ArgumentHelp(tr("udp://127.0.0.1:11111 or tcp://127.0.0.1:7007."))) var listen: String
    @Option(help: ArgumentHelp(tr("The NDJSON file to write."))) var out: String
    @Option(help: ArgumentHelp(tr("Stop after this many seconds of wall time."))) var duration: Double?
    @Option(help: ArgumentHelp(tr("Stop after this many frames."))) var frames: Int?
    @OptionGroup(title: tr("Live input")) var live: LiveInputOptions

    func run() throws {
        let source = try live.open(listen)
        guard FileManager.default.createFile(atPath: out, contents: nil),
              let handle = FileHandle(forWritingAtPath: out) else {
            throw ValidationError(tr("{file}: cannot be written", ["file": out]))
        }
        defer { try? handle.close() }
        // SIGINT, SIGTERM and SIGHUP end the loop between frames, so the file ends with a whole line.
        _ = Terminal.installSignalPipe()
        var stopSignal: Int32?
        FileHandle.standardError.write(Data((tr("recording {address} to {file}…", ["address": "\(source.address)", "file": out]) + "\n").utf8))
        let clock = LiveClock()
        let start = clock.now()
        var count = 0
        var bad = 0
        while true {
            if let d = duration, clock.now() - start >= d { break }
            if let f = frames, count >= f { break }
            if let sig = Terminal.pendingSignal() { stopSignal = sig; break }
            for item in source.poll(timeoutMs: 100) {
                switch item {
                case .frame(let f, _):
                    handle.write(Data((NDJSONEncoder.encode(f) + "\n").utf8))
                    count += 1
                case .malformed(let issue):
                    bad += 1
                    if bad <= PipelineStats.maxIssues { FileHandle.standardError.write(Data("\(source.address): \(issue)\n".utf8)) }
                }
            }
        }
        try? handle.synchronize()
        var wrote = source.dropped > 0
            ? trn("wrote {n} frame ({bad} malformed skipped, {shed} shed in floods)", "wrote {n} frames ({bad} malformed skipped, {shed} shed in floods)",
                  count, ["bad": "\(bad)", "shed": "\(source.dropped)"])
            : trn("wrote {n} frame ({bad} malformed skipped)", "wrote {n} frames ({bad} malformed skipped)", count, ["bad": "\(bad)"])
        if let sig = stopSignal { wrote += "; " + tr("stopped by signal {signal}", ["signal": "\(sig)"]) }
        FileHandle.standardError.write(Data((wrote + "\n").utf8))
        if let sig = stopSignal { throw ExitCode(128 + sig) }
    }
}

struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: tr("Validate gesture config and keymap files."),
        discussion: tr("Each file is read as a gesture config or a keymap by its top-level tables ([gesture.…], [smoothing], [gaze] or [global], [screen.…], [options], …), else by its folder (config/ or keymaps/); the output says which. Keymaps are checked against the project's gesture config."))

    @Argument(help: ArgumentHelp(tr("Config (config/*.toml) or keymap (keymaps/*.toml) files."))) var files: [String]
    @Option(help: ArgumentHelp(tr("Check keymaps against this gesture config (a file or a name in config/; default: what the keymap names, else gestures).")))
    var config: String?
    @Option(help: ArgumentHelp(tr("Also say which bound gestures this source cannot make (livelink, ifacialmocap, mediapipe, openseeface, vmc).")))
    var source: String?

    func run() throws {
        var failed = false
        for file in files {
            do {
                let text = try Setup.readText(file)
                let doc: TOMLDocument
                do { doc = try TOMLDocument(text: text, file: file) } catch { throw SetupError(error) }
                let (kind, why) = try Self.kind(of: doc.root, file: file)
                do {
                    switch kind {
                    case .config:
                        let s = try GestureConfig.parse(text, file: file)
                        print(trn("{file}: ok, a gesture config ({why}): {n} gesture: {names}", "{file}: ok, a gesture config ({why}): {n} gestures: {names}",
                                  s.gestures.count, ["file": file, "why": why, "names": s.gestures.map(\.name).joined(separator: ", ")]))
                    case .keymap:
                        let gestures = try Setup.settings(config: config ?? Setup.keymapConfig(file)).gestures
                        let k = try Setup.parseKeymap(text, file: file, gestures: gestures)
                        print(trn("{file}: ok, a keymap ({why}): \"{name}\", {n} gesture, {phrases} phrases",
                                  "{file}: ok, a keymap ({why}): \"{name}\", {n} gestures, {phrases} phrases", k.global.gestures.count,
                                  ["file": file, "why": why, "name": k.name, "phrases": "\(k.allPhrases.count)"]))
                        if let name = source {
                            guard let caps = SourceCapabilities.named(name) else {
                                throw SetupError(tr("unknown source \"{name}\" (known: {known})", ["name": name, "known": SourceCapabilities.all.map(\.name).joined(separator: ", ")]))
                            }
                            let problems = caps.problems(gestures: gestures, bound: k.boundGestures)
                            if problems.isEmpty {
                                print(tr("{file}: {source} can make every gesture it binds", ["file": file, "source": name]))
                            } else {
                                for p in problems { print(tr("{file}: with {source}: {problem}", ["file": file, "source": name, "problem": "\(p)"])) }
                                failed = true
                            }
                        }
                    }
                } catch let e as ConfigError {
                    print(e.shown.shown)
                    print(kind == .config ? tr("{file}: checked as a gesture config ({why})", ["file": file, "why": why])
                                          : tr("{file}: checked as a keymap ({why})", ["file": file, "why": why]))
                    failed = true
                }
            } catch {
                print((error as? SetupError)?.message.shown ?? "\(error)")
                failed = true
            }
        }
        if failed { throw ExitCode(1) }
    }

    enum Kind { case config, keymap }

    /// Tells a gesture config from a keymap by the tables the file holds (comments do not count), falling
    /// back on its folder or name when it holds neither or both.
    static func kind(of root: [String: TOMLNode], file: String) throws -> (Kind, String) {
        let configKeys = GestureConfig.sections, keymapKeys = Keymap.topLevelKeys
        let c = root.keys.filter(configKeys.contains).sorted(), k = root.keys.filter(keymapKeys.contains).sorted()
        if !c.isEmpty && k.isEmpty { return (.config, tr("it has {tables}", ["tables": c.joined(separator: ", ")])) }
        if !k.isEmpty && c.isEmpty { return (.keymap, tr("it has {tables}", ["tables": k.joined(separator: ", ")])) }
        let url = URL(fileURLWithPath: file)
        let folder = url.deletingLastPathComponent().lastPathComponent
        if folder == "keymaps" { return (.keymap, tr("it is in a keymaps folder")) }
        if folder == "config" || url.lastPathComponent == "gestures.toml" { return (.config, tr("it is a config file by its place")) }
        if !c.isEmpty {
            throw SetupError(tr("{file}: holds both gesture config tables ({config}) and keymap tables ({keymap}); a file is one or the other",
                                ["file": file, "config": c.joined(separator: ", "), "keymap": k.joined(separator: ", ")]))
        }
        throw SetupError(tr("{file}: holds neither gesture config tables ({config}) nor keymap tables ({keymap}), so it is neither",
                            ["file": file, "config": configKeys.joined(separator: ", "), "keymap": keymapKeys.joined(separator: ", ")]))
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: tr("Run the tracking pipeline on a live source and print each gesture as it is recognised."))

    @Option(help: ArgumentHelp(tr("udp://127.0.0.1:11111 or tcp://127.0.0.1:7007."))) var listen: String
    @Option(help: ArgumentHelp(tr("Stop after this many seconds of wall time."))) var duration: Double?
    @OptionGroup var pipeline: PipelineOptions
    @OptionGroup(title: tr("Live input")) var live: LiveInputOptions

    func run() throws {
        let settings = try pipeline.settings()
        let source = try live.open(listen)
        // SIGINT, SIGTERM and SIGHUP end the loop; the summary is still printed.
        _ = Terminal.installSignalPipe()
        FileHandle.standardError.write(Data("listening on \(source.address)…\n".utf8))
        var p = Pipeline(settings)
        var reported = 0
        let clock = LiveClock()
        let start = clock.now()
        var stopSignal: Int32?
        while duration.map({ clock.now() - start < $0 }) ?? true {
            if let sig = Terminal.pendingSignal() { stopSignal = sig; break }
            for item in source.poll(timeoutMs: 100) {
                for e in p.step(item) { FileHandle.standardOutput.write(Data((EventJSON.gesture(e) + "\n").utf8)) }
            }
            // Report problems as they come, with their packet or line, without flooding the terminal.
            while reported < p.stats.issues.count {
                FileHandle.standardError.write(Data("\(source.address): \(p.stats.issues[reported])\n".utf8))
                reported += 1
            }
        }
        print(EventJSON.summary(p.stats, gestureNames: settings.gestures.map(\.name)))
        if let sig = stopSignal { throw ExitCode(128 + sig) }
    }
}
