import Foundation
@testable import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server that keeps connections alive, then drops one as it is reused: what makes an HTTP
/// client send a request body again on a new connection (libcurl rewinds it through its seek
/// callback, and FoundationNetworking asks its delegate for a new body stream).
///
/// - `/first/<name>` — reads the request and answers `200` with `ok`, keeping the connection.
/// - `/second/<name>` — on a connection that has served a request before, reads the whole request
///   and closes the connection cleanly without an answer (as a server that timed the connection
///   out would); on a new connection, reads the whole body and answers `200` with
///   `{"length":N,…}`, like `RetryServer`'s `/echo/…`.
///
/// `records(_:)` lists the bodies the new connections got (at most 1 MiB each).
final class ReuseServer: @unchecked Sendable {
    let port: UInt16
    private let listener: LoopbackSocket
    private let state = Locked([String: [Data]]())

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// The bodies `/second/<name>` read on new connections, in order.
    func records(_ path: String) -> [Data] { state.withLock { $0[path] ?? [] } }

    init() throws {
        listener = try LoopbackSocket.listening(port: 0)
        port = listener.port
        LoopbackConnection.acceptForever(listener) { [self] in serve($0) }
    }

    private func serve(_ connection: Int32) {
        defer { _ = systemClose(connection) }
        var reused = false
        LoopbackRequest.serveKeptAlive(connection, keep: { path in
            path.hasPrefix("/second/") && reused ? 0 : 1 << 20
        }) { request, index in
            defer { reused = true }
            if request.path.hasPrefix("/second/") {
                guard index == 0 else {
                    // Drop the reused connection unanswered, with a clean close.
                    shutdown(connection, Int32(SHUT_WR))
                    return false
                }
                state.withLock { $0[request.path, default: []].append(request.body) }
                let body = #"{"length":\#(request.bodyLength),"chunked":\#(request.chunked),"complete":\#(request.complete)}"#
                respond(connection, body, keepAlive: false)
                return false
            }
            respond(connection, "ok", keepAlive: true)
            return true
        }
    }

    private func respond(_ connection: Int32, _ body: String, keepAlive: Bool) {
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: \(keepAlive ? "keep-alive" : "close")\r\n\r\n"
        LoopbackConnection.send(connection, Data((head + body).utf8))
    }
}
