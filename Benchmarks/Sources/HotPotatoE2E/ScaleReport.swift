import Foundation
import ScaleKit

/// Formats the scale scenarios' results as Markdown: one table per scenario, a table of ratios
/// where both sides finished the job (a ratio to a client that did not is no comparison), and
/// the errors seen.
enum ScaleReport {
    static func markdown(_ scenario: ScaleScenario, _ results: [ScaleResult]) -> String {
        var text = "### \(scenario.title)\n\n\(scenario.note)\n\n"
        switch scenario.kind {
        case .openStreams, .spread: text += streams(scenario, results)
        case .headOfLine, .perHostLimit: text += probes(scenario, results)
        case .fanOut: text += fanOut(scenario, results)
        }
        return text + errors(results) + "\n"
    }

    /// What every run's report starts with: the machine, and the limits that decide what fits.
    static func preamble(runs: Int, serverHosts: Int) -> String {
        let (soft, hard) = FileLimit.current()
        return Report.machine() + "\n"
            + "- Open files: soft limit \(soft), hard limit \(hard) (`ulimit -Hn`); the server and each client raise "
            + "their soft limit to the hard one, and N streams need about N + 256 descriptors in each\n"
            + "- bench-server (SwiftNIO) on 127.0.0.1 … 127.0.0.\(serverHosts), one port\n\n"
            + "Runs per case: \(runs)\(runs > 1 ? ", interleaved; medians" : ""). Peak threads: sampled every 100 ms "
            + "from outside the process (they include the harness driver's own monitor thread). Every case has "
            + "a hard time limit and reports what happened within it. Ratios are HotPotato's figure divided by the "
            + "peer's (below 1: HotPotato took less), given only where both finished the job.\n\n"
    }

    // MARK: - Shared pieces

    static func label(_ result: ScaleResult) -> String {
        result.spec.isHotPotato ? "**\(result.spec.label)**" : result.spec.label
    }

    static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.3f", value)
    }

    static func count(_ value: Double?) -> String {
        guard let value else { return "?" }
        return ScalePlan.number(Int(value))
    }

    static func seconds(_ value: Double?) -> String {
        guard let value, value >= 0 else { return "—" }
        return value < 1 ? String(format: "%.0f ms", value * 1000) : String(format: "%.2f s", value)
    }

    static func resources(_ result: ScaleResult) -> String {
        "\(result.peakThreads.map { count($0) } ?? "?") | " + String(format: "%.1f | %.2f", result.peakRSSMiB, result.cpuSeconds)
    }

    static func ratio(_ ours: Double?, _ theirs: Double?) -> String? {
        guard let ours, let theirs, ours > 0, theirs > 0 else { return nil }
        return String(format: "%.2f×", ours / theirs)
    }

    /// A table of each HotPotato row's ratios to each peer, from `cells(ours, theirs)` (nil where
    /// no ratio is meaningful); empty when there is no pair to compare.
    static func ratios(_ results: [ScaleResult], heading: String, cells: (ScaleResult, ScaleResult) -> String?) -> String {
        let ours = results.filter(\.spec.isHotPotato)
        let peers = results.filter { !$0.spec.isHotPotato }
        guard !ours.isEmpty, !peers.isEmpty else { return "" }
        var text = "\n| \(heading) | " + peers.map { "vs \($0.spec.label)" }.joined(separator: " | ") + " |\n"
        text += "|---|" + peers.map { _ in "--:" }.joined(separator: "|") + "|\n"
        for row in ours {
            text += "| \(row.spec.label) | " + peers.map { cells(row, $0) ?? "—" }.joined(separator: " | ") + " |\n"
        }
        return text
    }

    /// The first error of each kind each client met, and how a client that did not report ended.
    static func errors(_ results: [ScaleResult]) -> String {
        var lines: [String] = []
        for result in results {
            for (key, text) in result.notes.sorted(by: { $0.key < $1.key }) {
                lines.append("- \(result.spec.label), \(key.replacingOccurrences(of: "_", with: " ")): \(text)")
            }
        }
        return lines.isEmpty ? "" : "\n" + lines.joined(separator: "\n") + "\n"
    }
}
