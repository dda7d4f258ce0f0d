import BenchmarkFixtures
import Foundation
import ScaleKit

/// Runs the scale scenarios' cases interleaved, each in a fresh process under rusage-exec (peak
/// RSS, CPU, peak threads sampled every 100 ms, and a hard deadline), against one bench-server.
struct ScaleOrchestrator {
    let runs: Int
    let server: BenchServerFixture
    let selfPath: String
    let log: (String) -> Void

    func run(_ scenario: ScaleScenario) throws -> [ScaleResult] {
        var samples = Array(repeating: [ScaleSample](), count: scenario.cases.count)
        for round in 1...runs {
            for (index, spec) in scenario.cases.enumerated() {
                let sample = try measure(spec, job: scenario.job)
                samples[index].append(sample)
                log("  [\(round)/\(runs)] \(spec.label): " + Self.summary(sample))
            }
        }
        return zip(scenario.cases, samples).map { ScaleResult(spec: $0, samples: $1) }
    }

    private func measure(_ spec: ScaleCaseSpec, job: ScaleJob) throws -> ScaleSample {
        // The previous client's connections closed, and the server's peaks started again.
        server.waitUntilIdle()
        _ = server.stats(reset: true)
        let (executable, arguments): (String, [String]) = switch spec.runner {
        case .harness(let client): (selfPath, ["scale", client] + job.arguments)
        case .companion(let executable): (executable, ["scale", "ahc"] + job.arguments)
        }
        let result = try spawnMeasured(executable, arguments, sampleThreads: true, killAfter: job.hardLimit)
        var sample = ScaleSample(result)
        let stats = server.stats()
        sample.serverPeakStreams = stats["peakOpenStreams"]
        sample.serverPeakConnections = stats["peakConnections"]
        return sample
    }

    private static func summary(_ sample: ScaleSample) -> String {
        let fields = sample.fields.sorted { $0.key < $1.key }.map { "\($0.key)=\(ScaleReport.plain($0.value))" }
        let notes = sample.notes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        return (fields + [
            "peak_threads=\(sample.peakThreads.map(String.init) ?? "?")",
            String(format: "rss=%.1fMiB cpu=%.2fs", sample.peakRSSMiB, sample.cpuSeconds),
            "server_peak_streams=\(sample.serverPeakStreams.map(String.init) ?? "?")",
            "server_peak_connections=\(sample.serverPeakConnections.map(String.init) ?? "?")",
        ] + notes).joined(separator: " ")
    }
}
