import BenchmarkFixtures
import Foundation

/// One measured run of one case.
struct Sample: Encodable {
    var bytes: Int64
    var seconds: Double
    var cpuSeconds: Double
    var peakRSSKiB: Int
    var requests: Int
    /// Seconds from the start of the request to the first byte of the response, where the client
    /// reports it (HotPotato's `TransferPhases.firstByte`, curl's `time_starttransfer`).
    var firstByteSeconds: Double?
}

/// The medians of a case's runs.
struct CaseResult {
    let spec: CaseSpec
    let samples: [Sample]

    var mibPerSecond: Double { median(samples.map { Double($0.bytes) / $0.seconds / 1_048_576 }) }
    var requestsPerSecond: Double { median(samples.map { Double($0.requests) / $0.seconds }) }
    var cpuSeconds: Double { median(samples.map(\.cpuSeconds)) }
    var peakRSSMiB: Double { median(samples.map { Double($0.peakRSSKiB) / 1024 }) }
    /// The median time to first byte, when every run reported one.
    var firstByteSeconds: Double? {
        let values = samples.compactMap(\.firstByteSeconds)
        return values.count == samples.count && !values.isEmpty ? median(values) : nil
    }
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Runs every scenario's cases interleaved (A B C A B C …) so that drift in the machine's state
/// affects them alike, each run in a fresh process.
struct Orchestrator {
    let plan: Plan
    let nginx: NginxFixture
    let selfPath: String
    let scratch: URL
    let log: (String) -> Void

    func run(_ scenario: Scenario) throws -> [CaseResult] {
        var scenario = scenario
        scenario.cases = scenario.cases.filter { spec in
            guard case .tool(let executable, _) = spec.runner, findExecutable(executable) == nil else { return true }
            log("  (\(spec.label) skipped: \(executable) is not installed)")
            return false
        }
        let expected = scenario.verifiesFiles ? try sha256(of: nginx.root.appendingPathComponent(scenario.file).path) : nil
        var samples = Array(repeating: [Sample](), count: scenario.cases.count)
        for round in 1...plan.runs {
            for (index, spec) in scenario.cases.enumerated() {
                let sample = try measure(spec, scenario: scenario, expectedSHA256: expected)
                samples[index].append(sample)
                log(String(format: "  [%d/%d] %@: %.1f MiB/s, %.0f req/s, %.2f s CPU, %.1f MiB peak", round, plan.runs,
                           spec.label, Double(sample.bytes) / sample.seconds / 1_048_576,
                           Double(sample.requests) / sample.seconds, sample.cpuSeconds, Double(sample.peakRSSKiB) / 1024))
            }
        }
        return zip(scenario.cases, samples).map { CaseResult(spec: $0, samples: $1) }
    }

    private func measure(_ spec: CaseSpec, scenario: Scenario, expectedSHA256: String?) throws -> Sample {
        let url = scenario.secure ? try nginx.httpsURL(scenario.file) : nginx.url(scenario.location + scenario.file)
        let destination = scratch.appendingPathComponent("download-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let sample = try measure(spec, scenario: scenario, url: url, destination: destination)
        if let expectedSHA256 {
            // After the clock: the file must be the served one, byte for byte.
            let actual = try sha256(of: destination)
            guard actual == expectedSHA256 else {
                throw HarnessError("\(spec.label) wrote a file whose SHA-256 is \(actual), not \(expectedSHA256)")
            }
        }
        return sample
    }

    private func measure(_ spec: CaseSpec, scenario: Scenario, url: String, destination: String) throws -> Sample {
        // A child keeps the file it wrote when it is to be checked.
        setenv("HOTPOTATO_E2E_KEEP", scenario.verifiesFiles ? "1" : "0", 1)
        switch spec.runner {
        case .harness(let name):
            // The file served, for cases that need its bytes (a checksum to verify against).
            setenv("HOTPOTATO_E2E_FIXTURE", nginx.root.appendingPathComponent(scenario.file).path, 1)
            return try child(selfPath, ["case", name, url, destination, String(scenario.count)])
        case .tool(let executable, let arguments):
            return try tool(executable, arguments, url: url, destination: destination)
        case .companion(let executable, let name):
            return try child(executable, [name, url, destination, String(scenario.count)])
        case .curlTool(let toFile):
            guard let curl = findExecutable("curl") else { throw HarnessError("curl is not installed") }
            let result = try spawnMeasured(curl, ["-s", "-S", "-f", "-o", toFile ? destination : "/dev/null",
                                                   "-w", "%{size_download} %{time_total} %{time_starttransfer}\n", url])
            let fields = (result.output.split(separator: "\n").first ?? "").split(separator: " ")
            guard result.status == 0, fields.count == 3, let bytes = Int64(fields[0]), let seconds = Double(fields[1]) else {
                throw HarnessError("curl failed: \(result.output)")
            }
            return Sample(bytes: bytes, seconds: seconds, cpuSeconds: result.cpuSeconds, peakRSSKiB: result.maxRSSKiB, requests: 1,
                          firstByteSeconds: Double(fields[2]))
        }
    }

    /// Runs another downloader: its time is the wall time of its process (a few milliseconds of
    /// process start included, which curl's `time_total` and the harness's own cases leave out).
    private func tool(_ name: String, _ arguments: [String], url: String, destination: String) throws -> Sample {
        guard let executable = findExecutable(name) else { throw HarnessError("\(name) is not installed") }
        let file = URL(fileURLWithPath: destination)
        let filled = arguments.map { argument in
            argument.replacingOccurrences(of: "{URL}", with: url).replacingOccurrences(of: "{FILE}", with: destination)
                .replacingOccurrences(of: "{DIR}", with: file.deletingLastPathComponent().path)
                .replacingOccurrences(of: "{NAME}", with: file.lastPathComponent)
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let result = try spawnMeasured(executable, filled)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        var status = stat()
        guard result.status == 0, stat(destination, &status) == 0 else {
            throw HarnessError("\(name) failed (\(result.status)): \(result.output)")
        }
        return Sample(bytes: Int64(status.st_size), seconds: seconds, cpuSeconds: result.cpuSeconds, peakRSSKiB: result.maxRSSKiB, requests: 1)
    }

    /// The SHA-256 of the file at `path`, by `sha256sum`.
    private func sha256(of path: String) throws -> String {
        guard let sha256sum = findExecutable("sha256sum") else { throw HarnessError("sha256sum is not installed") }
        let result = try spawnAndWait(sha256sum, [path])
        guard result.status == 0, let hex = result.output.split(separator: " ").first, hex.count == 64 else {
            throw HarnessError("sha256sum \(path) failed: \(result.output)")
        }
        return String(hex)
    }

    private func child(_ executable: String, _ arguments: [String]) throws -> Sample {
        let result = try spawnMeasured(executable, arguments)
        guard result.status == 0, let line = result.output.split(separator: "\n").last(where: { $0.hasPrefix("RESULT ") }) else {
            throw HarnessError("\(arguments.first ?? executable) failed (\(result.status)): \(result.output)")
        }
        var fields: [String: String] = [:]
        for field in line.dropFirst("RESULT ".count).split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
        guard let bytes = fields["bytes"].flatMap(Int64.init), let seconds = fields["seconds"].flatMap(Double.init),
              let cpu = fields["cpu"].flatMap(Double.init), let requests = fields["requests"].flatMap(Int.init) else {
            throw HarnessError("unreadable result: \(line)")
        }
        return Sample(bytes: bytes, seconds: seconds, cpuSeconds: cpu, peakRSSKiB: result.maxRSSKiB, requests: requests,
                      firstByteSeconds: fields["ttfb"].flatMap(Double.init))
    }
}
