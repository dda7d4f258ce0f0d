import BenchmarkFixtures
import Foundation

/// One row of a scenario: a HotPotato configuration or a peer, run in a process of its own.
struct CaseSpec {
    enum Runner {
        /// This harness's own child mode: `hotpotato-e2e case <name> …`.
        case harness(String)
        /// Another executable of the benchmark package (AsyncHTTPClient), same protocol.
        case companion(executable: String, name: String)
        /// The curl command-line tool, writing to a file or to /dev/null.
        case curlTool(toFile: Bool)
        /// Another downloader's command line (aria2c, wget2), writing to the destination: `{URL}`,
        /// `{FILE}`, `{DIR}` and `{NAME}` in `arguments` stand for the URL and where it goes.
        case tool(executable: String, arguments: [String])
    }

    let label: String
    let runner: Runner
    /// HotPotato rows get ratios against every peer of their scenario.
    let isHotPotato: Bool
}

/// A job measured across HotPotato and its peers, all doing the same thing with the same file.
struct Scenario {
    enum Unit { case throughput, requests }

    let title: String
    let file: String
    let count: Int
    let unit: Unit
    var cases: [CaseSpec]
    /// Whether the file is fetched over HTTPS (from nginx's HTTP/2 server, whose certificate
    /// authority the cases are told of in `HOTPOTATO_E2E_CA`).
    var secure = false
    /// The location the file is fetched from: `capped/` for nginx's per-connection cap.
    var location = ""
    /// Whether every run's file is checked against the served file's SHA-256 (after the clock
    /// stops): a run that wrote other bytes fails the harness.
    var verifiesFiles = false
}

/// The scenarios of a run.
struct Plan {
    var runs: Int
    var sizes: [Int]
    var jsonBytes: Int
    var parallelSize: Int
    var slowSize: Int
    /// The file fetched from nginx with each connection capped at 16 MiB/s.
    var cappedSize: Int
    var smallRequests: Int
    /// How many small HTTPS requests are made at once in each of the HTTP/2 scenarios.
    var concurrentRequests: [Int]
    var companions: [String: String]

    static func smoke(companions: [String: String]) -> Plan {
        Plan(runs: 1, sizes: [1 << 20, 8 << 20], jsonBytes: 2_000_000, parallelSize: 4 << 20, slowSize: 8 << 20,
             cappedSize: 32 << 20, smallRequests: 200, concurrentRequests: [16], companions: companions)
    }

    static func full(companions: [String: String]) -> Plan {
        Plan(runs: 5, sizes: [1 << 20, 100 << 20, 1 << 30], jsonBytes: 50_000_000, parallelSize: 64 << 20,
             slowSize: 1 << 30, cappedSize: 256 << 20, smallRequests: 2_000, concurrentRequests: [100, 1_000], companions: companions)
    }

    var fileSizes: [Int] { sizes + [parallelSize, slowSize, cappedSize] }

    private func hotPotato(_ job: String) -> [CaseSpec] {
        [("curl", "libcurl"), ("urlsession", "URLSession")].map { engine, name in
            CaseSpec(label: "HotPotato (\(name)) \(job)", runner: .harness("hp-\(engine)-\(job)"), isHotPotato: true)
        }
    }

    private func peer(_ label: String, _ name: String) -> CaseSpec {
        CaseSpec(label: label, runner: .harness("urlsession-\(name)"), isHotPotato: false)
    }

    private func companion(_ label: String, _ name: String) -> [CaseSpec] {
        guard let executable = companions["ahc"] else { return [] }
        return [CaseSpec(label: label, runner: .companion(executable: executable, name: name), isHotPotato: false)]
    }

    private let curlFile = CaseSpec(label: "curl -o FILE", runner: .curlTool(toFile: true), isHotPotato: false)
    private let curlNull = CaseSpec(label: "curl -o /dev/null", runner: .curlTool(toFile: false), isHotPotato: false)

    var scenarios: [Scenario] {
        var scenarios: [Scenario] = []
        for size in sizes {
            let file = NginxFixture.fileName(size)
            let name = Self.describe(size)
            // `file + sha256`: the same download verified against the file's SHA-256 (issue 30's
            // "checking costs at most 10 %"), on the libcurl engine.
            let verified = CaseSpec(label: "HotPotato (libcurl) file + sha256", runner: .harness("hp-curl-filesha256"), isHotPotato: true)
            scenarios.append(Scenario(title: "\(name) to a file", file: file, count: 1, unit: .throughput, cases:
                hotPotato("file") + [verified] + [
                    peer("URLSession downloadTask (completion handler)", "download-completion"),
                    peer("URLSession downloadTask (delegate)", "download-delegate"),
                    peer("URLSession data delegate → FileHandle", "delegate-filehandle"),
                ] + companion("AsyncHTTPClient FileDownloadDelegate", "ahc-file") + [curlFile]))
            scenarios.append(Scenario(title: "\(name) to an OutputStream", file: file, count: 1, unit: .throughput, cases:
                hotPotato("stream") + [peer("URLSession data delegate → FileHandle", "delegate-filehandle"), curlFile]))
            scenarios.append(Scenario(title: "\(name) into memory", file: file, count: 1, unit: .throughput, cases:
                hotPotato("data") + [peer("URLSession data(from:)", "data")] + companion("AsyncHTTPClient collect", "ahc-data")))
            scenarios.append(Scenario(title: "\(name) discarded", file: file, count: 1, unit: .throughput, cases:
                hotPotato("discard") + [peer("URLSession data delegate, discarding", "delegate-discard")]
                    + companion("AsyncHTTPClient streaming body", "ahc-stream") + [curlNull]))
        }
        scenarios.append(cappedScenario)
        scenarios.append(Scenario(title: "\(Self.describe(jsonBytes)) JSON document", file: "document.json", count: 1, unit: .throughput, cases:
            hotPotato("json") + [peer("URLSession data(from:) + JSONSerialization", "json")]))
        scenarios.append(Scenario(title: "\(Self.describe(slowSize)), slow consumer (100 µs per 16 KiB)", file: NginxFixture.fileName(slowSize),
            count: 1, unit: .throughput, cases: hotPotato("slow")))
        scenarios.append(Scenario(title: "16 parallel downloads of \(Self.describe(parallelSize))", file: NginxFixture.fileName(parallelSize),
            count: 16, unit: .throughput, cases: hotPotato("parallel") + [peer("URLSession data delegate, 16 tasks", "parallel")]
                + companion("AsyncHTTPClient, 16 streaming requests", "ahc-parallel")))
        scenarios.append(Scenario(title: "\(smallRequests) sequential GETs of 1 KiB JSON", file: "small.json", count: smallRequests,
            unit: .requests, cases: hotPotato("small") + [peer("URLSession data(from:) + JSONSerialization", "small")]
                + companion("AsyncHTTPClient + JSONSerialization", "ahc-small")))
        for width in [16, 64] {
            scenarios.append(Scenario(title: "\(smallRequests) GETs of 1 KiB JSON, \(width) at a time", file: "small.json",
                count: smallRequests, unit: .requests, cases: hotPotato("small\(width)")
                    + [peer("URLSession data(from:) + JSONSerialization", "small\(width)")]
                    + companion("AsyncHTTPClient + JSONSerialization", "ahc-small\(width)")))
        }
        // All at once over HTTPS: HTTP/2 multiplexes them over one connection (a few past 100
        // streams), HTTP/1.1 opens a connection each. The HTTP/1.1 row is HotPotato too, but
        // counted as a peer, so that the HTTP/2 row gets its ratio to it.
        for count in concurrentRequests {
            scenarios.append(Scenario(title: "\(count) concurrent GETs of 1 KiB JSON over HTTPS", file: "small.json", count: count,
                unit: .requests, cases: [
                    CaseSpec(label: "HotPotato (libcurl, HTTP/2)", runner: .harness("hp-curl-h2burst"), isHotPotato: true),
                    CaseSpec(label: "HotPotato (libcurl, HTTP/1.1)", runner: .harness("hp-curl-h1burst"), isHotPotato: false),
                ] + companion("AsyncHTTPClient (HTTP/2) + JSONSerialization", "ahc-h2burst"),
                secure: true))
        }
        return scenarios
    }

    /// A file from nginx capping each connection at 16 MiB/s: one connection is the ceiling,
    /// unless the file is fetched as parts over several (HotPotato's `connections:`, aria2's
    /// `-x8 -s8`, wget2's threads). Every run's file is checked against the served file's SHA-256.
    private var cappedScenario: Scenario {
        let aria2 = CaseSpec(label: "aria2c -x8 -s8", runner: .tool(executable: "aria2c", arguments: [
            "-x8", "-s8", "-k1M", "--file-allocation=none", "--allow-overwrite=true", "--auto-file-renaming=false",
            "--console-log-level=error", "--summary-interval=0", "-d", "{DIR}", "-o", "{NAME}", "{URL}",
        ]), isHotPotato: false)
        let wget2 = CaseSpec(label: "wget2 --max-threads=8 --chunk-size=16M", runner: .tool(executable: "wget2", arguments: [
            "-q", "--max-threads=8", "--chunk-size=16M", "-O", "{FILE}", "{URL}",
        ]), isHotPotato: false)
        return Scenario(
            title: "\(Self.describe(cappedSize)) at 16 MiB/s per connection", file: NginxFixture.fileName(cappedSize), count: 1,
            unit: .throughput, cases: [
                CaseSpec(label: "HotPotato (libcurl) --connections 8", runner: .harness("hp-curl-segments8"), isHotPotato: true),
                CaseSpec(label: "HotPotato (libcurl), one connection", runner: .harness("hp-curl-file"), isHotPotato: false),
                aria2, wget2, curlFile,
            ],
            location: "capped/", verifiesFiles: true)
    }

    static func describe(_ bytes: Int) -> String {
        if bytes >= 1 << 30, bytes % (1 << 30) == 0 { return "\(bytes >> 30) GiB" }
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        return String(format: "%.0f MB", Double(bytes) / 1e6)
    }
}
