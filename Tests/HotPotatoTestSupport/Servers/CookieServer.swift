import Foundation
@testable import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server for cookie tests, answering on two loopback addresses that stand for
/// two hosts — 127.0.0.1 and 127.0.0.2 (a cookie for an IP address is host-only, so one never
/// reaches the other) — and, through libcurl's own resolution of `*.localhost`, on any name
/// under `localhost`. Each connection serves one request and closes. Every response's body is the
/// request's `Cookie` header (empty without one), as `text/plain`.
///
/// - `/echo?set=LINES` — `200`, with one `Set-Cookie` field for each line of `set` (lines joined
///   with a line feed; see `url(_:path:setting:)`).
/// - `/redirect?to=URL&status=S&set=LINES` — `S` (default `302`) to `URL`, with those fields.
/// - `/many?count=N` — `200` with N fields `cI=I` (a hostile server's flood).
/// - `/flaky?key=K&set=LINES` — the first request for `K` gets `503` with those fields; the next
///   ones `200`: what a retried call meets.
///
/// Every socket is close-on-exec (see `Descriptors`: `SOCK_CLOEXEC` listeners, `accept4`),
/// so that a child process started meanwhile (potato, in its tests) keeps none open.
final class CookieServer: @unchecked Sendable {
    /// The port on 127.0.0.1 (host A) and on 127.0.0.2 (host B).
    let portA: UInt16
    let portB: UInt16
    private let flakyKeys = Locked(Set<String>())

    private static let server = StartOnce { try CookieServer() }

    /// The server, started once per test process on first use.
    static func shared() async throws -> CookieServer { try await server.value() }

    init() throws {
        let listenerA = try Self.makeListener(address: 0x7F00_0001)
        let listenerB = try Self.makeListener(address: 0x7F00_0002)
        (portA, portB) = (listenerA.port, listenerB.port)
        for listener in [listenerA.descriptor, listenerB.descriptor] {
            LoopbackConnection.acceptForever(descriptor: listener) { [self] in serve($0) }
        }
    }

    /// `path` on 127.0.0.1 (or on `host`, resolved to it, like `www.shop.localhost`), with a
    /// `set` parameter asking for each of `cookies` as a `Set-Cookie` field, and `query` after it.
    func url(_ path: String, host: String = "127.0.0.1", setting cookies: [String] = [], query: [String: String] = [:]) -> URL {
        Self.url(host: host, port: host == "127.0.0.2" ? portB : portA, path: path, setting: cookies, query: query)
    }

    /// `path` on 127.0.0.2: another host.
    func urlB(_ path: String, setting cookies: [String] = [], query: [String: String] = [:]) -> URL {
        url(path, host: "127.0.0.2", setting: cookies, query: query)
    }

    private static func url(host: String, port: UInt16, path: String, setting cookies: [String], query: [String: String]) -> URL {
        var components = URLComponents()
        components.scheme = "http"
        components.host = host
        components.port = Int(port)
        components.path = path
        var items = cookies.isEmpty ? [] : [URLQueryItem(name: "set", value: cookies.joined(separator: "\n"))]
        items += query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        components.queryItems = items.isEmpty ? nil : items
        // `;` and `=` in a cookie line are query delimiters to some parsers: escape them.
        components.percentEncodedQuery = components.percentEncodedQuery?
            .replacingOccurrences(of: ";", with: "%3B").replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }

    private func serve(_ connection: Int32) {
        defer { _ = systemClose(connection) }
        guard let request = LoopbackRequest.read(connection, keep: { _ in 0 }) else { return }
        let cookies = request.query["set"].map { $0.split(separator: "\n").map(String.init) } ?? []
        var status = 200
        var fields: [(String, String)] = cookies.map { ("Set-Cookie", $0) }
        switch request.path {
        case "/redirect":
            status = Int(request.query["status"] ?? "") ?? 302
            fields.append(("Location", request.query["to"] ?? "/echo"))
        case "/many":
            let count = min(Int(request.query["count"] ?? "") ?? 10, 100_000)
            fields += (0..<count).map { ("Set-Cookie", "c\($0)=\($0)") }
        case "/flaky":
            let key = request.query["key"] ?? ""
            if flakyKeys.withLock({ $0.insert(key).inserted }) { status = 503 }
        default:
            break
        }
        let body = Data((request.headers["cookie"] ?? "").utf8)
        var head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : status == 503 ? "Service Unavailable" : "Found")\r\n"
        for (name, value) in fields + [("Content-Type", "text/plain"), ("Content-Length", String(body.count)), ("Connection", "close")] {
            head += "\(name): \(value)\r\n"
        }
        LoopbackConnection.send(connection, Data((head + "\r\n").utf8) + body)
        shutdown(connection, Int32(SHUT_WR))
        LoopbackConnection.drain(connection)
    }

    /// A close-on-exec socket listening on `address` (host byte order), port chosen by the system.
    private static func makeListener(address: UInt32) throws -> (descriptor: Int32, port: UInt16) {
        let fd = Descriptors.tcpSocket()
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_addr.s_addr = address.bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && listen(fd, 128) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            _ = systemClose(fd)
            throw error
        }
        return (fd, UInt16(bigEndian: socketAddress.sin_port))
    }
}
