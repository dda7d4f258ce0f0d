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
        // Checksums of downloads: CommonCrypto on Apple platforms, OpenSSL's libcrypto found or
        // loaded at run time on Linux (dlopen): no OpenSSL headers or package needed to build.
        .target(
            name: "CDigest",
            linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]
        ),
        .target(
            name: "HotPotato",
            dependencies: ["CCurl", "CJSONScan", "CDigest"],
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
        // The tests, in four targets so that Tests/run-all.sh can run each kind in a pass of its
        // own (`swift test --filter '^HotPotatoCPUBoundTests\.'`); a plain `swift test` runs them
        // all. Their shared helpers (fixtures, the test servers, deadlines) are a test target
        // without tests, `HotPotatoTestSupport`, that the others `@testable import`: a test target,
        // so that `swift build` and `swift build -c release` never build it (it needs
        // `@testable import HotPotato`, which only a testing build allows).
        .testTarget(
            name: "HotPotatoTestSupport",
            dependencies: ["HotPotato"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The ordinary suites: handlers, JSON, transport against both engines, the potato command.
        .testTarget(
            name: "HotPotatoTests",
            dependencies: ["HotPotato", "HotPotatoTestSupport", "potato"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The suites that grind through exhaustive or random inputs (string scan, UTF-8 check,
        // chunking, number parsing, random documents): seconds of synchronous CPU each.
        .testTarget(
            name: "HotPotatoCPUBoundTests",
            dependencies: ["HotPotato", "CJSONScan", "HotPotatoTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Peak-memory bounds, measured in `hotpotato-probe` processes; they skip themselves unless
        // HOTPOTATO_MEMORY_TESTS=1.
        .testTarget(
            name: "HotPotatoMemoryTests",
            dependencies: ["HotPotato", "HotPotatoTestSupport", "hotpotato-probe"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The seeded randomized fault soak (HOTPOTATO_SOAK_* switches; see FaultSoakTests.swift).
        .testTarget(
            name: "HotPotatoSoakTests",
            dependencies: ["HotPotato", "HotPotatoTestSupport"],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
