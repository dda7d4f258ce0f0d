// Every handler fed an 8 MiB body in memory, in 16 KiB and 64 KiB chunks, through the same
// ResponseDriver the engines use: throughput, malloc count, peak memory.
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
        // Only malloc counts get a committed threshold, as swift-nio does, and only HotPotato's own
        // cases have one: the baselines of the other targets (writeLoop, JSONSerialization,
        // JSONDecoder, String(decoding:as:)) are other code. The plugin fails a count that
        // crosses the relative or the absolute tolerance, whichever it crosses, so there is only an
        // absolute one: 100 mallocs over the committed count. Counts vary from run to run by up to
        // about 25 (mallocs on other threads: FileWriter_16KiB 99-107, JSONParser_16KiB
        // 170 814-170 839, writeLoop 39-59); one malloc more per chunk adds 128 (64 KiB chunks of
        // 8 MiB) or more, and one more per element or decoding adds thousands.
        thresholds: [.mallocCountTotal: .init(absolute: [.p90: 100])]
    )
    let binary = Fixtures.binary(size)
    let text = Fixtures.text(size)
    let json = Fixtures.jsonDocument(size)
    let directory = FileManager.default.temporaryDirectory
    for chunkSize in Fixtures.chunkSizes {
        let label = Fixtures.label(chunkSize)
        let binaryChunks = Fixtures.chunks(binary, size: chunkSize)
        let textChunks = Fixtures.chunks(text, size: chunkSize)
        let jsonChunks = Fixtures.chunks(json, size: chunkSize)
        let binaryHead = Fixtures.head(contentType: "application/octet-stream", length: binary.count)
        let textHead = Fixtures.head(contentType: "text/plain; charset=utf-8", length: text.count)
        let jsonHead = Fixtures.head(contentType: "application/json", length: json.count)

        Benchmark("SelectiveDiscarder_\(label)") { benchmark in
            for _ in benchmark.scaledIterations {
                try blackHole(ResponseDriver.run(SelectiveDiscarder(), head: binaryHead, chunks: binaryChunks))
            }
        }
        Benchmark("Accumulator_\(label)") { benchmark in
            for _ in benchmark.scaledIterations {
                try blackHole(ResponseDriver.run(Accumulator(), head: binaryHead, chunks: binaryChunks))
            }
        }
        Benchmark("StringConverter_\(label)") { benchmark in
            for _ in benchmark.scaledIterations {
                try blackHole(ResponseDriver.run(StringConverter(), head: textHead, chunks: textChunks))
            }
        }
        Benchmark("JSONParser_\(label)") { benchmark in
            for _ in benchmark.scaledIterations {
                try blackHole(ResponseDriver.run(JSONParser(), head: jsonHead, chunks: jsonChunks))
            }
        }
        Benchmark("StreamWriter_devnull_\(label)") { benchmark in
            for _ in benchmark.scaledIterations {
                let stream = OutputStream(toFileAtPath: "/dev/null", append: false)!
                try blackHole(ResponseDriver.run(StreamWriter(stream: stream), head: binaryHead, chunks: binaryChunks))
            }
        }
        Benchmark("FileWriter_\(label)") { benchmark in
            let destination = directory.appendingPathComponent("hotpotato-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: destination) }
            for _ in benchmark.scaledIterations {
                let writer = FileWriter(destination: destination, existingFilePolicy: .replace)
                try blackHole(ResponseDriver.run(writer, head: binaryHead, chunks: binaryChunks))
            }
        }
    }
}
