import Foundation
import ScaleKit

/// One row of a scale scenario: a client, run in a process of its own.
struct ScaleCaseSpec {
    enum Runner {
        /// `hotpotato-e2e scale <client> …`: `hp-curl`, `hp-urlsession`, `urlsession`.
        case harness(String)
        /// `ahc-e2e scale ahc …`.
        case companion(executable: String)
    }

    let label: String
    let runner: Runner
    /// HotPotato rows get ratios against every peer of their scenario.
    let isHotPotato: Bool

    /// The name `--clients` selects it by: `hp-curl`, `hp-urlsession`, `urlsession`, `ahc`.
    var client: String {
        switch runner {
        case .harness(let client): client
        case .companion: "ahc"
        }
    }
}

/// A scale scenario: one job, run by every client alike.
struct ScaleScenario {
    enum Kind { case openStreams, spread, headOfLine, perHostLimit, fanOut }

    let title: String
    let kind: Kind
    let job: ScaleJob
    let cases: [ScaleCaseSpec]
    /// What the table's reader must know: the settings each client ran with.
    let note: String

    /// The scenario with only the cases of `clients` (all when nil).
    func keeping(_ clients: Set<String>?) -> ScaleScenario {
        guard let clients else { return self }
        return ScaleScenario(title: title, kind: kind, job: job, cases: cases.filter { clients.contains($0.client) }, note: note)
    }
}

/// The scale scenarios of a run (`--scale`), against bench-server (and, for HTTP/2, nginx in
/// front of it over TLS).
struct ScalePlan {
    var runs = 1
    /// The sizes of the open-streams scenario; the first is also the head-of-line one's.
    var streamCounts: [Int]
    var spreadStreams: Int
    var spreadHosts: Int
    var fanOut: Int
    /// Seconds over which events are counted once the streams are open.
    var window: Double
    /// Seconds the spread and head-of-line scenarios wait for their streams to open.
    var openLimit: Double
    var companions: [String: String]

    static func full(companions: [String: String]) -> ScalePlan {
        ScalePlan(streamCounts: [1_000, 10_000], spreadStreams: 2_000, spreadHosts: 200, fanOut: 1_000, window: 10,
                  openLimit: 30, companions: companions)
    }

    static func smoke(companions: [String: String]) -> ScalePlan {
        ScalePlan(streamCounts: [100], spreadStreams: 200, spreadHosts: 20, fanOut: 100, window: 3,
                  openLimit: 10, companions: companions)
    }

    /// The most hosts any scenario uses: bench-server binds 127.0.0.1 … 127.0.0.`hosts`.
    var hosts: Int { max(2, spreadHosts) }

    private var everyClient: [ScaleCaseSpec] {
        [
            ScaleCaseSpec(label: "HotPotato (libcurl)", runner: .harness("hp-curl"), isHotPotato: true),
            ScaleCaseSpec(label: "HotPotato (URLSession)", runner: .harness("hp-urlsession"), isHotPotato: true),
            ScaleCaseSpec(label: "URLSession (data delegate)", runner: .harness("urlsession"), isHotPotato: false),
        ] + ahc
    }

    private var ahc: [ScaleCaseSpec] {
        companions["ahc"].map { [ScaleCaseSpec(label: "AsyncHTTPClient", runner: .companion(executable: $0), isHotPotato: false)] } ?? []
    }

    static let raisedNote = "Each client allowed N connections per host: HotPotato `\(HotPotatoLimits.settingName)` = N "
        + "(its URLSession engine: `httpMaximumConnectionsPerHost` = N), URLSession `httpMaximumConnectionsPerHost` = N "
        + "(6 by default), AsyncHTTPClient `connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit` = N (8 by default)."
    static let defaultsNote = "Every client at its defaults: HotPotato's `Session.Configuration()`, "
        + "`URLSessionConfiguration.default`, `HTTPClient.Configuration()`."

    func scenarios(port: Int, tlsPort: Int?) -> [ScaleScenario] {
        let events = "http://{host}:\(port)/events?interval=1"
        let small = "http://{host}:\(port)/small"
        var scenarios: [ScaleScenario] = []
        for count in streamCounts {
            var job = ScaleJob(kind: .streams, url: events, count: count, openLimit: count <= 2_000 ? openLimit : 2 * openLimit)
            job.perHost = count
            job.window = window
            scenarios.append(ScaleScenario(title: "Open streams: \(Self.number(count)) event streams to one host",
                                           kind: .openStreams, job: job, cases: everyClient, note: Self.raisedNote))
        }
        var spread = ScaleJob(kind: .streams, url: events, count: spreadStreams, openLimit: openLimit)
        spread.hosts = spreadHosts
        spread.window = max(2, (window / 2).rounded(.down))  // whole seconds: events come once a second
        scenarios.append(ScaleScenario(
            title: "Spread: \(Self.number(spreadStreams)) event streams over \(spreadHosts) hosts, at the defaults",
            kind: .spread, job: spread, cases: everyClient,
            note: "\(spreadStreams / spreadHosts) streams to each of 127.0.0.1 … 127.0.0.\(spreadHosts). " + Self.defaultsNote))
        let count = streamCounts.first ?? 1_000
        var headOfLine = ScaleJob(kind: .headOfLine, url: events, count: count, openLimit: openLimit)
        headOfLine.perHost = count
        headOfLine.probeURL = small
        headOfLine.probeHosts = [2]
        headOfLine.probeLimit = 5
        scenarios.append(ScaleScenario(
            title: "Head-of-line: \(Self.number(count)) streams open to host A, a GET to host B",
            kind: .headOfLine, job: headOfLine, cases: everyClient,
            note: "A is 127.0.0.1, B is 127.0.0.2 (another host). " + Self.raisedNote))
        var perHost = ScaleJob(kind: .headOfLine, url: events, count: 8, openLimit: 10)
        perHost.perHost = 8
        perHost.probeURL = small
        perHost.probeHosts = [1, 2]
        perHost.probeLimit = 2
        scenarios.append(ScaleScenario(
            title: "Per-host limit: 8 streams to host A at a limit of 8, a GET to A and one to B",
            kind: .perHostLimit, job: perHost, cases: everyClient,
            note: "Each client allowed 8 connections per host (as N above, N = 8). The GET to A should wait: "
                + "the limit is reached; the GET to B should not."))
        var fanOut = ScaleJob(kind: .fanOut, url: "http://{host}:\(port)/delay?ms=200", count: self.fanOut, openLimit: 2 * openLimit)
        scenarios.append(ScaleScenario(
            title: "Fan-out: \(Self.number(self.fanOut)) GETs of /delay?ms=200 at once over HTTP/1.1",
            kind: .fanOut, job: fanOut, cases: everyClient, note: Self.defaultsNote))
        if let tlsPort {
            fanOut.url = "https://127.0.0.1:\(tlsPort)/delay?ms=200"
            scenarios.append(ScaleScenario(
                title: "Fan-out: \(Self.number(self.fanOut)) GETs of /delay?ms=200 at once over HTTP/2 (nginx, TLS)",
                kind: .fanOut, job: fanOut,
                cases: [everyClient[0]] + ahc,
                note: Self.defaultsNote + " nginx (`http2_max_concurrent_streams` 128) proxies to bench-server over "
                    + "kept-alive HTTP/1.1 (the server's connections are nginx's). No URLSession rows: FoundationNetworking on Linux cannot be told to trust "
                    + "the run's own certificate authority (`URLSessionCertificateAuthorityInfoFile` is read on "
                    + "Android only)."))
        }
        return scenarios
    }

    static func number(_ value: Int) -> String {
        value >= 1_000 ? "\(value / 1_000) \(String(format: "%03d", value % 1_000))" : String(value)
    }
}
