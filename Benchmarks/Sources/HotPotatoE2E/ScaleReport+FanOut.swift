import Foundation

extension ScaleReport {
    /// Fan-out: how long until every GET answered, and how many failed.
    static func fanOut(_ scenario: ScaleScenario, _ results: [ScaleResult]) -> String {
        let job = scenario.job
        var text = "| Case | Answered | Failed | All done after | Server's peak connections | Peak threads | Peak RSS (MiB) | CPU s |\n"
            + "|---|--:|--:|--:|--:|--:|--:|--:|\n"
        for result in results {
            let done = result.value("all_done") == 1
                ? seconds(result.value("total_s")) : "not within \(plain(job.openLimit)) s"
            text += "| \(label(result)) | \(count(result.value("answered"))) of \(count(Double(job.count))) | "
                + "\(count(result.value("failed"))) | \(done) | \(count(result.serverPeakConnections)) | " + resources(result) + " |\n"
        }
        text += ratios(results, heading: "HotPotato ÷ peer: time until all answered (where none failed)") { ours, theirs in
            guard complete(ours, job.count), complete(theirs, job.count) else { return nil }
            return ratio(ours.value("total_s"), theirs.value("total_s"))
        }
        return text
    }

    private static func complete(_ result: ScaleResult, _ count: Int) -> Bool {
        result.value("answered") == Double(count) && result.value("failed") == 0
    }
}
