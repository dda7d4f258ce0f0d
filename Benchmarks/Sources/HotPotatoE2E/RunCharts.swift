import Foundation

/// The charts of an end-to-end run, drawn from the same results as its tables and written as SVG
/// files beside the report (`--charts DIRECTORY`): what BENCHMARKS.md shows.
enum RunCharts {
    /// Writes every chart into `directory`; returns the file names written.
    static func write(_ sections: [(Scenario, [CaseResult])], to directory: String) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var written: [String] = []
        for (name, chart) in charts(sections) {
            try chart.svg.write(toFile: (directory as NSString).appendingPathComponent(name), atomically: true, encoding: .utf8)
            written.append(name)
        }
        return written
    }

    static func charts(_ sections: [(Scenario, [CaseResult])]) -> [(String, BarChart)] {
        let throughput = sections.filter { $0.0.unit == .throughput }
        let requests = sections.filter { $0.0.unit == .requests }
        let segmented = sections.filter { !$0.0.location.isEmpty }
        var charts: [(String, BarChart)] = []
        let ratios = throughput.compactMap(ratioGroup)
        if !ratios.isEmpty {
            charts.append(("speed-ratios.svg", BarChart(
                title: "HotPotato (libcurl) against each peer, by scenario",
                subtitle: "Throughput ratio: HotPotato's MiB/s divided by the peer's (above 1×: HotPotato is faster)",
                groups: ratios, format: { String(format: "%.2f×", $0) }, reference: 1)))
        }
        if !throughput.isEmpty {
            charts.append(("throughput.svg", BarChart(
                title: "Throughput by scenario", subtitle: "MiB/s, median of the runs; more is better; each scenario on its own scale",
                groups: throughput.map { group($0, value: \.mibPerSecond) }, format: { String(format: "%.0f", $0) },
                scalesEachGroup: true)))
        }
        if !sections.isEmpty {
            charts.append(("memory.svg", BarChart(
                title: "Peak memory by scenario", subtitle: "Peak RSS of the whole process, MiB; less is better; each scenario on its own scale",
                groups: sections.map { group($0, value: \.peakRSSMiB) }, format: { String(format: "%.1f", $0) },
                scalesEachGroup: true)))
        }
        if !requests.isEmpty {
            charts.append(("requests.svg", BarChart(
                title: "Small requests and concurrency", subtitle: "Requests a second, median of the runs; more is better; each scenario on its own scale",
                groups: requests.map { group($0, value: \.requestsPerSecond) }, format: { String(format: "%.0f", $0) },
                scalesEachGroup: true)))
        }
        if !segmented.isEmpty {
            charts.append(("segmented.svg", BarChart(
                title: "One file over several connections", subtitle: "MiB/s from nginx capping each connection at 16 MiB/s; more is better",
                groups: segmented.map { group($0, value: \.mibPerSecond) }, format: { String(format: "%.1f", $0) })))
        }
        return charts
    }

    /// A scenario's cases, each a bar of `value`.
    private static func group(_ section: (Scenario, [CaseResult]), value: KeyPath<CaseResult, Double>) -> BarChart.Group {
        BarChart.Group(title: section.0.title, bars: section.1.map {
            BarChart.Bar(label: $0.spec.label, value: $0[keyPath: value], highlighted: $0.spec.isHotPotato)
        })
    }

    /// A scenario's ratios of HotPotato's first libcurl row (or first row) to each peer; `nil`
    /// without both.
    private static func ratioGroup(_ section: (Scenario, [CaseResult])) -> BarChart.Group? {
        let (scenario, results) = section
        let ours = results.filter(\.spec.isHotPotato)
        guard let row = ours.first(where: { $0.spec.label.contains("libcurl") }) ?? ours.first else { return nil }
        let peers = results.filter { !$0.spec.isHotPotato }
        guard !peers.isEmpty else { return nil }
        return BarChart.Group(title: scenario.title, bars: peers.map { peer in
            let ratio = row.mibPerSecond / peer.mibPerSecond
            return BarChart.Bar(label: "vs \(peer.spec.label)", value: ratio, highlighted: ratio >= 1)
        })
    }
}
