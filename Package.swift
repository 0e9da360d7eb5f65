// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "HandsFreeShell",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "handsfree", targets: ["handsfree"]),
        // For FuzzTesting/ (a package beside this one that imports the parsers it fuzzes).
        .library(name: "TrackingCore", targets: ["TrackingCore"]),
        .library(name: "FrameFormats", targets: ["FrameFormats"]),
        .library(name: "Config", targets: ["Config"]),
        .library(name: "Prediction", targets: ["Prediction"]),
        .library(name: "Shell", targets: ["Shell"]),
        .library(name: "PtyHost", targets: ["PtyHost"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        // C libraries, each behind a system-library module with its apt provider.
        .systemLibrary(name: "CPocketSphinx", pkgConfig: "pocketsphinx",
                       providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        // flite in the process (the slt voice); Debian ships no pkg-config file, so the module map links it.
        .systemLibrary(name: "CFlite", providers: [.apt(["flite1-dev"])]),
        // No pkgConfig: ncursesw's cflags are -D feature macros SwiftPM refuses (a warning on every build);
        // the shim header defines them and the module map links the libraries pkg-config names.
        .systemLibrary(name: "CNcursesw", providers: [.apt(["libncurses-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libdeflate: whole small .gesichter containers in one call (zlib streams the large ones).
        .systemLibrary(name: "CDeflate", pkgConfig: "libdeflate", providers: [.apt(["libdeflate-dev"])]),
        .systemLibrary(name: "CVTerm", pkgConfig: "vterm", providers: [.apt(["libvterm-dev"])]),
        .systemLibrary(name: "CX11", pkgConfig: "xtst", providers: [.apt(["libx11-dev", "libxtst-dev"])]),
        // Wayland's client library and xkbcommon; CVirtualKeyboard holds the virtual-keyboard protocol's tables.
        .systemLibrary(name: "CWayland", pkgConfig: "wayland-client",
                       providers: [.apt(["libwayland-dev", "libxkbcommon-dev"])]),
        .target(name: "CVirtualKeyboard", dependencies: ["CWayland"]),
        // The accessibility bus (AT-SPI) through libatspi, the library screen readers use: the Controls view.
        .systemLibrary(name: "CAtspi", pkgConfig: "atspi-2", providers: [.apt(["libatspi2.0-dev"])]),
        // The uinput device and the pure encoder of the events written to it.
        .target(name: "CUinput"),
        // Spawning a child on a pty: fork/exec must happen in C, never in Swift.
        .target(name: "CPty"),

        // The system calls modules that must not depend on each other share: the monotonic and thread CPU clocks,
        // and the durable file write (UserFiles' files and Prediction's user words).
        .target(name: "SystemIO"),
        // Pure core: frames, filters, gesture detectors, gaze mapping. Foundation only.
        .target(name: "TrackingCore"),
        // Decoders and encoders for frame formats.
        .target(name: "FrameFormats", dependencies: ["TrackingCore", "CZlib", "CDeflate"]),
        // Config and keymap files (TOML) with file:line errors.
        .target(name: "Config", dependencies: ["TrackingCore", "TerminalModel", "SpeechText", "Localization"]),
        // Live sources over loopback sockets, and paced replay.
        .target(name: "Transport", dependencies: ["TrackingCore", "FrameFormats", "SystemIO",
                                                  .product(name: "Logging", package: "swift-log")]),
        // Word prediction. Foundation, and SystemIO to save the user's words durably.
        // Optimised in debug builds too: loading the 17 MB n-gram file unoptimised takes ~5 s, not ~0.6 s, and
        // README's first command runs a debug build.
        .target(name: "Prediction", dependencies: ["SystemIO", "Localization"], swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // Speech's pure parts: dictation editing, spoken numbers, the command grammar. Foundation only, so the
        // Shell keeps dictation state as a real value.
        .target(name: "SpeechText"),
        // Translations as a value: gettext's .po and .mo formats read, plural rules, placeholders, the
        // language choice. Pure (no Foundation, no I/O): the runtime reads the files, the state holds the catalog.
        .target(name: "Localization"),
        // Speech recognition and audio capture; speech output (flite, the Piper worker, ALSA playback).
        .target(name: "Speech", dependencies: ["SpeechText", "Localization", "CPocketSphinx", "CALSA", "CFlite", "SystemIO",
                                               .product(name: "Logging", package: "swift-log")]),
        // The cell UI both the Shell and the curses backend speak: the cell grid, geometry, the hit map, the
        // canvas and its drawing primitives, and the keys a helper presses. Pure.
        .target(name: "CellUI", dependencies: ["TrackingCore", "TerminalModel", "Localization"]),
        // App state, screens, widgets, reducer. Pure.
        .target(name: "Shell", dependencies: ["CellUI", "TrackingCore", "Config", "Prediction", "TerminalModel", "SpeechText", "Localization"]),
        // Puts the terminal back after a crash (a signal handler in C: async-signal-safe calls only).
        .target(name: "CTerminalGuard"),
        // The only importer of curses: draws a CellUI grid and reads keys; knows nothing of the Shell.
        .target(name: "Terminal", dependencies: ["CNcursesw", "CTerminalGuard", "CellUI"]),
        // A child program on a pseudo-terminal, and its screen emulated by libvterm.
        .target(name: "PtyHost", dependencies: ["CPty", "CVTerm", "TerminalModel", "SystemIO", "Localization"]),
        // What a hosted terminal shows and the keys sent to it, as values: the pure Shell draws and sends them.
        .target(name: "TerminalModel", dependencies: ["Localization"]),
        // Where typed text and pointer events go: a pty, a tmux pane, X11 (XTest), Wayland (virtual keyboard
        // and pointer), uinput. The protocol is split by capability (typing, pointing, hosting a pane).
        .target(name: "Sinks", dependencies: [
            "PtyHost", "TerminalModel", "SystemIO", "CX11", "CWayland", "CVirtualKeyboard", "CUinput", "CPty", "Localization",
        ]),
        // The files and folders the shell keeps for its user (settings, unsent text, calibrations, metrics, the
        // last good settings, the command line's files) and the project's paths (word lists, the Python env, the
        // face model). Reads and writes files; knows nothing of the loop.
        .target(name: "UserFiles", dependencies: ["Shell", "Config", "Localization", "TrackingCore", "Prediction", "Speech", "SystemIO"]),
        // The live services the loop asks: speech recognition (live and offline), its packs and setup, word
        // prediction, language packs and translations. Threads and files; no event source, no loop.
        .target(name: "LiveServices", dependencies: [
            "UserFiles", "Shell", "Config", "Prediction", "Speech", "SpeechText", "Localization", "SystemIO",
        ]),
        // The desktop's controls for the Controls view: the accessibility bus (AT-SPI) client, the sway tree,
        // and the thread that reads them. The only importer of CAtspi; no event source, no loop.
        .target(name: "Controls", dependencies: ["Shell", "Localization", "SystemIO", "CAtspi"]),
        // The live shell: the event loop, its sources (terminal, frames, speech, prediction, the speaker, the
        // webcam, the desktop's controls, setup) and the effect runner. Re-exports Sinks, UserFiles,
        // LiveServices and Controls, so the commands and tests import it alone.
        .target(name: "Runtime", dependencies: [
            "TrackingCore", "FrameFormats", "Config", "Transport", "Prediction", "Speech", "Shell", "Terminal",
            "PtyHost", "Sinks", "UserFiles", "LiveServices", "Controls", "SystemIO", "Localization", "SpeechText",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Every `handsfree bench` harness and the peers it measures against (tmux, pocketsphinx_continuous),
        // as a library so tests can run a harness; the commands only parse options and print.
        .target(name: "Benchmarks", dependencies: [
            "TrackingCore", "FrameFormats", "Config", "Transport", "Prediction", "Speech", "Shell", "Terminal",
            "TerminalModel", "PtyHost", "Runtime", "SystemIO", "Localization",
        ]),
        // Argument parsing and wiring only.
        .executableTarget(name: "handsfree", dependencies: [
            "TrackingCore", "FrameFormats", "Config", "Transport", "Prediction", "Speech", "Shell", "Terminal",
            "PtyHost", "Runtime", "Benchmarks", "SystemIO", "Localization",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log"),
        ]),

        .testTarget(name: "TrackingCoreTests", dependencies: ["TrackingCore"]),
        // Fixtures/ holds recorded datagrams the tests read by path (#filePath), not as resources.
        // CZlib: the gzip-bomb tests deflate hundreds of MB a piece at a time, never holding them.
        .testTarget(name: "FrameFormatsTests", dependencies: ["FrameFormats", "TrackingCore", "Config", "CZlib"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "ConfigTests", dependencies: ["Config", "TrackingCore"]),
        .testTarget(name: "TransportTests", dependencies: ["Transport", "FrameFormats", "TrackingCore", "Config", "SystemIO"]),
        .testTarget(name: "PredictionTests", dependencies: ["Prediction", "Localization"]),
        .testTarget(name: "SpeechTests", dependencies: ["Speech", "SpeechText", "SystemIO", "Localization"]),
        // Fixtures/ holds .po files with mistakes on known lines; the .mo files are made by msgfmt in the test.
        .testTarget(name: "LocalizationTests", dependencies: ["Localization"], exclude: ["Fixtures"]),
        .testTarget(name: "ShellTests", dependencies: ["Shell", "TrackingCore", "Config", "TerminalModel", "Localization", "SpeechText"], exclude: ["Golden"]),
        .testTarget(name: "EndToEndTests", dependencies: []),
        .testTarget(name: "PtyHostTests", dependencies: ["PtyHost", "SystemIO", "Localization"]),
        .testTarget(name: "CommandTests", dependencies: [
            "handsfree", "Runtime", "Shell", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "BenchmarksTests", dependencies: ["Benchmarks", "FrameFormats", "TrackingCore", "Config", "Prediction",
                                                         "Runtime", "Shell", "Speech", "SpeechText", "LiveServices"]),
        .testTarget(name: "RuntimeTests", dependencies: ["Runtime", "Shell", "Localization", "TrackingCore", "FrameFormats", "Config", "Terminal", "PtyHost",
                                                     "Sinks", "UserFiles", "LiveServices", "Controls", "SystemIO", "CUinput", "TerminalModel", "Speech", "CX11"]),
    ],
    swiftLanguageModes: [.v6]
)
