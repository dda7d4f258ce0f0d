import Foundation

extension ScaleReport {
    /// Head-of-line and the per-host limit: streams held open to host A, then GETs to B (and A).
    static func probes(_ scenario: ScaleScenario, _ results: [ScaleResult]) -> String {
        let job = scenario.job
        let hosts = job.probeHosts
        let names = hosts.map { $0 == 1 ? "GET to A (same host)" : "GET to B (other host)" }
        var text = "| Case | Streams open to A | " + names.joined(separator: " | ") + " | Peak threads | Peak RSS (MiB) | CPU s |\n"
            + "|---|--:|" + hosts.map { _ in "--:" }.joined(separator: "|") + "|--:|--:|--:|\n"
        for result in results {
            let opened = "\(count(result.value("opened"))) of \(count(Double(job.count)))"
                + (result.value("all_open") == 1 ? "" : " (after \(plain(job.openLimit)) s)")
            let cells = hosts.map { probeCell(result, host: $0, limit: job.probeLimit) }
            text += "| \(label(result)) | \(opened) | " + cells.joined(separator: " | ") + " | " + resources(result) + " |\n"
        }
        if hosts.contains(2) {
            text += ratios(results, heading: "HotPotato ÷ peer: GET to B's time") { ours, theirs in
                ratio(ours.value("probe2_ms"), theirs.value("probe2_ms"))
            }
        }
        return text
    }

    private static func probeCell(_ result: ScaleResult, host: Int, limit: Double) -> String {
        if let milliseconds = result.value("probe\(host)_ms") {
            return milliseconds < 1000 ? String(format: "%.1f ms", milliseconds) : String(format: "%.2f s", milliseconds / 1000)
        }
        if result.value("probe\(host)_failed") == 1 { return "failed (below)" }
        if result.value("probe\(host)_unanswered") == 1 { return "no answer within \(plain(limit)) s" }
        return "not probed (the case ended first)"
    }
}
