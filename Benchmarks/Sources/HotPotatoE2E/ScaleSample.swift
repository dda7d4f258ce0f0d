import BenchmarkFixtures
import Foundation

/// One run of one scale case: the child's `SCALE` fields (or, when it never printed them, its
/// last `PROGRESS` line's), its notes, and what rusage-exec and the server saw.
struct ScaleSample {
    var fields: [String: Double] = [:]
    var notes: [String: String] = [:]
    /// Whether the child printed its final line (it did not when it crashed or was killed).
    var finished = false
    var status: Int32 = 0
    var killed = false
    var peakThreads: Int?
    var peakRSSMiB: Double = 0
    var cpuSeconds: Double = 0
    /// The most event streams bench-server held open at once during the case.
    var serverPeakStreams: Int?
    /// The most connections bench-server held at once during the case.
    var serverPeakConnections: Int?

    init(_ result: ChildResult) {
        status = result.status
        killed = result.killed
        peakThreads = result.peakThreads
        peakRSSMiB = Double(result.maxRSSKiB) / 1024
        cpuSeconds = result.cpuSeconds
        var progress: [String: Double] = [:]
        for line in result.output.split(separator: "\n") {
            if line.hasPrefix("SCALE ") {
                fields = Self.parse(line.dropFirst("SCALE ".count))
                finished = true
            } else if line.hasPrefix("PROGRESS ") {
                progress = Self.parse(line.dropFirst("PROGRESS ".count))
            } else if line.hasPrefix("NOTE ") {
                let parts = line.dropFirst("NOTE ".count).split(separator: " ", maxSplits: 1)
                if parts.count == 2, notes[String(parts[0])] == nil { notes[String(parts[0])] = String(parts[1]) }
            }
        }
        if !finished {
            fields = progress
            let when = progress["t"].map { " about \(ScaleReport.plain($0)) s in" } ?? ""
            notes["exit"] = killed ? "killed at the harness's deadline" : "ended\(when) with \(Self.describe(status)), before reporting"
        }
    }

    /// An exit status as rusage-exec reports it (128 + N for signal N).
    static func describe(_ status: Int32) -> String {
        switch status {
        case 132: "status 132 (SIGILL: a Swift runtime trap)"
        case 134: "status 134 (SIGABRT)"
        case 137: "status 137 (SIGKILL)"
        case 139: "status 139 (SIGSEGV)"
        default: "status \(status)"
        }
    }

    private static func parse(_ text: Substring) -> [String: Double] {
        var fields: [String: Double] = [:]
        for field in text.split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { fields[String(parts[0])] = value }
        }
        return fields
    }
}

/// A scale case's runs.
struct ScaleResult {
    let spec: ScaleCaseSpec
    let samples: [ScaleSample]

    /// The median of a field over the runs that have it.
    func value(_ key: String) -> Double? {
        let values = samples.compactMap { $0.fields[key] }
        return values.isEmpty ? nil : median(values)
    }

    func note(_ key: String) -> String? { samples.lazy.compactMap { $0.notes[key] }.first }

    var notes: [String: String] {
        samples.reduce(into: [:]) { notes, sample in notes.merge(sample.notes) { first, _ in first } }
    }

    var peakThreads: Double? { medianOf(\.peakThreads) }

    var peakRSSMiB: Double { median(samples.map(\.peakRSSMiB)) }
    var cpuSeconds: Double { median(samples.map(\.cpuSeconds)) }
    var finished: Bool { samples.allSatisfy(\.finished) }

    var serverPeakStreams: Double? { medianOf(\.serverPeakStreams) }
    var serverPeakConnections: Double? { medianOf(\.serverPeakConnections) }

    private func medianOf(_ field: KeyPath<ScaleSample, Int?>) -> Double? {
        let values = samples.compactMap { $0[keyPath: field] }.map(Double.init)
        return values.isEmpty ? nil : median(values)
    }
}
