// hotpotato-e2e: HotPotato against its peers, end to end, in one run.
//
//   hotpotato-e2e [--smoke] [--runs N] [--only TEXT] [--output FILE.md] [--json FILE.json] [--charts DIR]
//                 [--ahc PATH | --no-ahc]
//   hotpotato-e2e case NAME URL DESTINATION COUNT      (one case, in a child process)
//   hotpotato-e2e --scale [--smoke] [--runs N] [--streams N] [--fanout N] [--only TEXT]
//                 [--clients hp-curl,hp-urlsession,urlsession,ahc] [--output FILE.md] [--charts DIR] [--ahc PATH | --no-ahc]
//                                                      (the scale scenarios: see ScaleMain)
//   hotpotato-e2e scale CLIENT key=value…              (one scale case, in a child process)
//
// Starts nginx on 127.0.0.1 with its own configuration in a temporary directory, generates the
// files, runs every case interleaved (A B A B …) in fresh processes, and prints one Markdown table
// per scenario with MiB/s (or requests/s), CPU seconds, peak RSS, and each HotPotato row's ratio to
// every peer doing the same job.
import BenchmarkFixtures
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "case" {
    guard arguments.count == 5, let count = Int(arguments[4]) else {
        FileHandle.standardError.write(Data("usage: hotpotato-e2e case NAME URL DESTINATION COUNT\n".utf8))
        exit(2)
    }
    do {
        try await CaseRunner.run(arguments[1], url: arguments[2], destination: arguments[3], count: count)
        exit(0)
    } catch {
        print("error: \(error)")
        exit(1)
    }
}

if arguments.first == "scale" {
    await ScaleCase.run(Array(arguments.dropFirst()))
}

func value(after flag: String) -> String? {
    guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

// AsyncHTTPClient's cases run when its executable was built beside this one (or is given).
var companions: [String: String] = [:]
let besideSelf = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
    .deletingLastPathComponent().appendingPathComponent("ahc-e2e").path
if let ahc = value(after: "--ahc") ?? (FileManager.default.isExecutableFile(atPath: besideSelf) ? besideSelf : nil),
   !arguments.contains("--no-ahc") {
    companions["ahc"] = ahc
}
var plan = arguments.contains("--smoke") ? Plan.smoke(companions: companions) : Plan.full(companions: companions)
if let runs = value(after: "--runs").flatMap(Int.init) { plan.runs = max(1, runs) }
let only = value(after: "--only")
let outputPath = value(after: "--output")
let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]

func log(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

for flag in ["--output", "--json", "--charts", "--runs", "--only"] where arguments.contains(flag) && value(after: flag) == nil {
    log("error: \(flag) needs a value")
    exit(2)
}
if arguments.contains("--scale"), arguments.contains("--json") {
    log("error: --json writes the throughput scenarios' results; the scale scenarios write Markdown only (--output)")
    exit(2)
}

if arguments.contains("--scale") {
    do {
        let options = ScaleMain.Options(
            smoke: arguments.contains("--smoke"), runs: value(after: "--runs").flatMap(Int.init),
            streams: value(after: "--streams").flatMap(Int.init), fanOut: value(after: "--fanout").flatMap(Int.init),
            only: only, clients: value(after: "--clients").map { Set($0.split(separator: ",").map(String.init)) },
            charts: value(after: "--charts"))
        let report = try ScaleMain.run(options, companions: companions, selfPath: selfPath, log: log)
        print(report, terminator: "")
        if let outputPath { try report.write(toFile: outputPath, atomically: true, encoding: .utf8) }
        exit(0)
    } catch {
        log("error: \(error)")
        exit(1)
    }
}

do {
    log("Generating files and starting nginx…")
    let nginx = try NginxFixture(fileSizes: plan.fileSizes, jsonBytes: plan.jsonBytes)
    defer { nginx.stop() }
    // The HTTPS cases trust the fixture's certificate authority; the children inherit this.
    if let authority = nginx.certificateAuthority { setenv("HOTPOTATO_E2E_CA", authority, 1) }
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("hotpotato-e2e-out-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let orchestrator = Orchestrator(plan: plan, nginx: nginx, selfPath: selfPath, scratch: scratch, log: log)
    var sections: [(Scenario, [CaseResult])] = []
    var details = ""
    for scenario in plan.scenarios where only.map({ scenario.title.contains($0) }) ?? true {
        if scenario.secure, nginx.tlsPort == nil {
            log("\(scenario.title): skipped, no HTTPS server (is openssl installed?)")
            continue
        }
        log("\(scenario.title):")
        let results = try orchestrator.run(scenario)
        sections.append((scenario, results))
        details += Report.markdown(scenario, results)
    }
    let machine = Report.machine()
    let report = "### Machine\n\n\(machine)\n\nRuns per case: \(plan.runs), interleaved; medians.\n\n"
        + "### Overview\n\n" + Report.overview(sections)
        + "\n### All cases\n\n" + Report.summary(sections) + "\n### By scenario\n\n" + details
    print(report, terminator: "")
    if let outputPath { try report.write(toFile: outputPath, atomically: true, encoding: .utf8) }
    if let jsonPath = value(after: "--json") {
        try JSONResults(sections, runsPerCase: plan.runs, machine: machine).write(toFile: jsonPath)
        log("results: \(jsonPath)")
    }
    if let chartsPath = value(after: "--charts") {
        for name in try RunCharts.write(sections, to: chartsPath) { log("chart: \(chartsPath)/\(name)") }
    }
} catch {
    log("error: \(error)")
    exit(1)
}
