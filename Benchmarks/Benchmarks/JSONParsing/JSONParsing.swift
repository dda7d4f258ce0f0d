// The JSON handler, and HotPotato's parser and decoder on a whole document, against
// JSONSerialization and JSONDecoder on the same 8 MB document; many small decodings; reads of a
// parsed document element by element. (Benchmarks/Sources/JSONBench runs the
// 50 MB comparison with peak memory per candidate.)
import Benchmark
import BenchmarkFixtures
import Foundation
import HotPotato

let benchmarks: @Sendable () -> Void = {
    let size = 8_000_000
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
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
    let document = Fixtures.jsonDocument(size)
    let head = Fixtures.head(contentType: "application/json", length: document.count)
    for chunkSize in Fixtures.chunkSizes {
        let chunks = Fixtures.chunks(document, size: chunkSize)
        Benchmark("JSONParser_JSON_\(Fixtures.label(chunkSize))") { benchmark in
            for _ in benchmark.scaledIterations {
                try blackHole(ResponseDriver.run(JSONParser(), head: head, chunks: chunks))
            }
        }
        Benchmark("JSONParser_Users_\(Fixtures.label(chunkSize))") { benchmark in
            for _ in benchmark.scaledIterations {
                try blackHole(ResponseDriver.run(JSONParser(decoding: [Fixtures.User].self), head: head, chunks: chunks))
            }
        }
    }
    Benchmark("HotPotato_parse_whole") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JSON(parsing: document))
        }
    }
    Benchmark("HotPotato_decode_Users_whole") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JSON.decode([Fixtures.User].self, from: document))
        }
    }
    Benchmark("JSONSerialization_whole", configuration: baseline) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JSONSerialization.jsonObject(with: document))
        }
    }
    Benchmark("JSONDecoder_Users_whole", configuration: baseline) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try JSONDecoder().decode([Fixtures.User].self, from: document))
        }
    }

    // Many small decodings, as a stream of JSON Lines or many small responses make: what a
    // decoding costs to set up shows here, not in the 8 MB document.
    let small = Fixtures.jsonDocument(300)  // two users, 542 bytes
    Benchmark("HotPotato_decode_small_x1000") { benchmark in
        for _ in benchmark.scaledIterations {
            for _ in 0..<1000 { blackHole(try JSON.decode([Fixtures.User].self, from: small)) }
        }
    }
    Benchmark("JSONDecoder_decode_small_x1000", configuration: baseline) { benchmark in
        let decoder = JSONDecoder()
        for _ in benchmark.scaledIterations {
            for _ in 0..<1000 { blackHole(try decoder.decode([Fixtures.User].self, from: small)) }
        }
    }
    // Reading a parsed document element by element: each read is a decoding of its own.
    let parsed = try! JSONDocument(parsing: Fixtures.jsonDocument(200_000))
    Benchmark("JSONDocument_members_of_each_element") { benchmark in
        for _ in benchmark.scaledIterations {
            for element in parsed.arrayValue! { blackHole(element.members) }
        }
    }
}
