import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``EventMonitor`` that writes a line for each event of a request: each attempt sent, each
/// redirect, the response head, each retry and its wait, and the end with its duration.
///
/// ```
/// [#3] > GET https://api.example.com/items (attempt 1)
/// [#3] < HTTP/2 503 Service Unavailable (text/html, 190 bytes)
/// [#3] retrying: attempt 1 failed (unacceptableStatus, status 503); attempt 2 in 1.00 s
/// [#3] > GET https://api.example.com/items (attempt 2)
/// [#3] < HTTP/2 200 OK (application/json, 5120 bytes)
/// [#3] done: 200 in 1.094 s, 2 attempts
/// ```
///
/// A response's line starts with its version of HTTP (`HTTP/1.1`, `HTTP/2`) when the engine
/// knows it (``ResponseHead/httpVersion``), and with `HTTP` alone when it does not (the
/// URLSession engine).
///
/// Credentials are never written: the values of `Authorization`, `Proxy-Authorization`, `Cookie`
/// and `Set-Cookie` read `<redacted>`, and so does the user information of a URL (see
/// ``Redaction``), and an error's reason is never written in full; control characters are
/// written as escapes (see ``lines(for:)``). With ``includesHeaders``,
/// each header of a request and a response gets a line of its own under it, as `curl -v` shows
/// them.
public struct EventLogger: EventMonitor {
    /// The queue the lines are written from.
    public let queue: DispatchQueue
    /// Whether to write every request and response header, a line each.
    public let includesHeaders: Bool
    /// Whether to write progress events (throttled as ``Call/progress`` is).
    public let includesProgress: Bool
    private let write: @Sendable (String) -> Void

    /// Creates a logger.
    /// - Parameters:
    ///   - includesHeaders: Whether to write every header; default `false`.
    ///   - includesProgress: Whether to write progress; default `false`.
    ///   - queue: The queue to write from; by default HotPotato's monitor queue.
    ///   - write: Writes one line (without its newline); by default to standard error.
    public init(
        includesHeaders: Bool = false, includesProgress: Bool = false, queue: DispatchQueue? = nil,
        write: (@Sendable (String) -> Void)? = nil
    ) {
        self.includesHeaders = includesHeaders
        self.includesProgress = includesProgress
        self.queue = queue ?? EventMonitors.defaultQueue
        self.write = write ?? { line in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }

    /// Writes the event's lines.
    public func receive(_ event: RequestEvent) {
        for line in lines(for: event) { write(line) }
    }

    /// The lines written for `event`. What the server sent (headers, the status phrase, its
    /// message, a redirect's URL) may hold escape sequences that would steer a terminal: every
    /// control and bidirectional formatting character is written as a visible escape such as
    /// `\x1B`.
    public func lines(for event: RequestEvent) -> [String] {
        rawLines(for: event).map(TerminalText.safe)
    }

    /// A request's headers, one `> Name: value` line each, credentials masked.
    private func headerLines(of request: URLRequest, prefix: String) -> [String] {
        (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key.lowercased() < $1.key.lowercased() }).map { name, value in
            "\(prefix) > \(name): \(Self.shown(name, value))"
        }
    }

    private func rawLines(for event: RequestEvent) -> [String] {
        let prefix = "[#\(event.requestID)]"
        switch event.kind {
        case .created:
            return []
        case .attemptStarted(let request, let attempt):
            let lines = ["\(prefix) > \(request.httpMethod ?? "GET") \(Redaction.redacting(request.url)) (attempt \(attempt))"]
            return lines + (includesHeaders ? headerLines(of: request, prefix: prefix) : [])
        case .redirected(let head, let next):
            var lines = ["\(prefix) redirect: \(head.status) to \(next.httpMethod ?? "GET") \(Redaction.redacting(next.url))"]
            if includesHeaders {
                // The redirect's own headers (its `Location`, the cookies it set), then the next
                // request's, as it goes out.
                for field in head.headers { lines.append("\(prefix) < \(field.name): \(Self.shown(field.name, field.value))") }
                lines += headerLines(of: next, prefix: prefix)
            }
            return lines
        case .headReceived(let head):
            var details: [String] = []
            if let type = head.headers["Content-Type"] { details.append(type) }
            if let length = head.contentLength { details.append("\(length) bytes") }
            // The version as the status line has it (`HTTP/2 200 OK`), when the engine knows it.
            var line = "\(prefix) < \(head.httpVersion.map(String.init(describing:)) ?? "HTTP") \(head.status) \(head.reasonPhrase)"
            if !details.isEmpty { line += " (\(details.joined(separator: ", ")))" }
            var lines = [line]
            if includesHeaders {
                for field in head.headers { lines.append("\(prefix) < \(field.name): \(Self.shown(field.name, field.value))") }
            }
            return lines
        case .progress(let progress):
            guard includesProgress else { return [] }
            let total = progress.expectedBytes.map { " of \($0)" } ?? ""
            return ["\(prefix) progress: \(progress.bytesReceived)\(total) bytes"]
        case .retryScheduled(let attempt, let delay, let error):
            return ["\(prefix) retrying: attempt \(attempt) failed (\(Self.summary(of: error))); attempt \(attempt + 1) in "
                + String(format: "%.2f s", delay)]
        case .finished(let summary):
            let duration = String(format: "%.3f s", summary.duration)
            let attempts = summary.attempts == 1 ? "" : ", \(summary.attempts) attempts"
            if let error = summary.error {
                return ["\(prefix) failed: \(Self.summary(of: error)) in \(duration)\(attempts)"]
            }
            var lines = ["\(prefix) done: \(summary.status.map(String.init) ?? "-") in \(duration)\(attempts)"]
            if let timings = summary.timings, let line = Self.measurements(timings) { lines.append("\(prefix) \(line)") }
            return lines
        }
    }

    /// The code, a rejected status and the server's message, never the reason's whole text.
    /// The phases and the connection, when the engine measured them: `times: dns 0.4 ms,
    /// connect 0.9 ms, tls 12.1 ms, first byte 15.0 ms, total 20.3 ms; connection 127.0.0.1:443
    /// (new), TLSv1.3 TLS_AES_256_GCM_SHA384`.
    static func measurements(_ timings: TransferTimings) -> String? {
        var parts: [String] = []
        if let phases = timings.phases {
            let named: [(String, TimeInterval?)] = [("dns", phases.nameLookup), ("connect", phases.connect), ("tls", phases.tlsHandshake),
                                                    ("first byte", phases.firstByte), ("total", phases.total)]
            let times = named.compactMap { name, value in value.map { "\(name) \(String(format: "%.1f ms", $0 * 1000))" } }
            if !times.isEmpty { parts.append("times: " + times.joined(separator: ", ")) }
        }
        if let connection = timings.connection {
            var text = "connection"
            if let address = connection.remoteAddress {
                text += " " + (address.contains(":") ? "[\(address)]" : address) + (connection.remotePort.map { ":\($0)" } ?? "")
            }
            if let reused = connection.isReused { text += reused ? " (reused)" : " (new)" }
            if let version = connection.tlsVersion {
                text += ", " + version + (connection.tlsCipherSuite.map { " \($0)" } ?? "")
            }
            parts.append(text)
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    static func summary(of error: HotPotatoError) -> String {
        var parts = ["\(error.code)"]
        if error.code.isRejection, let status = error.status { parts.append("status \(status)") }
        if let message = error.serverMessage { parts.append("server says: \(message.prefix(200))") }
        return parts.joined(separator: ", ")
    }

    static func shown(_ name: String, _ value: String) -> String {
        Redaction.headerValue(value, named: name)
    }
}
