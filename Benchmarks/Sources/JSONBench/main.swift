// hotpotato-json: HotPotato's JSON parser and decoder against JSONSerialization and JSONDecoder,
// on the same bytes, in the same run.
//
//   hotpotato-json [--smoke] [--size BYTES] [--runs N] [--output FILE]
//   hotpotato-json child CANDIDATE DOCUMENT SIZE      (one run, reporting its peak memory)
//   hotpotato-json repeat CANDIDATE DOCUMENT SIZE N   (N timed runs of one candidate, for profiling)
//
// For each document (mixed, numbers, strings) it reports:
// - parse and decode throughput (median of N runs, each including freeing the result), and
//   HotPotato's ratio to Foundation;
// - parsing and then reading one field of every element by index, against JSONSerialization;
// - peak memory above the document, measured in a child process per candidate;
// - the time from the last 16 KiB chunk to the value, through the JSONParser handler.
import BenchmarkFixtures
import Foundation
import HotPotato
#if canImport(Glibc)
import Glibc
#endif

enum Document: String, CaseIterable {
    case mixed, numbers, strings

    func make(_ size: Int) -> Data {
        switch self {
        case .mixed: return Fixtures.jsonDocument(size)
        case .numbers: return Fixtures.numbersDocument(size)
        case .strings: return Fixtures.stringsDocument(size)
        }
    }

    /// What the document decodes into.
    var decodedType: String {
        switch self {
        case .mixed: return "[User]"
        case .numbers: return "[[Double]]"
        case .strings: return "[Article]"
        }
    }
}

/// One way to turn the bytes into a value.
enum Candidate: String, CaseIterable {
    /// `JSONDocument(parsing:)` over the whole document: checked, kept as bytes and a tape.
    case hotPotatoDocument = "hotpotato-document"
    /// `JSONParser<JSONDocument>` fed 16 KiB chunks (the document is the body it kept).
    case hotPotatoDocumentHandler = "hotpotato-document-handler"
    /// `JSON(parsing:)` over the whole document: a `JSON` tree.
    case hotPotatoParse = "hotpotato-parse"
    /// The `JSONParser` handler fed 16 KiB chunks (the body is kept as well, as `.asJSON()` does).
    case hotPotatoHandler = "hotpotato-handler"
    case jsonSerialization = "jsonserialization"
    /// `JSON.decode(_:from:)`, into the document's types: straight from the bytes.
    case hotPotatoDecode = "hotpotato-decode"
    /// `JSONParser(decoding:)` fed 16 KiB chunks.
    case hotPotatoDecodeHandler = "hotpotato-decode-handler"
    case jsonDecoder = "jsondecoder"
    /// `JSONDocument(parsing:)`, then one field of every top-level element read by index
    /// (`document[i]?[key: "id"]`; a row's first number in the numbers document).
    case hotPotatoDocumentReach = "hotpotato-document-reach"
    /// `JSON(parsing:)`, then every value of the tree read (each object's members iterated, each
    /// array's elements): what reading a whole tree costs when its objects read through the
    /// document.
    case hotPotatoParseWalk = "hotpotato-parse-walk"
    /// `JSONSerialization`, then the same field of every element, through `[Any]` and `[String: Any]`.
    case jsonSerializationReach = "jsonserialization-reach"

    var usesChunks: Bool { self == .hotPotatoHandler || self == .hotPotatoDecodeHandler || self == .hotPotatoDocumentHandler }

    /// Runs once; the result is dropped inside, so that freeing it is counted.
    func run(_ document: Document, data: Data, chunks: [Data], head: ResponseHead) throws {
        switch (self, document) {
        case (.hotPotatoDocument, _): try check(JSONDocument(parsing: data).count)
        case (.hotPotatoDocumentHandler, _):
            try check(ResponseDriver.run(JSONParser<JSONDocument>(maximumBodySize: Int64(UInt32.max)), head: head, chunks: chunks).count)
        case (.hotPotatoParse, _): try check(JSON(parsing: data).arrayValue?.count)
        case (.hotPotatoHandler, _): try check(ResponseDriver.run(JSONParser(maximumBodySize: .max), head: head, chunks: chunks).arrayValue?.count)
        case (.jsonSerialization, _): try check((JSONSerialization.jsonObject(with: data) as? [Any])?.count)
        case (.hotPotatoDecode, .mixed): try check(JSON.decode([Fixtures.User].self, from: data).count)
        case (.hotPotatoDecode, .numbers): try check(JSON.decode(Fixtures.NumberRows.self, from: data).count)
        case (.hotPotatoDecode, .strings): try check(JSON.decode([Fixtures.Article].self, from: data).count)
        case (.hotPotatoDecodeHandler, .mixed):
            try check(ResponseDriver.run(JSONParser(decoding: [Fixtures.User].self, maximumBodySize: .max), head: head, chunks: chunks).count)
        case (.hotPotatoDecodeHandler, .numbers):
            try check(ResponseDriver.run(JSONParser(decoding: Fixtures.NumberRows.self, maximumBodySize: .max), head: head, chunks: chunks).count)
        case (.hotPotatoDecodeHandler, .strings):
            try check(ResponseDriver.run(JSONParser(decoding: [Fixtures.Article].self, maximumBodySize: .max), head: head, chunks: chunks).count)
        case (.jsonDecoder, .mixed): try check(JSONDecoder().decode([Fixtures.User].self, from: data).count)
        case (.jsonDecoder, .numbers): try check(JSONDecoder().decode(Fixtures.NumberRows.self, from: data).count)
        case (.jsonDecoder, .strings): try check(JSONDecoder().decode([Fixtures.Article].self, from: data).count)
        case (.hotPotatoDocumentReach, _):
            let parsed = try JSONDocument(parsing: data)
            var sum = 0.0
            for index in 0..<(parsed.count ?? 0) {
                let element = parsed[index]
                sum += (document == .numbers ? element?[0] : element?[key: "id"])?.doubleValue ?? .nan
            }
            try check(sum.isNaN ? nil : parsed.count)
        case (.hotPotatoParseWalk, _):
            func walk(_ value: JSON) -> Int {
                switch value {
                case .array(let elements): return elements.reduce(1) { $0 + walk($1) }
                case .object(let object): return object.reduce(1) { $0 + walk($1.value) }
                default: return 1
                }
            }
            try check(walk(JSON(parsing: data)))
        case (.jsonSerializationReach, _):
            let parsed = try JSONSerialization.jsonObject(with: data) as? [Any] ?? []
            var sum = 0.0
            for index in 0..<parsed.count {
                let field = document == .numbers ? (parsed[index] as? [Any])?[0] : (parsed[index] as? [String: Any])?["id"]
                sum += (field as? NSNumber)?.doubleValue ?? .nan
            }
            try check(sum.isNaN ? nil : parsed.count)
        }
    }

    private func check(_ count: Int?) throws {
        guard let count, count > 0 else { throw HarnessError("\(rawValue) produced nothing") }
    }
}

struct Options {
    var smoke = false
    var size = 50_000_000
    var runs = 7
    var output: String?
}

func parseOptions(_ arguments: ArraySlice<String>) throws -> Options {
    var options = Options()
    var rest = arguments
    while let argument = rest.popFirst() {
        switch argument {
        case "--smoke":
            options.smoke = true
            options.size = 1_000_000
            options.runs = 2
        case "--size": options.size = Int(rest.popFirst() ?? "") ?? options.size
        case "--runs": options.runs = max(1, Int(rest.popFirst() ?? "") ?? options.runs)
        case "--output": options.output = rest.popFirst()
        default: throw HarnessError("unknown argument \(argument)")
        }
    }
    return options
}

func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Seconds per run, `runs` times after one warm-up.
func time(_ candidate: Candidate, _ document: Document, data: Data, chunks: [Data], head: ResponseHead, runs: Int) throws -> [Double] {
    try candidate.run(document, data: data, chunks: chunks, head: head)
    return try (0..<runs).map { _ in
        let start = now()
        try candidate.run(document, data: data, chunks: chunks, head: head)
        return now() - start
    }
}

/// The time from the start of the last chunk to the value, through the JSONParser handler.
func lastChunkToValue(data: Data, chunks: [Data], head: ResponseHead, runs: Int) throws -> [Double] {
    try (0...runs).map { _ in
        let driver = ResponseDriver(handler: JSONParser(maximumBodySize: .max))
        _ = driver.receive(head: head)
        for chunk in chunks.dropLast() { _ = driver.receive(chunk) }
        let start = now()
        _ = driver.receive(chunks.last!)
        let result = driver.finish()
        let elapsed = now() - start
        guard case .success(let value) = result, value.arrayValue?.isEmpty == false else { throw HarnessError("no value") }
        return elapsed
    }.dropFirst().map { $0 }
}

/// The peak resident memory a child adds while it runs `candidate` once, in KiB: the child makes
/// its input first, then resets the kernel's high-water mark, so that only the run counts.
func peakAboveInputKiB(_ candidate: Candidate, _ document: Document, size: Int) throws -> Int {
    let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    let result = try spawnAndWait(selfPath, ["child", candidate.rawValue, document.rawValue, String(size)])
    guard result.status == 0, let line = result.output.split(separator: "\n").last(where: { $0.hasPrefix("peak_above_input_kib=") }),
          let value = Int(line.dropFirst("peak_above_input_kib=".count)) else {
        throw HarnessError("child \(candidate.rawValue) failed: \(result.output)")
    }
    return value
}

/// glibc's `malloc_trim`, which the Glibc module does not export: gives freed heap memory back to
/// the kernel.
@_silgen_name("malloc_trim")
func mallocTrim(_ pad: Int) -> Int32

/// A field of `/proc/self/status`, in KiB.
func statusKiB(_ field: String) -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
}

func runChild(_ arguments: ArraySlice<String>) throws {
    let values = Array(arguments)
    guard values.count == 3, let candidate = Candidate(rawValue: values[0]), let document = Document(rawValue: values[1]),
          let size = Int(values[2]) else { throw HarnessError("usage: hotpotato-json child CANDIDATE DOCUMENT SIZE") }
    let data = document.make(size)
    let chunks = candidate.usesChunks ? Fixtures.chunks(data, size: 16 * 1024) : []
    let head = Fixtures.head(contentType: "application/json", length: data.count)
    // Give back what making the input took, then start the high-water mark afresh (Linux ≥ 4.0).
    _ = mallocTrim(0)
    guard (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil else {
        throw HarnessError("cannot reset the high-water mark (/proc/self/clear_refs)")
    }
    let before = statusKiB("VmRSS")
    try candidate.run(document, data: data, chunks: chunks, head: head)
    print("peak_above_input_kib=\(max(0, statusKiB("VmHWM") - before))")
    withExtendedLifetime((data, chunks)) {}
}

/// Runs one candidate N times and prints each run's MB/s: for profiling one path (`perf record`).
func runRepeatedly(_ arguments: ArraySlice<String>) throws {
    let values = Array(arguments)
    guard values.count == 4, let candidate = Candidate(rawValue: values[0]), let document = Document(rawValue: values[1]),
          let size = Int(values[2]), let runs = Int(values[3]) else {
        throw HarnessError("usage: hotpotato-json repeat CANDIDATE DOCUMENT SIZE N")
    }
    let data = document.make(size)
    let chunks = candidate.usesChunks ? Fixtures.chunks(data, size: 16 * 1024) : []
    let head = Fixtures.head(contentType: "application/json", length: data.count)
    let seconds = try time(candidate, document, data: data, chunks: chunks, head: head, runs: max(1, runs))
    print("\(candidate.rawValue) \(document.rawValue): " + seconds.map { format(Double(data.count) / 1e6 / $0) }.joined(separator: " ")
        + " MB/s; median \(format(Double(data.count) / 1e6 / median(seconds)))")
}

func format(_ value: Double, _ digits: Int = 1) -> String { String(format: "%.\(digits)f", value) }

func benchmark(_ options: Options) throws -> String {
    var report = "## JSON: HotPotato against Foundation on the same bytes\n\n"
    report += "Document size \(options.size / 1_000_000) MB, median of \(options.runs) runs each (after a warm-up); "
        + "each run includes freeing its result. MB/s are 10⁶ bytes of JSON per second.\n"
    var memoryRows: [String] = []
    var latencyRows: [String] = []
    var throughputRows: [String] = []
    var decodeRows: [String] = []
    var reachRows: [String] = []
    for document in Document.allCases {
        let data = document.make(options.size)
        let chunks = Fixtures.chunks(data, size: 16 * 1024)
        let head = Fixtures.head(contentType: "application/json", length: data.count)
        let megabytes = Double(data.count) / 1e6
        var medians: [Candidate: Double] = [:]
        for candidate in Candidate.allCases {
            medians[candidate] = median(try time(candidate, document, data: data, chunks: chunks, head: head, runs: options.runs))
        }
        func rate(_ candidate: Candidate) -> String { format(megabytes / medians[candidate]!) }
        func ratio(_ candidate: Candidate, to peer: Candidate) -> String { format(medians[peer]! / medians[candidate]!) + "×" }
        throughputRows.append(
            "| \(document.rawValue) | \(rate(.hotPotatoDocument)) | \(rate(.hotPotatoDocumentHandler)) | \(rate(.hotPotatoParse)) | "
                + "\(rate(.hotPotatoHandler)) | \(rate(.jsonSerialization)) | **\(ratio(.hotPotatoDocument, to: .jsonSerialization))** | "
                + "\(ratio(.hotPotatoParse, to: .jsonSerialization)) |")
        decodeRows.append(
            "| \(document.rawValue) | \(document.decodedType) | \(rate(.hotPotatoDecode)) | \(rate(.hotPotatoDecodeHandler)) | "
                + "\(rate(.jsonDecoder)) | **\(ratio(.hotPotatoDecode, to: .jsonDecoder))** |")
        reachRows.append(
            "| \(document.rawValue) | \(rate(.hotPotatoDocumentReach)) | \(rate(.jsonSerializationReach)) | "
                + "**\(ratio(.hotPotatoDocumentReach, to: .jsonSerializationReach))** | \(rate(.hotPotatoParseWalk)) |")

        let latency = try lastChunkToValue(data: data, chunks: chunks, head: head, runs: options.runs)
        latencyRows.append("| \(document.rawValue) | \(format(median(latency) * 1000, 2)) | \(format((latency.max() ?? 0) * 1000, 2)) |")

        for candidate in [
            Candidate.hotPotatoDocument, .hotPotatoDocumentHandler, .hotPotatoParse, .hotPotatoHandler, .jsonSerialization,
            .hotPotatoDecode, .jsonDecoder,
        ] {
            let above = Double(try peakAboveInputKiB(candidate, document, size: options.size)) * 1024 / 1e6
            memoryRows.append("| \(document.rawValue) | \(candidate.rawValue) | \(format(above)) | \(format(above / megabytes, 2))× |")
        }
    }
    report += "\n### Parsing\n\n"
    report += "| Document | JSONDocument MB/s | JSONDocument handler, 16 KiB chunks | JSON tree MB/s | JSON tree handler "
        + "| JSONSerialization | **JSONDocument ratio** | JSON tree ratio |\n"
    report += "|---|---:|---:|---:|---:|---:|---:|---:|\n" + throughputRows.joined(separator: "\n") + "\n"
    report += "\n### Decoding\n\n"
    report += "| Document | Decoded into | HotPotato decode MB/s | HotPotato decode handler | JSONDecoder | **decode ratio** |\n"
    report += "|---|---|---:|---:|---:|---:|\n" + decodeRows.joined(separator: "\n") + "\n"
    report += "\n### Reaching in\n\n"
    report += "Parse, then read one field of every top-level element by index (`document[i]?[key: \"id\"]`; for the "
        + "numbers document, each row's first number), MB/s of the document. Last column: `JSON(parsing:)`, then every "
        + "value of the tree read (members iterated, elements visited).\n\n"
    report += "| Document | JSONDocument MB/s | JSONSerialization | **ratio** | JSON tree, every value read |\n"
    report += "|---|---:|---:|---:|---:|\n" + reachRows.joined(separator: "\n") + "\n"
    report += "\n### Peak memory above the document\n\n"
    report += "Each in a child process of its own: the child makes the document (and, for the handler, its 16 KiB chunks), "
        + "resets the kernel's high-water mark, runs once and reports how far its resident memory rose above where it "
        + "started. The handler keeps the body as well as the value (as `.asJSON()` does).\n\n"
    report += "| Document | Candidate | MB above the document | × document size |\n|---|---|---:|---:|\n"
        + memoryRows.joined(separator: "\n") + "\n"
    report += "\n### Last chunk to value\n\n"
    report += "The `JSONParser` handler fed 16 KiB chunks: from the start of the last `receive` to `finish()` returning the "
        + "value.\n\n| Document | median ms | max ms |\n|---|---:|---:|\n" + latencyRows.joined(separator: "\n") + "\n"
    return report
}

do {
    let arguments = CommandLine.arguments.dropFirst()
    if arguments.first == "child" {
        try runChild(arguments.dropFirst())
    } else if arguments.first == "repeat" {
        try runRepeatedly(arguments.dropFirst())
    } else {
        let options = try parseOptions(arguments)
        let report = try benchmark(options)
        print(report)
        if let output = options.output { try report.write(toFile: output, atomically: true, encoding: .utf8) }
    }
} catch {
    FileHandle.standardError.write(Data("hotpotato-json: \(error)\n".utf8))
    exit(1)
}
