// swift-tools-version: 6.1
//
// HotPotato's benchmarks: a separate package, so that the library itself keeps no dependencies.
//
//   swift run -c release hotpotato-e2e --smoke     end-to-end against nginx on 127.0.0.1, small sizes
//   swift run -c release hotpotato-e2e             the full run (1 MiB, 100 MiB, 1 GiB; 5 runs each)
//
// See BENCHMARKS.md at the top of the repository for results and how to read them.

import PackageDescription

let package = Package(
    name: "HotPotatoBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "HotPotato", path: ".."),
    ],
    targets: [
        // Measures a child's peak memory and CPU from a process small enough not to skew them.
        .executableTarget(name: "rusage-exec", path: "Sources/RusageExec"),
        .executableTarget(
            name: "hotpotato-e2e",
            dependencies: [.product(name: "HotPotato", package: "HotPotato")],
            path: "Sources/HotPotatoE2E",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
