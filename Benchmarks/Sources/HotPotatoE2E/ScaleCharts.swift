import Foundation

/// The charts of a scale run (`--scale --charts DIRECTORY`), from the same results as its tables:
/// for every open-streams scenario, each client's peak memory, peak threads and time to open
/// them all — what BENCHMARKS.md shows of issue 29's engine.
enum ScaleCharts {
    static func write(_ sections: [(ScaleScenario, [ScaleResult])], to directory: String) throws -> [String] {
        let streams = sections.filter { $0.0.kind == .openStreams || $0.0.kind == .spread }
        guard !streams.isEmpty else { return [] }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let charts: [(String, BarChart)] = [
            ("streams-memory.svg", BarChart(
                title: "Open event streams: peak memory", subtitle: "Peak RSS of the client process, MiB; less is better",
                groups: streams.map { group($0) { $0.peakRSSMiB } }, format: { String(format: "%.0f", $0) }, scalesEachGroup: true)),
            ("streams-threads.svg", BarChart(
                title: "Open event streams: peak threads", subtitle: "Threads of the client process, sampled every 100 ms; less is better",
                groups: streams.map { group($0) { $0.peakThreads ?? .nan } }, format: { String(format: "%.0f", $0) }, scalesEachGroup: true)),
            ("streams-open-time.svg", BarChart(
                title: "Open event streams: time until all are open",
                subtitle: "Seconds; less is better; no bar for a client that did not open them all",
                groups: streams.map { group($0) { $0.value("all_open") == 1 ? $0.value("open_s") ?? .nan : .nan } },
                format: { String(format: "%.2f s", $0) }, scalesEachGroup: true)),
        ]
        for (name, chart) in charts {
            try chart.svg.write(toFile: (directory as NSString).appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        return charts.map(\.0)
    }

    private static func group(_ section: (ScaleScenario, [ScaleResult]), value: (ScaleResult) -> Double) -> BarChart.Group {
        BarChart.Group(title: section.0.title, bars: section.1.map {
            BarChart.Bar(label: $0.spec.label, value: value($0), highlighted: $0.spec.isHotPotato)
        })
    }
}
