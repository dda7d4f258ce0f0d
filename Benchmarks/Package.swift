// swift-tools-version: 6.1
//
// HotPotato's benchmarks: a separate package, so that the library itself keeps no dependencies.
//
// End to end, against nginx on 127.0.0.1 (see BENCHMARKS.md at the top of the repository):
//   ./run-e2e.sh                                                    the full run
//   ./run-e2e.sh --smoke --no-ahc                                   small sizes, one run each
// JSON against Foundation (parse, decode, peak memory, last chunk to value):
//   swift build -c release --product hotpotato-json --product rusage-exec
//   .build/release/hotpotato-json                                  (--smoke for a quick check)
// Microbenchmarks (ordo-one/benchmark), handlers fed in memory:
//   swift package benchmark
//   swift package benchmark thresholds check --path Thresholds/6.3  malloc counts against Thresholds/<Swift version>/
// Scale (many event streams, head-of-line blocking, fan-out) against bench-server, a SwiftNIO
// server of the benchmarks' own on 127.0.0.1…127.0.0.200 (see BENCHMARKS.md):
//   ./run-e2e.sh --scale                                            N = 1 000 and 10 000
//   ./run-e2e.sh --scale --smoke --no-ahc                           small sizes

import PackageDescription

let benchmarkTargets = ["HandlerThroughput", "FileWriting", "TextDecoding", "JSONParsing", "SmallRequests"]

let package = Package(
    name: "HotPotatoBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "HotPotato", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    ],
    targets: [
        .executableTarget(
            name: "hotpotato-e2e",
            dependencies: [.product(name: "HotPotato", package: "HotPotato"), "BenchmarkFixtures", "ScaleKit"],
            path: "Sources/HotPotatoE2E",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The AsyncHTTPClient peers of the end-to-end run, in an executable of their own so that
        // the smoke run does not have to build SwiftNIO.
        .executableTarget(
            name: "ahc-e2e",
            dependencies: [.product(name: "AsyncHTTPClient", package: "async-http-client"), "ScaleKit"],
            path: "Sources/AHCE2E",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // What every client process of the scale scenarios shares: the scenario drivers, their
        // time limits and their report lines. Foundation only, so that it adds nothing to a
        // client's memory that the client does not load itself.
        .target(
            name: "ScaleKit",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The scale scenarios' server: event streams, delayed and small answers, on loopback
        // addresses only (127.0.0.1 … 127.0.0.N standing for N hosts).
        .executableTarget(
            name: "bench-server",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                "ScaleKit",
            ],
            path: "Sources/BenchServer",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .target(
            name: "BenchmarkFixtures",
            dependencies: [.product(name: "HotPotato", package: "HotPotato")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // The JSON parser and decoder against Foundation's, with peak memory per candidate.
        .executableTarget(
            name: "hotpotato-json",
            dependencies: [.product(name: "HotPotato", package: "HotPotato"), "BenchmarkFixtures"],
            path: "Sources/JSONBench",
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        // Measures a child's peak memory and CPU from a process small enough not to skew them.
        .executableTarget(name: "rusage-exec", path: "Sources/RusageExec"),
    ] + benchmarkTargets.map { name in
        .executableTarget(
            name: name,
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "HotPotato", package: "HotPotato"),
                "BenchmarkFixtures",
            ],
            path: "Benchmarks/\(name)",
            swiftSettings: [.swiftLanguageMode(.v6)],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    }
)
