import Foundation
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The fault soak's HTTP/1.1 server, in the test process, on two ports of 127.0.0.1 (the second
/// is "another origin" for cross-origin redirects). Each connection serves one request and
/// closes (`Connection: close`).
///
/// A case registers a ``Plan`` (its resource and its fault) and gets a path, `/soak/<token>`; the
/// server serves the resource there — honestly (`200`, or `206`/`416` for `Range: bytes=N-` with a
/// matching `If-Range`, strong `ETag`, exact `Content-Length`) except for the plan's fault. Every
/// request is logged with the headers the oracle asks about (credentials, ranges, the port it
/// arrived on), and the redirect target is `/soak/<token>/target` on either port.
///
/// Every wait is bounded: a stall ends when the client closes or after 5 s, the gate that makes two
/// concurrent writers overlap opens after 1.5 s whatever happens.
final class SoakServer: @unchecked Sendable {
    /// What the server serves at a case's path.
    struct Plan: Sendable {
        let resource: SoakResource
        let fault: SoakFault
        /// Hold each response after its first bytes until two requests have arrived (two writers).
        let holdForSecondRequest: Bool
    }

    /// One request, as the oracle needs it.
    struct Record: Sendable {
        let port: UInt16
        let path: String
        let range: String?
        let ifRange: String?
        let acceptEncoding: String?
        let authorization: String?
        let proxyAuthorization: String?
        let cookie: String?
    }

    private final class Entry: @unchecked Sendable {
        let plan: Plan
        var honest = false
        var records: [Record] = []
        var servedResource = 0

        init(plan: Plan) { self.plan = plan }
    }

    let port: UInt16
    let otherPort: UInt16
    private let listeners: [LoopbackSocket]
    private let entries = Locked([String: Entry]())
    private let counter = Locked(0)

    init() throws {
        let first = try LoopbackSocket.listening(port: 0)
        let second = try LoopbackSocket.listening(port: 0)
        listeners = [first, second]
        port = first.port
        otherPort = second.port
        for listener in listeners {
            let thread = Thread { [weak self, listener] in
                while true {
                    let connection = Descriptors.accept(listener.descriptor)
                    guard connection >= 0 else {
                        if errno == EINTR || errno == ECONNABORTED { continue }
                        return
                    }
                    guard let self else { _ = systemClose(connection); return }
                    let worker = Thread { self.serve(connection, port: listener.port) }
                    worker.start()
                }
            }
            thread.start()
        }
    }

    /// Registers a case; returns the URL of its resource.
    func register(_ plan: Plan) -> URL {
        let token = counter.withLock { value -> String in
            value += 1
            return "c\(value)"
        }
        entries.withLock { $0[token] = Entry(plan: plan) }
        return URL(string: "http://127.0.0.1:\(port)/soak/\(token)")!
    }

    /// Forgets a case.
    func unregister(_ url: URL) {
        let token = url.lastPathComponent
        entries.withLock { _ = $0.removeValue(forKey: token) }
    }

    /// From now on the case's URL serves the resource honestly (for a follow-up download).
    func makeHonest(_ url: URL) {
        let token = url.lastPathComponent
        entries.withLock { $0[token]?.honest = true }
    }

    /// The requests the case's URL received so far.
    func records(for url: URL) -> [Record] {
        let token = url.lastPathComponent
        return entries.withLock { $0[token]?.records ?? [] }
    }

    // MARK: - Serving

    private struct Request {
        let path: String
        let headers: [String: String]
    }

    private func serve(_ connection: Int32, port: UInt16) {
        defer { _ = systemClose(connection) }
        var yes: Int32 = 1
        setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard let request = Self.readRequest(connection) else { return }
        let parts = request.path.split(separator: "/")
        guard parts.count >= 2, parts[0] == "soak",
              let entry = entries.withLock({ $0[String(parts[1])] }) else {
            LoopbackConnection.send(connection, Self.head(404, [("Content-Length", "0")]))
            return
        }
        let isTarget = parts.count >= 3 && parts[2] == "target"
        let (plan, honest) = entries.withLock { _ -> (Plan, Bool) in
            entry.records.append(Record(
                port: port, path: request.path, range: request.headers["range"], ifRange: request.headers["if-range"],
                acceptEncoding: request.headers["accept-encoding"], authorization: request.headers["authorization"],
                proxyAuthorization: request.headers["proxy-authorization"], cookie: request.headers["cookie"]))
            return (entry.plan, entry.honest)
        }
        let fault = honest ? .honest : plan.fault
        let token = String(parts[1])
        switch fault {
        case .redirect(let status, let crossOrigin) where !isTarget:
            let location = crossOrigin ? "http://127.0.0.1:\(otherPort)/soak/\(token)/target" : "/soak/\(token)/target"
            LoopbackConnection.send(connection, Self.head(status, [("Location", location), ("Content-Length", "0")]))
            Self.finishClean(connection)
        case .unfollowedRedirect(let status) where !isTarget:
            let body = Data("moved, but not in a way to follow".utf8)
            LoopbackConnection.send(connection, Self.head(status, [
                ("Location", "/soak/\(token)/target"), ("Content-Type", "text/plain"), ("Content-Length", String(body.count)),
            ]) + body)
            Self.finishClean(connection)
        case .serverError(let status, let bytes, let json):
            let head = Self.head(status, [
                ("Content-Type", json ? "application/json" : "text/plain"), ("Content-Length", String(bytes)),
            ])
            guard LoopbackConnection.send(connection, head) else { return }
            Self.sendBody(connection, Self.errorBody(bytes: bytes, json: json, token: token))
            Self.finishClean(connection)
        default:
            serveResource(connection, plan: plan, fault: fault, request: request, entry: entry)
        }
    }

    /// `Range: bytes=A-B` within the resource, with a matching `If-Range` (if any).
    private static func boundedRange(_ request: Request, total: Int, etag: String) -> (Int, Int)? {
        guard let range = request.headers["range"], range.hasPrefix("bytes="),
              request.headers["if-range"].map({ $0 == etag }) ?? true else { return nil }
        let bounds = range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Int(bounds[0]), let last = Int(bounds[1]), first <= last, first < total else { return nil }
        return (first, min(last, total - 1))
    }

    /// The body of a `5xx`: `{"error":"soak failure <token>"}` padded with spaces, or text.
    static func errorBody(bytes: Int, json: Bool, token: String) -> Data {
        if json {
            let message = Data(#"{"error":"\#(errorMessage(token: token))"}"#.utf8)
            return message.prefix(bytes) + Data(repeating: 0x20, count: max(0, bytes - message.count))
        }
        return Data((0..<bytes).map { UInt8(97 + $0 % 26) })
    }

    static func errorMessage(token: String) -> String { "soak failure \(token)" }

    private func serveResource(_ connection: Int32, plan: Plan, fault: SoakFault, request: Request, entry: Entry) {
        let resource = plan.resource
        var representation = resource.body
        var headers: [(String, String)] = [("Content-Type", resource.contentType), ("ETag", resource.etag), ("Accept-Ranges", "bytes")]
        if case .gzip = fault {
            representation = resource.gzipped
            headers.append(("Content-Encoding", "gzip"))
        }
        let total = representation.count
        // `bytes=N-` only, and only when If-Range (if any) names this version: what HotPotato sends.
        var offset: Int?
        if let range = request.headers["range"], range.hasPrefix("bytes="), range.hasSuffix("-"),
           let start = Int(range.dropFirst(6).dropLast()), start >= 0,
           request.headers["if-range"].map({ $0 == resource.etag }) ?? true {
            offset = start
        }

        var status = 200
        var body = representation
        var closeDelimited = false
        var lengthFields: [String]?
        switch fault {
        case .badRange(let bad, let permille):
            status = 206
            if let start = offset, start < total {
                switch bad {
                case .wrongStart(let delta):
                    var moved = start + delta
                    if moved < 0 || moved > total - 1 || moved == start { moved = start == 0 ? min(total - 1, 1) : 0 }
                    headers.append(("Content-Range", "bytes \(moved)-\(total - 1)/\(total)"))
                    body = representation.subdata(in: moved..<total)
                case .short(let delta):
                    let last = max(start, total - 1 - delta)
                    let claimed = last == total - 1 ? total + 1 : total
                    headers.append(("Content-Range", "bytes \(start)-\(last)/\(claimed)"))
                    body = representation.subdata(in: start..<(last + 1))
                case .longBody(let extra):
                    headers.append(("Content-Range", "bytes \(start)-\(total - 1)/\(total)"))
                    body = representation.subdata(in: start..<total) + Data(repeating: 0x2A, count: extra)
                    closeDelimited = true
                case .longLength(let extra):
                    headers.append(("Content-Range", "bytes \(start)-\(total - 1)/\(total)"))
                    body = representation.subdata(in: start..<total) + Data(repeating: 0x2A, count: extra)
                case .wrongTotal(let delta):
                    let claimed = max(total + delta, total == 1 ? 2 : total - 1 == start ? total + 1 : total + delta)
                    headers.append(("Content-Range", "bytes \(start)-\(total - 1)/\(claimed == total ? total + 1 : claimed)"))
                    body = representation.subdata(in: start..<total)
                }
            } else {
                // Nothing (or nothing satisfiable) was asked for: an unsolicited 206 for the tail.
                let from = min(total - 1, max(1, total * permille / 1000))
                headers.append(("Content-Range", "bytes \(from)-\(total - 1)/\(total)"))
                body = representation.subdata(in: from..<total)
            }
        case .range416(let delta):
            status = 416
            if let start = offset {
                if delta != 0 { headers.append(("Content-Range", "bytes */\(max(0, start + delta == start ? start + 1 : start + delta))")) }
            } else {
                headers.append(("Content-Range", "bytes */\(total)"))
            }
            body = Data("range not satisfiable".utf8)
        default:
            if offset == nil, let (first, last) = Self.boundedRange(request, total: total, etag: resource.etag) {
                // `bytes=A-B`, as a download over several connections asks for each part.
                status = 206
                headers.append(("Content-Range", "bytes \(first)-\(last)/\(total)"))
                body = representation.subdata(in: first..<(last + 1))
            } else if let start = offset {
                if start < total {
                    status = 206
                    headers.append(("Content-Range", "bytes \(start)-\(total - 1)/\(total)"))
                    body = representation.subdata(in: start..<total)
                } else {
                    status = 416
                    headers.append(("Content-Range", "bytes */\(total)"))
                    body = Data()
                }
            }
        }
        if case .badContentLength(let bad) = fault {
            closeDelimited = true
            switch bad {
            case .twoValues: lengthFields = [String(body.count), String(body.count + 7)]
            case .identicalRepeat: lengthFields = [String(body.count), String(body.count)]
            default: lengthFields = [bad.rawValue]
            }
        }
        if let lengthFields {
            headers += lengthFields.map { ("Content-Length", $0) }
        } else if !closeDelimited {
            headers.append(("Content-Length", String(body.count)))
        }
        guard LoopbackConnection.send(connection, Self.head(status, headers)) else { return }

        let hold = plan.holdForSecondRequest && status != 416
        if hold { entries.withLock { _ in entry.servedResource += 1 } }
        var sent = 0
        if hold {
            let first = min(body.count, 1024)
            guard LoopbackConnection.send(connection, body.prefix(first)) else { return }
            sent = first
            let deadline = Date().addingTimeInterval(1.5)
            while Date() < deadline, entries.withLock({ _ in entry.servedResource }) < 2 { usleep(2_000) }
        }
        func cut(_ permille: Int) -> Int { max(sent, body.count * permille / 1000) }
        switch fault {
        case .truncate(let permille):
            LoopbackConnection.send(connection, body.subdata(in: sent..<cut(permille)))
            Self.finishClean(connection)
        case .reset(let permille):
            LoopbackConnection.send(connection, body.subdata(in: sent..<cut(permille)))
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        case .stall(let permille):
            LoopbackConnection.send(connection, body.subdata(in: sent..<cut(permille)))
            LoopbackConnection.sleepUntilClosed(connection, seconds: 5)
        case .drip(let chunk, let delayMs):
            var offset = sent
            while offset < body.count {
                let end = min(body.count, offset + chunk)
                guard LoopbackConnection.send(connection, body.subdata(in: offset..<end)) else { return }
                offset = end
                usleep(UInt32(delayMs * 1000))
            }
            Self.finishClean(connection)
        default:
            Self.sendBody(connection, body.subdata(in: sent..<body.count))
            Self.finishClean(connection)
        }
    }

    // MARK: - Sockets

    private static func head(_ status: Int, _ headers: [(String, String)]) -> Data {
        LoopbackConnection.head(status: status, phrase: "Soak", headers: headers)
    }

    private static func sendBody(_ connection: Int32, _ body: Data) {
        var offset = 0
        while offset < body.count {
            let end = min(body.count, offset + 256 * 1024)
            guard LoopbackConnection.send(connection, body.subdata(in: offset..<end)) else { return }
            offset = end
        }
    }


    private static func readRequest(_ connection: Int32) -> Request? {
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.range(of: Data("\r\n\r\n".utf8)) == nil {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 || received.count > 64 * 1024 { return nil }
            received.append(buffer, count: count)
        }
        let text = String(decoding: received, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let target = String(requestLine[1])
        return Request(path: target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? target, headers: headers)
    }

    /// Ends the response cleanly and reads until the client closes (at most 5 s), so that unread
    /// request bytes do not turn the close into a reset.
    private static func finishClean(_ connection: Int32) {
        shutdown(connection, Int32(SHUT_WR))
        LoopbackConnection.sleepUntilClosed(connection, seconds: 5)
    }

}
