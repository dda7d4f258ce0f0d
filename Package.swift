// swift-tools-version: 6.0
//
// HotPotato has no package dependencies: Foundation (and FoundationNetworking on Linux) only.
// Benchmarks live in a separate package under Benchmarks/ so that this stays true.

import PackageDescription

let package = Package(
    name: "HotPotato",
    platforms: [
        .macOS(.v12),
        .iOS(.v15),
        .tvOS(.v15),
        .watchOS(.v8),
    ],
    products: [
        .library(name: "HotPotato", targets: ["HotPotato"]),
        // The command-line downloader: `swift run potato get URL -o FILE`.
        .executable(name: "potato", targets: ["potato"]),
    ],
    targets: [
        // Loads libcurl at run time (dlopen): no curl headers or package needed to build.
        .target(
            name: "CCurl",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        // The JSON parser's string scan and UTF-8 check, sixteen bytes at a time on x86_64.
        .target(name: "CJSONScan"),
        .target(
            name: "HotPotato",
            dependencies: ["CCurl", "CJSONScan"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "potato",
            dependencies: ["HotPotato"],
            exclude: ["README.md"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // A helper the tests run in a process of its own, where peak memory can be measured.
        .executableTarget(
            name: "hotpotato-probe",
            dependencies: ["HotPotato"],
            path: "Tests/Probe",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .testTarget(
            name: "HotPotatoTests",
            dependencies: ["HotPotato", "CJSONScan", "hotpotato-probe", "potato"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
