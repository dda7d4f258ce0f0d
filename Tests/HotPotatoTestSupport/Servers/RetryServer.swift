import Foundation
@testable import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server of the tests' own, in the test process, for retries and credentials:
/// it fails on purpose a set number of times, then answers honestly, and logs every request it
/// gets. Each connection serves one request and closes. Each test uses names of its own; the
/// state of a name (how many requests it has had) lives as long as the process.
///
/// - `/download/<name>?size=N&drops=a,b,c` — an N-byte resource (the bytes of
///   `FaultServer.byte(at:)`) with a strong `ETag`. Request *k* (from 0) of the name, while
///   `k < drops.count`, stops the body cleanly at the absolute offset `drops[k]` (the declared
///   length promised more). `Range: bytes=S-` with a matching `If-Range` gets a `206` from S;
///   anything else the whole resource. `lie416=1`: a range request gets a `416` that says the
///   resource is as long as the range's start (the partial file, whole).
/// - `/status/<name>?fail=K&status=S&retryAfter=R` — the first K requests get status S (default
///   503) with a JSON error body and, when given, `Retry-After: R` (sent as it is: seconds or a
///   date); then `200` with `{"ok":true,"attempt":n}`.
/// - `/auth/<name>` — `200` with `{"user":"ok"}` for `Authorization: Bearer <token>` when the
///   token is the one `setValidToken(_:for:)` set for the name, else `401` with
///   `{"error":"invalid token"}`.
/// - `/echo/<name>` — reads the whole body (with a `Content-Length` or chunked) and answers `200`
///   with `{"length":N,"chunked":B,"complete":B}`; `/discard/<name>` does the same and keeps none
///   of the body in its record (a gigabyte upload costs the test process no memory).
/// - `/redirect/<name>?status=S&location=L` — reads the body, then answers status S (default 307)
///   with `Location: L`.
/// - `/silent/<name>?fail=K` — the first K requests of the name are read whole and answered with
///   nothing: the connection is closed cleanly without a byte of reply; then `200` with
///   `{"ok":true,"attempt":n}`.
/// - `/hangup/<name>?fail=K` — the first K requests are closed as soon as their head is read,
///   their body unread (a large upload then meets a broken pipe or a reset); then the body is
///   read and `200` with `{"ok":true,"attempt":n,"length":N}` answers.
/// - anything else: 404.
///
/// Every request's body is read (a `Content-Length` or chunked) and its first mebibyte kept in its
/// record, with its length and framing.
final class RetryServer: @unchecked Sendable {
    /// One request, as the tests check it.
    struct Record: Sendable {
        let method: String
        let path: String
        let range: String?
        let ifRange: String?
        let authorization: String?
        /// The first bytes of the body (at most 1 MiB; none for `/discard/…`).
        var body = Data()
        var bodyLength = 0
        var chunked = false
        var contentLength: String?
        var contentType: String?
    }

    let port: UInt16
    private let listener: LoopbackSocket
    private let state = Locked(State())

    private struct State {
        var records: [Record] = []
        var counts: [String: Int] = [:]
        var validTokens: [String: String] = [:]
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func url(_ pathAndQuery: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")! }

    /// The requests made to `path` (without its query), in the order they arrived.
    func records(_ path: String) -> [Record] { state.withLock { $0.records.filter { $0.path == path } } }

    /// Makes `token` the one `/auth/<name>` accepts.
    func setValidToken(_ token: String, for name: String) { state.withLock { $0.validTokens[name] = token } }

    /// The ETag of the `/download/…` resource of `size` bytes.
    static func etag(size: Int) -> String { "\"retry-\(size)\"" }

    init() throws {
        listener = try LoopbackSocket.listening(port: 0)
        port = listener.port
        LoopbackConnection.acceptForever(listener) { [self] in serve($0) }
    }

    // MARK: - Serving

    private typealias Request = LoopbackRequest

    private func serve(_ connection: Int32) {
        defer { _ = systemClose(connection) }
        guard let request = LoopbackRequest.read(connection, keep: { path in
            path.hasPrefix("/hangup/") ? -1 : path.hasPrefix("/discard/") ? 0 : 1 << 20
        }) else { return }
        let count = state.withLock { state -> Int in
            state.records.append(Record(
                method: request.method, path: request.path, range: request.headers["range"],
                ifRange: request.headers["if-range"], authorization: request.headers["authorization"],
                body: request.body, bodyLength: request.bodyLength, chunked: request.chunked,
                contentLength: request.headers["content-length"], contentType: request.headers["content-type"]))
            defer { state.counts[request.path, default: 0] += 1 }
            return state.counts[request.path, default: 0]
        }
        let parts = request.path.split(separator: "/")
        switch parts.first {
        case "download": download(connection, request, index: count)
        case "status": status(connection, request, index: count)
        case "auth":
            let token = state.withLock { $0.validTokens[parts.dropFirst().joined(separator: "/")] }
            if let token, request.headers["authorization"] == "Bearer \(token)" {
                respond(connection, status: 200, body: #"{"user":"ok"}"#)
            } else {
                respond(connection, status: 401, headers: ["WWW-Authenticate": "Bearer"], body: #"{"error":"invalid token"}"#)
            }
        case "redirect":
            respond(connection, status: Int(request.query["status"] ?? "") ?? 307, headers: ["Location": request.query["location"] ?? "/"],
                    body: #"{"redirect":true}"#)
        case "silent":
            guard count >= Int(request.query["fail"] ?? "") ?? 1 else {
                shutdown(connection, Int32(SHUT_WR))
                LoopbackConnection.drain(connection)
                return
            }
            respond(connection, status: 200, body: #"{"ok":true,"attempt":\#(count + 1)}"#)
        case "hangup":
            guard count >= Int(request.query["fail"] ?? "") ?? 1 else { return }
            let declared = Int(request.headers["content-length"] ?? "") ?? 0
            let length = request.bufferedBodyBytes + Self.discardBody(connection, length: declared - request.bufferedBodyBytes)
            respond(connection, status: 200, body: #"{"ok":true,"attempt":\#(count + 1),"length":\#(length)}"#)
        case "echo", "discard":
            respond(connection, status: 200, body: #"{"length":\#(request.bodyLength),"chunked":\#(request.chunked),"complete":\#(request.complete)}"#)
        default:
            respond(connection, status: 404, body: #"{"error":"no such route"}"#)
        }
    }

    private func download(_ connection: Int32, _ request: Request, index: Int) {
        let size = Int(request.query["size"] ?? "") ?? 1_000_000
        let drops = (request.query["drops"] ?? "").split(separator: ",").compactMap { Int($0) }
        let etag = Self.etag(size: size)
        var start = 0
        if let range = request.headers["range"], request.headers["if-range"] == etag,
           range.hasPrefix("bytes="), range.hasSuffix("-"), let from = Int(range.dropFirst(6).dropLast()), from < size {
            start = from
        }
        if start > 0, request.query["lie416"] == "1" {
            // A server that says the partial file is the whole resource: `416` with its size.
            LoopbackConnection.send(connection, Self.head(status: 416, headers: [
                "ETag": etag, "Content-Range": "bytes */\(start)", "Content-Length": "0",
            ]))
            return
        }
        var headers = ["ETag": etag, "Content-Type": "application/octet-stream", "Content-Length": String(size - start)]
        if start > 0 { headers["Content-Range"] = "bytes \(start)-\(size - 1)/\(size)" }
        LoopbackConnection.send(connection, Self.head(status: start > 0 ? 206 : 200, headers: headers))
        let end = index < drops.count ? max(start, min(size, drops[index])) : size
        var offset = start
        while offset < end {
            let count = min(64 * 1024, end - offset)
            guard LoopbackConnection.send(connection, Data((offset..<offset + count).map(FaultServer.byte(at:)))) else { return }
            offset += count
        }
        if end < size {
            // A clean close short of the declared length: every byte sent arrives.
            shutdown(connection, Int32(SHUT_WR))
            LoopbackConnection.drain(connection)
        }
    }

    private func status(_ connection: Int32, _ request: Request, index: Int) {
        let failures = Int(request.query["fail"] ?? "") ?? 1
        guard index >= failures else {
            var headers: [String: String] = [:]
            if let retryAfter = request.query["retryAfter"] { headers["Retry-After"] = retryAfter }
            respond(connection, status: Int(request.query["status"] ?? "") ?? 503, headers: headers, body: #"{"error":"busy, try later"}"#)
            return
        }
        respond(connection, status: 200, body: #"{"ok":true,"attempt":\#(index + 1)}"#)
    }

    /// Reads and drops `length` body bytes; how many came.
    private static func discardBody(_ connection: Int32, length: Int) -> Int {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var received = 0
        while received < length {
            let count = recv(connection, &buffer, min(buffer.count, length - received), 0)
            guard count > 0 else { break }
            received += count
        }
        return received
    }

    private func respond(_ connection: Int32, status: Int, headers: [String: String] = [:], body: String) {
        var headers = headers
        headers["Content-Type"] = "application/json"
        headers["Content-Length"] = String(body.utf8.count)
        LoopbackConnection.send(connection, Self.head(status: status, headers: headers) + Data(body.utf8))
    }

    private static func head(status: Int, headers: [String: String]) -> Data {
        LoopbackConnection.head(status: status, phrase: StatusPhrases.phrase(for: status) ?? "Status", headers: headers)
    }
}
