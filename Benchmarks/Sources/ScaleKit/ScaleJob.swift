import Foundation

/// One scale case's job, as the harness passes it to a client process (`key=value` arguments):
/// what to open or fetch, how many, spread over how many hosts, with which connection limit,
/// and the time limits that keep every case from hanging.
public struct ScaleJob: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// Hold `count` event streams open: time until each has delivered its first event, then
        /// the events delivered over `window` seconds.
        case streams
        /// Hold `count` event streams open to host 1, then time a GET to each of `probeHosts`.
        case headOfLine = "hol"
        /// Start `count` GETs at once; time until all have answered.
        case fanOut = "fanout"
    }

    public var kind: Kind
    /// The URL of every stream or GET, `{host}` standing for 127.0.0.K.
    public var url: String
    /// Streams and GETs go to 127.0.0.1 … 127.0.0.`hosts`, in turn.
    public var hosts = 1
    public var count: Int
    /// The connections per host the client is allowed, or `nil` for the client's defaults.
    public var perHost: Int?
    /// Seconds to wait for every stream to open (for `fanOut`, for every GET to answer).
    public var openLimit: Double
    /// Seconds over which events are counted once the streams are open.
    public var window: Double = 0
    /// The probes' URL (`headOfLine`), `{host}` standing for 127.0.0.K.
    public var probeURL = ""
    /// The hosts probed (`headOfLine`): 1 for 127.0.0.1, the streams' host; 2 for another.
    public var probeHosts: [Int] = []
    /// Seconds a probe may take before it counts as unanswered.
    public var probeLimit: Double = 0

    public init(kind: Kind, url: String, count: Int, openLimit: Double) {
        self.kind = kind
        self.url = url
        self.count = count
        self.openLimit = openLimit
    }

    /// The longest the job can take, plus a margin: the harness kills a client still running
    /// after it.
    public var hardLimit: Double { openLimit + window + probeLimit + 30 }

    /// The URL of stream or GET number `index` (from 0): its host is 127.0.0.(index % hosts + 1).
    public func url(_ index: Int) -> URL { Self.url(url, host: index % max(1, hosts) + 1) }

    public func probe(host: Int) -> URL { Self.url(probeURL, host: host) }

    private static func url(_ template: String, host: Int) -> URL {
        let text = template.replacingOccurrences(of: "{host}", with: "127.0.0.\(host)")
        guard let url = URL(string: text) else { fatalError("bad URL \(text)") }
        return url
    }

    public var arguments: [String] {
        ["kind=\(kind.rawValue)", "url=\(url)", "hosts=\(hosts)", "count=\(count)",
         "perHost=\(perHost.map(String.init) ?? "default")", "openLimit=\(openLimit)", "window=\(window)",
         "probeURL=\(probeURL)", "probeHosts=\(probeHosts.map(String.init).joined(separator: ","))",
         "probeLimit=\(probeLimit)"]
    }

    public init(arguments: [String]) throws {
        var fields: [String: String] = [:]
        for argument in arguments {
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw ScaleClientError("not key=value: \(argument)") }
            fields[String(parts[0])] = String(parts[1])
        }
        guard let kind = fields["kind"].flatMap(Kind.init(rawValue:)), let url = fields["url"],
              let count = fields["count"].flatMap(Int.init), let openLimit = fields["openLimit"].flatMap(Double.init)
        else { throw ScaleClientError("a job needs kind, url, count and openLimit: \(arguments)") }
        self.init(kind: kind, url: url, count: count, openLimit: openLimit)
        hosts = fields["hosts"].flatMap(Int.init) ?? 1
        perHost = fields["perHost"].flatMap(Int.init)
        window = fields["window"].flatMap(Double.init) ?? 0
        probeURL = fields["probeURL"] ?? ""
        probeHosts = (fields["probeHosts"] ?? "").split(separator: ",").compactMap { Int($0) }
        probeLimit = fields["probeLimit"].flatMap(Double.init) ?? 0
    }
}
