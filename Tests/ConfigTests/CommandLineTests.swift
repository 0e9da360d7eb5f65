import Foundation
import Testing

/// `handsfree check`, `run` and `transcribe` on broken files, through the built binary: the message names the
/// file (and line), the exit status is 1, and no usage text hides it.
struct CommandLineFileErrorTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let binary = root + "/.build/debug/handsfree"
    static let ready = FileManager.default.isExecutableFile(atPath: binary)
    static let model = "/usr/share/pocketsphinx/model/en-us/en-us"

    struct Result { var status: Int32; var out: String; var err: String }

    func handsfree(_ args: [String]) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = args
        p.currentDirectoryURL = URL(fileURLWithPath: Self.root)
        var env = ProcessInfo.processInfo.environment
        env["XDG_STATE_HOME"] = try dir(); env["XDG_CONFIG_HOME"] = try dir(); env["HANDSFREE_DATA_DIR"] = try dir()
        p.environment = env
        let out = Pipe(), err = Pipe()
        p.standardOutput = out; p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Result(status: p.terminationStatus, out: String(decoding: o, as: UTF8.self), err: String(decoding: e, as: UTF8.self))
    }

    func dir() throws -> String {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("hf-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    func file(_ name: String, _ text: String) throws -> String {
        let path = try dir() + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func checkRefusesAnEmptyKeymap() throws {
        let km = try file("empty.toml", "name = \"empty\"\n")
        let r = try handsfree(["check", km])
        #expect(r.status == 1)
        #expect(r.out.contains("\(km): no gesture is bound to \"activate\""), "\(r.out)")
        #expect(r.out.contains("checked as a keymap"), "\(r.out)")
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func checkIsNotFooledByAComment() throws {
        let km = try file("k.toml", "# copied from [gesture.activate] in config/gestures.toml\nname = \"k\"\n"
                          + "[global.gestures]\nactivate = \"activate\"\nback = \"back\"\n")
        let r = try handsfree(["check", km])
        #expect(r.status == 0, "\(r.out)")
        #expect(r.out.contains("\(km): ok, a keymap"), "\(r.out)")
        let cfg = try file("g.toml", "# a keymap's [global] table is not here\n[gesture.a]\nshape = \"jawOpen\"\npress = 0.5\n")
        let c = try handsfree(["check", cfg])
        #expect(c.status == 0 && c.out.contains("\(cfg): ok, a gesture config"), "\(c.out)")
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func checkRejectsBadValuesWithTheirLine() throws {
        let cases: [(String, String, String)] = [
            ("g.toml", "[gaze]\nyaw_range = [nan, 0.35]\n[gesture.a]\nshape = \"jawOpen\"\npress = 0.5\n", ":2: yaw_range"),
            ("k.toml", "[options]\nwake_phrase = \"123 !!\"\n[global.gestures]\nactivate = \"activate\"\nback = \"back\"\n",
             ":2: wake_phrase \"123 !!\" must be words"),
            ("k.toml", "[global.gestures]\nactivate = \"activate\"\nback = \"back\"\n[keyboard]\nrows = ["
             + Array(repeating: "\"ab\"", count: 40).joined(separator: ", ") + "]\n", ":5: 40 keyboard rows do not fit"),
            ("k.toml", "[global.gestures]\nactivate = \"activate\"\nback = \"back\"\n[keyboard]\nrows = [\"a\\u0000b\"]\n", ":5: a NUL"),
        ]
        for (name, text, expected) in cases {
            let path = try file(name, text)
            let r = try handsfree(["check", path])
            #expect(r.status == 1 && r.out.contains(path + expected), "\(r.out)")
        }
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func checkSaysWhichBoundGesturesASourceCannotMake() throws {
        let def = Self.root + "/keymaps/default.toml", cam = Self.root + "/keymaps/webcam.toml"
        let mp = try handsfree(["check", "--source", "mediapipe", def])
        #expect(mp.status == 1 && mp.out.contains("\(def): with mediapipe: commit needs tongueOut, which mediapipe does not produce"), "\(mp.out)")
        // The webcam keymap names its config (config/webcam.toml) and commits with pursed lips.
        let ok = try handsfree(["check", "--source", "mediapipe", cam])
        #expect(ok.status == 0 && ok.out.contains("mediapipe can make every gesture it binds"), "\(ok.out)")
        let osf = try handsfree(["check", "--source", "openseeface", def])
        #expect(osf.status == 1 && osf.out.contains("back reads eyeBlinkRight, eyeBlinkLeft, which openseeface reports unreliably"), "\(osf.out)")
        let bad = try handsfree(["check", "--source", "kinect", def])
        #expect(bad.status == 1 && bad.out.contains("unknown source \"kinect\" (known: livelink, ifacialmocap, mediapipe, openseeface, vmc)"), "\(bad.out)")
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func aMissingConfigExitsOneWithoutUsage() throws {
        let r = try handsfree(["run", "--config", "/nonexistent/gestures.toml", "--no-speech"])
        #expect(r.status == 1)
        #expect(r.err == "handsfree: /nonexistent/gestures.toml: no such file\n", "\(r.err)")
        #expect(!r.err.contains("USAGE") && !r.err.contains("Usage"))
    }

    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func anEmptyConfigIsBlamedNotTheKeymap() throws {
        let cfg = try file("empty.toml", "")
        let r = try handsfree(["run", "--config", cfg, "--no-speech"])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("handsfree: \(cfg): defines no gestures"), "\(r.err)")
        #expect(!r.err.contains("keymaps/default.toml"))
    }

    @Test(.enabled(if: ready && FileManager.default.fileExists(atPath: model), "needs .build/debug/handsfree and the PocketSphinx en-us model"))
    func transcribeNamesABadGrammarFile() throws {
        let wav = Self.root + "/../shared/data/missing.wav"
        let missing = try handsfree(["transcribe", "--grammar", "/nonexistent/cmd.gram", wav])
        #expect(missing.status == 1)
        #expect(missing.err.contains("/nonexistent/cmd.gram: no such file"), "\(missing.err)")
        #expect(!missing.err.contains("NSCocoaErrorDomain"))
        let bad = try file("bad.gram", "#JSGF V1.0;\ngrammar x;\npublic <a> = ( hello | ;\n")
        let r = try handsfree(["transcribe", "--grammar", bad, wav])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("handsfree: \(bad): "), "\(r.err)")
        let binary = try file("bin.gram", "")
        try Data([0xff, 0xfe, 0x00]).write(to: URL(fileURLWithPath: binary))
        let b = try handsfree(["transcribe", "--grammar", binary, wav])
        #expect(b.status == 1 && b.err.contains("\(binary): is not UTF-8 text"), "\(b.err)")
    }
}

extension CommandLineFileErrorTests {
    @Test(.enabled(if: ready, "needs .build/debug/handsfree (swift build --product handsfree)"))
    func endlessOrOddFilesAreRefusedByName() throws {
        let zero = try handsfree(["check", "/dev/zero"])
        #expect(zero.status == 1 && zero.out == "/dev/zero: is larger than 1 MB, too big for a text file of settings\n",
                "\(zero.out)")
        let folder = try dir()
        let f = try handsfree(["run", "--config", folder, "--no-speech"])
        #expect(f.status == 1 && f.err == "handsfree: \(folder): is a folder, not a file\n", "\(f.err)")
    }
}

extension CommandLineFileErrorTests {
    @Test(.enabled(if: ready && FileManager.default.fileExists(atPath: model), "needs .build/debug/handsfree and the PocketSphinx en-us model"))
    func transcribeNamesABrokenKeymapWithoutUsage() throws {
        let km = try file("k.toml", "name = \"k\"\n")
        let r = try handsfree(["transcribe", "--keymap", km, Self.root + "/../shared/data/missing.wav"])
        #expect(r.status == 1)
        #expect(r.err.hasPrefix("handsfree: \(km): no gesture is bound to \"activate\""), "\(r.err)")
        #expect(!r.err.contains("Usage"))
    }
}
