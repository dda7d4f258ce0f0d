import Foundation

extension ScaleReport {
    /// Open streams and the spread: how many opened, how fast, and whether events kept flowing.
    static func streams(_ scenario: ScaleScenario, _ results: [ScaleResult]) -> String {
        let job = scenario.job
        var text = "| Case | Streams open | All open after | First event: median / slowest | Events in \(String(format: "%g", job.window)) s "
            + "| Failed | Server saw | Peak threads | Peak RSS (MiB) | CPU s |\n"
            + "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n"
        for result in results {
            let opened = result.value("opened")
            let allOpen = result.value("all_open") == 1
            let openCell = allOpen ? seconds(result.value("open_s"))
                : result.finished ? "not within \(plain(job.openLimit)) s" : "no: the process ended (below)"
            let firstCell = "\(seconds(result.value("first_p50_s"))) / \(seconds(result.value("first_max_s")))"
            text += "| \(label(result)) | \(count(opened)) of \(count(Double(job.count))) | \(openCell) | \(firstCell) | "
                + "\(eventsCell(result, window: job.window)) | \(count(result.value("failed"))) | \(count(result.serverPeakStreams)) | "
                + resources(result) + " |\n"
        }
        text += ratios(results, heading: "HotPotato ÷ peer: time to open all · peak RSS · peak threads") { ours, theirs in
            guard ours.value("all_open") == 1, theirs.value("all_open") == 1 else { return nil }
            let parts = [
                ratio(ours.value("open_s"), theirs.value("open_s")),
                ratio(ours.peakRSSMiB, theirs.peakRSSMiB),
                ratio(ours.peakThreads, theirs.peakThreads),
            ]
            return parts.map { $0 ?? "—" }.joined(separator: " · ")
        }
        return text
    }

    /// The events counted over the window, against one per open stream per second.
    private static func eventsCell(_ result: ScaleResult, window: Double) -> String {
        guard let events = result.value("window_events") else { return "—" }
        guard let opened = result.value("opened"), opened > 0, window > 0 else { return count(events) }
        let expected = opened * window
        return "\(count(events)) (" + String(format: "%.0f %%", 100 * events / expected) + ")"
    }
}
