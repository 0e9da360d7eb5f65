// swift-tools-version:6.0
// libFuzzer targets for HandsFree Shell's parsers; see README.md here and scripts/fuzz.sh.
// Build: swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld
import PackageDescription

let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
    ("FuzzNDJSON", [.product(name: "FrameFormats", package: "HandsFreeShell"), "FuzzDriver", "FuzzSupport"]),
    ("FuzzLiveLinkCSV", [.product(name: "FrameFormats", package: "HandsFreeShell"), "FuzzDriver", "FuzzSupport"]),
    ("FuzzLiveLinkUDP", [.product(name: "FrameFormats", package: "HandsFreeShell"), "FuzzDriver", "FuzzSupport"]),
    ("FuzzGesichter", [.product(name: "FrameFormats", package: "HandsFreeShell"), "FuzzDriver", "FuzzSupport"]),
    ("FuzzTrackers", [.product(name: "FrameFormats", package: "HandsFreeShell"), "FuzzDriver", "FuzzSupport"]),
    ("FuzzConfig", [.product(name: "Config", package: "HandsFreeShell"), "FuzzDriver"]),
    ("FuzzPredictor", [.product(name: "Prediction", package: "HandsFreeShell"), "FuzzDriver"]),
    ("FuzzStorage", [.product(name: "Shell", package: "HandsFreeShell"), "FuzzDriver"]),
    ("FuzzTerminal", [.product(name: "PtyHost", package: "HandsFreeShell"), "FuzzDriver"]),
    ("FuzzFastPath", [.product(name: "PtyHost", package: "HandsFreeShell"), "FuzzDriver"]),
]

let package = Package(
    name: "FuzzTesting",
    dependencies: [.package(name: "HandsFreeShell", path: "..")],
    targets: [
        .systemLibrary(name: "CLibFuzzer"),
        // Starting libFuzzer's driver from a target's top-level code.
        .target(name: "FuzzDriver", dependencies: ["CLibFuzzer"]),
        // What the frame-decoder targets share: running decoded items through the pipeline and the shell.
        .target(name: "FuzzSupport", dependencies: [
            .product(name: "TrackingCore", package: "HandsFreeShell"),
            .product(name: "FrameFormats", package: "HandsFreeShell"),
            .product(name: "Config", package: "HandsFreeShell"),
            .product(name: "Shell", package: "HandsFreeShell"),
        ]),
    ] + fuzzTargets.map { .executableTarget(name: $0.name, dependencies: $0.dependencies) },
    swiftLanguageModes: [.v6]
)
