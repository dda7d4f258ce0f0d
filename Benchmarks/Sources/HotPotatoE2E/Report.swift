import BenchmarkFixtures
import Foundation

/// Formats results as Markdown: one table per scenario, then each HotPotato row's ratio to every
/// peer of that scenario.
enum Report {
    static func markdown(_ scenario: Scenario, _ results: [CaseResult]) -> String {
        let rate = scenario.unit == .throughput ? "MiB/s" : "requests/s"
        // Time to first byte, where any case reports it (single requests: HotPotato's phases,
        // curl's `time_starttransfer`); "—" for a case that does not.
        let firstByte = results.contains { $0.firstByteSeconds != nil }
        var text = "### \(scenario.title)\n\n| Case | \(rate) | CPU s | Peak RSS (MiB) |" + (firstByte ? " First byte (ms) |" : "")
            + "\n|---|--:|--:|--:|" + (firstByte ? "--:|" : "") + "\n"
        for result in results {
            let value = scenario.unit == .throughput ? result.mibPerSecond : result.requestsPerSecond
            text += "| \(result.spec.isHotPotato ? "**\(result.spec.label)**" : result.spec.label) | "
                + String(format: "%.0f | %.2f | %.1f |", value, result.cpuSeconds, result.peakRSSMiB)
            if firstByte { text += result.firstByteSeconds.map { String(format: " %.2f |", $0 * 1000) } ?? " — |" }
            text += "\n"
        }
        let hotPotato = results.filter(\.spec.isHotPotato)
        let peers = results.filter { !$0.spec.isHotPotato }
        if !hotPotato.isEmpty, !peers.isEmpty {
            text += "\n| Ratio (speed) | " + peers.map { "vs \($0.spec.label)" }.joined(separator: " | ") + " |\n"
            text += "|---|" + peers.map { _ in "--:" }.joined(separator: "|") + "|\n"
            for row in hotPotato {
                text += "| \(row.spec.label) | " + peers.map { peer in
                    let ours = scenario.unit == .throughput ? row.mibPerSecond : row.requestsPerSecond
                    let theirs = scenario.unit == .throughput ? peer.mibPerSecond : peer.requestsPerSecond
                    return String(format: "%.2f×", ours / theirs)
                }.joined(separator: " | ") + " |\n"
            }
        }
        return text + "\n"
    }

    private static func osName() -> String {
        let text = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
        let line = text.split(separator: "\n").first { $0.hasPrefix("PRETTY_NAME=") } ?? "unknown"
        return line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
    }

    /// One table of every case of every scenario: rate, CPU, peak memory, and for HotPotato's rows
    /// the ratio to each peer doing the same job.
    static func summary(_ sections: [(Scenario, [CaseResult])]) -> String {
        var text = "| Scenario | Case | Rate | CPU s | Peak RSS (MiB) | Ratio to each peer doing the same job |\n|---|---|--:|--:|--:|---|\n"
        for (scenario, results) in sections {
            let unit = scenario.unit == .throughput ? "MiB/s" : "req/s"
            func rate(_ result: CaseResult) -> Double {
                scenario.unit == .throughput ? result.mibPerSecond : result.requestsPerSecond
            }
            let peers = results.filter { !$0.spec.isHotPotato }
            for result in results {
                let ratios = result.spec.isHotPotato
                    ? peers.map { String(format: "%.2f× %@", rate(result) / rate($0), $0.spec.label) }.joined(separator: "; ")
                    : ""
                let label = result.spec.isHotPotato ? "**\(result.spec.label)**" : result.spec.label
                text += "| \(scenario.title) | \(label) | " + String(format: "%.0f %@ | %.2f | %.1f | ", rate(result), unit, result.cpuSeconds, result.peakRSSMiB)
                    + ratios + " |\n"
            }
        }
        return text
    }

    /// The first screen of BENCHMARKS.md: one row a scenario — HotPotato's default engine
    /// (libcurl, or the scenario's first HotPotato row), its rate and peak memory, and its speed
    /// as a ratio to each peer doing the same job.
    static func overview(_ sections: [(Scenario, [CaseResult])]) -> String {
        var text = "| Scenario | HotPotato | Rate | Peak RSS (MiB) | Speed ratio to each peer (above 1×: HotPotato is faster) |\n"
            + "|---|---|--:|--:|---|\n"
        for (scenario, results) in sections {
            let ours = results.filter(\.spec.isHotPotato)
            guard let row = ours.first(where: { $0.spec.label.contains("libcurl") }) ?? ours.first else { continue }
            func rate(_ result: CaseResult) -> Double {
                scenario.unit == .throughput ? result.mibPerSecond : result.requestsPerSecond
            }
            let unit = scenario.unit == .throughput ? "MiB/s" : "req/s"
            let peers = results.filter { !$0.spec.isHotPotato }
            let ratios = peers.isEmpty ? "—" : peers.map { String(format: "**%.2f×** %@", rate(row) / rate($0), $0.spec.label) }
                .joined(separator: "; ")
            text += "| \(scenario.title) | \(row.spec.label) | " + String(format: "%.0f %@ | %.1f | ", rate(row), unit, row.peakRSSMiB)
                + ratios + " |\n"
        }
        return text
    }

    /// The machine and tools the run used.
    static func machine() -> String {
        func firstLine(_ path: String, _ key: String) -> String {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").first { $0.hasPrefix(key) }.map {
                String($0.split(separator: ":", maxSplits: 1).last ?? "").trimmingCharacters(in: .whitespaces)
            } ?? "unknown"
        }
        func version(_ tool: String, _ arguments: [String]) -> String {
            guard let path = findExecutable(tool), let result = try? spawnAndWait(path, arguments) else { return "not found" }
            return result.output.split(separator: "\n").first.map(String.init) ?? ""
        }
        let memory = firstLine("/proc/meminfo", "MemTotal")
        return """
            - CPU: \(firstLine("/proc/cpuinfo", "model name")), \(ProcessInfo.processInfo.activeProcessorCount) cores; memory \(memory)
            - OS: \(osName()), kernel \(version("uname", ["-r"]))
            - Swift: \(version("swift", ["--version"]))
            - curl: \(version("curl", ["--version"]))
            - nginx on 127.0.0.1 (sendfile, keep-alive), files in \(FileManager.default.temporaryDirectory.path)
            """
    }
}
