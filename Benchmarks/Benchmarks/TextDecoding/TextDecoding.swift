// StringConverter (strict decoding, by charset, fed in chunks) against String(decoding:as:) (which
// repairs instead of failing) on the same 8 MiB of UTF-8.
import Benchmark
import BenchmarkFixtures
import Foundation
import HotPotato

let benchmarks: @Sendable () -> Void = {
    let size = 8 * 1024 * 1024
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 1,
        maxDuration: .seconds(Fixtures.isSmoke ? 1 : 3),
        maxIterations: Fixtures.isSmoke ? 3 : 1_000,
        // Malloc counts of HotPotato's own cases only, 100 over the committed count at most: see
        // HandlerThroughput.swift.
        thresholds: [.mallocCountTotal: .init(absolute: [.p90: 100])]
    )
    // A baseline, not HotPotato's code: measured for comparison, never checked against a
    // threshold (it has no file in Thresholds/, and no tolerance to cross should one appear).
    var baseline = Benchmark.defaultConfiguration
    baseline.thresholds = [.mallocCountTotal: BenchmarkThresholds()]
    let text = Fixtures.text(size)
    let head = Fixtures.head(contentType: "text/plain; charset=utf-8", length: text.count)
    for chunkSize in Fixtures.chunkSizes {
        let chunks = Fixtures.chunks(text, size: chunkSize)
        Benchmark("StringConverter_\(Fixtures.label(chunkSize))") { benchmark in
            for _ in benchmark.scaledIterations {
                try blackHole(ResponseDriver.run(StringConverter(), head: head, chunks: chunks))
            }
        }
    }
    Benchmark("StringDecodingAsUTF8_whole", configuration: baseline) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(String(decoding: text, as: UTF8.self))
        }
    }
}
