import Foundation

/// The run's results as JSON (`--json FILE`): every run of every case with the medians the
/// Markdown report shows, for tools that compare one run with another. A median that cannot be
/// taken (no runs) is `null`.
struct JSONResults: Encodable {
    struct Case: Encodable {
        let label: String
        let runs: [Sample]
        let medianMiBPerSecond: Double?
        let medianRequestsPerSecond: Double?
        let medianCPUSeconds: Double?
        let medianPeakRSSMiB: Double?
        let medianFirstByteSeconds: Double?
    }

    struct ScenarioResults: Encodable {
        let title: String
        let file: String
        let requestsPerRun: Int
        /// `throughput` (MiB/s is the figure) or `requests` (requests a second is).
        let unit: String
        let secure: Bool
        let cases: [Case]
    }

    /// When the run ended (ISO 8601).
    let date: String
    /// The machine and tools, as the Markdown report's "Machine" section lists them.
    let machine: String
    let runsPerCase: Int
    let scenarios: [ScenarioResults]

    init(_ sections: [(Scenario, [CaseResult])], runsPerCase: Int, machine: String) {
        func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
        date = ISO8601DateFormatter().string(from: Date())
        self.machine = machine
        self.runsPerCase = runsPerCase
        scenarios = sections.map { scenario, results in
            ScenarioResults(
                title: scenario.title, file: scenario.file, requestsPerRun: scenario.count,
                unit: scenario.unit == .throughput ? "throughput" : "requests", secure: scenario.secure,
                cases: results.map { result in
                    Case(
                        label: result.spec.label,
                        runs: result.samples,
                        medianMiBPerSecond: finite(result.mibPerSecond), medianRequestsPerSecond: finite(result.requestsPerSecond),
                        medianCPUSeconds: finite(result.cpuSeconds), medianPeakRSSMiB: finite(result.peakRSSMiB),
                        medianFirstByteSeconds: result.firstByteSeconds.flatMap(finite))
                })
        }
    }

    func write(toFile path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
