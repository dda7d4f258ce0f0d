import BenchmarkFixtures
import Foundation
import ScaleKit

/// `hotpotato-e2e --scale`: the scale scenarios (many event streams, head-of-line blocking,
/// fan-out) against bench-server, with nginx in front of it for HTTP/2. Kept out of the default
/// run and of the smoke run: they need bench-server (so SwiftNIO), raised open-file limits, and
/// minutes of a machine's time.
enum ScaleMain {
    struct Options {
        var smoke = false
        var runs: Int?
        var streams: Int?
        var fanOut: Int?
        var only: String?
        /// The clients to run (`hp-curl`, `hp-urlsession`, `urlsession`, `ahc`); all when nil.
        var clients: Set<String>?
        /// Where to write the charts (``ScaleCharts``); none when nil.
        var charts: String?
    }

    /// Runs the selected scenarios; the Markdown report.
    static func run(_ options: Options, companions: [String: String], selfPath: String, log: @escaping (String) -> Void) throws -> String {
        FileLimit.raiseToHardLimit()
        var plan = options.smoke ? ScalePlan.smoke(companions: companions) : ScalePlan.full(companions: companions)
        if let runs = options.runs { plan.runs = max(1, runs) }
        if let streams = options.streams { plan.streamCounts = [max(1, streams)] }
        if let fanOut = options.fanOut { plan.fanOut = max(1, fanOut) }
        let folder = URL(fileURLWithPath: selfPath).deletingLastPathComponent()
        let serverPath = folder.appendingPathComponent("bench-server").path
        guard FileManager.default.isExecutableFile(atPath: serverPath) else {
            throw HarnessError("bench-server is missing beside \(selfPath): swift build -c release --product bench-server")
        }
        log("Starting bench-server on 127.0.0.1 … 127.0.0.\(plan.hosts)…")
        let server = try BenchServerFixture(executable: serverPath, hosts: plan.hosts)
        defer { server.stop() }
        var nginx: NginxFixture?
        do {
            nginx = try NginxFixture(fileSizes: [], jsonBytes: 10_000, benchServerPort: server.port)
        } catch {
            log("No nginx, so no HTTP/2 fan-out: \(error)")
        }
        defer { nginx?.stop() }
        if let authority = nginx?.certificateAuthority { setenv("HOTPOTATO_E2E_CA", authority, 1) }
        let orchestrator = ScaleOrchestrator(runs: plan.runs, server: server, selfPath: selfPath, log: log)
        var report = "### Machine\n\n" + ScaleReport.preamble(runs: plan.runs, serverHosts: plan.hosts)
        var sections: [(ScaleScenario, [ScaleResult])] = []
        for scenario in plan.scenarios(port: server.port, tlsPort: nginx?.tlsPort)
        where options.only.map({ scenario.title.contains($0) }) ?? true {
            let needed = FileLimit.needed(forConnections: scenario.job.count)
            let hard = FileLimit.current().hard
            guard hard >= needed else {
                let reason = "skipped: needs an open-file limit of \(needed) (`ulimit -Hn` is \(hard))"
                log("\(scenario.title): \(reason)")
                report += "### \(scenario.title)\n\n\(reason.prefix(1).uppercased() + reason.dropFirst()).\n\n"
                continue
            }
            log("\(scenario.title):")
            let results = try orchestrator.run(scenario.keeping(options.clients))
            sections.append((scenario, results))
            report += ScaleReport.markdown(scenario, results)
        }
        if let charts = options.charts {
            for name in try ScaleCharts.write(sections, to: charts) { log("chart: \(charts)/\(name)") }
        }
        return report
    }
}
