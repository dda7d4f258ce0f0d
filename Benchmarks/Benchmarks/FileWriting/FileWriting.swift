// FileWriter against a raw write(2) loop, the same 64 MiB in the same chunks: what HotPotato's
// temporary file, gathering of small chunks and atomic placement cost or save.
import Benchmark
import BenchmarkFixtures
import Foundation
import HotPotato
#if canImport(Glibc)
import Glibc
#endif

let benchmarks: @Sendable () -> Void = {
    let size = 64 * 1024 * 1024
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident, .syscalls],
        warmupIterations: 1,
        maxDuration: .seconds(Fixtures.isSmoke ? 1 : 5),
        maxIterations: Fixtures.isSmoke ? 2 : 200,
        // Malloc counts of HotPotato's own cases only, 100 over the committed count at most: see
        // HandlerThroughput.swift.
        thresholds: [.mallocCountTotal: .init(absolute: [.p90: 100])]
    )
    // A baseline, not HotPotato's code: measured for comparison, never checked against a
    // threshold (it has no file in Thresholds/, and no tolerance to cross should one appear).
    var baseline = Benchmark.defaultConfiguration
    baseline.thresholds = [.mallocCountTotal: BenchmarkThresholds()]
    let body = Fixtures.binary(size)
    let head = Fixtures.head(contentType: "application/octet-stream", length: size)
    let directory = FileManager.default.temporaryDirectory
    for chunkSize in Fixtures.chunkSizes {
        let label = Fixtures.label(chunkSize)
        let chunks = Fixtures.chunks(body, size: chunkSize)
        Benchmark("FileWriter_\(label)") { benchmark in
            let destination = directory.appendingPathComponent("hotpotato-bench-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: destination) }
            for _ in benchmark.scaledIterations {
                try blackHole(ResponseDriver.run(
                    FileWriter(destination: destination, existingFilePolicy: .replace), head: head, chunks: chunks))
            }
        }
        Benchmark("writeLoop_\(label)", configuration: baseline) { benchmark in
            let path = directory.appendingPathComponent("hotpotato-bench-\(UUID().uuidString)").path
            defer { unlink(path) }
            for _ in benchmark.scaledIterations {
                let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                for chunk in chunks {
                    chunk.withUnsafeBytes { bytes in
                        var offset = 0
                        while offset < bytes.count {
                            let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                            if written <= 0 { break }
                            offset += written
                        }
                    }
                }
                close(fd)
            }
        }
    }
}
