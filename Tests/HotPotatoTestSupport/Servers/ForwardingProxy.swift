import Foundation
@testable import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP proxy of the tests' own, in the test process, on 127.0.0.1: it forwards
/// absolute-form requests (`GET http://127.0.0.1:PORT/path HTTP/1.1`) and tunnels `CONNECT
/// host:port`, to 127.0.0.1 and localhost only, and records what it was asked.
///
/// - Each connection carries one request (the forwarded one is sent with `Connection: close`, so
///   the origin's answer says so too) or one tunnel; its thread ends when either side closes,
///   when nothing moves for 30 s, or when the proxy stops.
/// - A forwarded request loses `Proxy-Authorization`, `Proxy-Connection`, `Connection` and
///   `Keep-Alive` on its way, as a real proxy's would: what the origin echoes is what the client
///   sent it, not what it sent the proxy.
/// - With `credentials`, a request without the matching `Proxy-Authorization: Basic` gets a
///   `407` with `Proxy-Authenticate` and goes no further.
/// - An origin-form request (`GET /path`) gets a `400`: it was not sent to a proxy.
///
/// Stop it with ``stop()`` at the end of the test (its accepting thread keeps it alive until then).
final class ForwardingProxy: @unchecked Sendable {
    /// What the proxy was asked: the request line (`GET http://…` or `CONNECT host:port`) and
    /// the `Proxy-Authorization` that came with it.
    struct Record: Sendable, Equatable {
        var requestLine: String
        var proxyAuthorization: String?
    }

    let port: UInt16
    private let listener: LoopbackSocket
    /// The `Proxy-Authorization` value required, if any.
    private let expectedAuthorization: String?
    private let state = Locked(State())

    private struct State {
        var records: [Record] = []
        var connections: Set<Int32> = []
        var stopped = false
        var listenerClosed = false
    }

    /// `http://127.0.0.1:PORT`.
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The proxy's URL with `user` and `password` in it (percent-encoded as a URL needs).
    func url(user: String, password: String) -> URL {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)!
        components.user = user
        components.password = password
        return components.url!
    }

    /// What the proxy has been asked so far, in order.
    var records: [Record] { state.withLock { $0.records } }

    /// Starts the proxy on a free port; with `credentials`, it answers `407` to requests without
    /// them.
    init(requiring credentials: (user: String, password: String)? = nil) throws {
        listener = try LoopbackSocket.listening(port: 0)
        port = listener.port
        expectedAuthorization = credentials.map { "Basic " + Data("\($0.user):\($0.password)".utf8).base64EncodedString() }
        let thread = Thread { [self] in acceptConnections() }
        thread.start()
    }

    /// Stops accepting and ends every connection; their threads then end.
    func stop() {
        // Under the lock: a connection's thread forgets its descriptor before closing it, and the
        // listener is closed only once `accept` has failed, after this.
        state.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            if !state.listenerClosed { shutdown(listener.descriptor, Int32(SHUT_RDWR)) }
            for connection in state.connections { shutdown(connection, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptConnections() {
        defer {
            state.withLock { $0.listenerClosed = true }
            listener.close()
        }
        while true {
            let connection = Descriptors.accept(listener.descriptor)
            guard connection >= 0 else {
                if errno == EINTR { continue }
                return
            }
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.insert(connection)
                return true
            }
            guard accepted else {
                _ = systemClose(connection)
                return
            }
            Thread { [self] in
                serve(connection)
                close(connection)
            }.start()
        }
    }

    /// Forgets `connection` (so that ``stop()`` never shuts down a reused descriptor), then
    /// closes it.
    private func close(_ connection: Int32) {
        state.withLock { _ = $0.connections.remove(connection) }
        _ = systemClose(connection)
    }

    private func serve(_ client: Int32) {
        guard let (head, early) = Self.readHead(client) else { return }
        let lines = String(decoding: head, as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines[0]
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)))
        }
        let authorization = fields.first { $0.name.lowercased() == "proxy-authorization" }?.value
        state.withLock { $0.records.append(Record(requestLine: requestLine, proxyAuthorization: authorization)) }
        if let expectedAuthorization, authorization != expectedAuthorization {
            Self.answer(client, "407 Proxy Authentication Required", extra: "Proxy-Authenticate: Basic realm=\"test proxy\"\r\n")
            return
        }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { return Self.answer(client, "400 Bad Request") }
        if parts[0] == "CONNECT" {
            guard let colon = parts[1].lastIndex(of: ":"), let port = UInt16(parts[1][parts[1].index(after: colon)...]),
                  Self.isLoopback(String(parts[1][..<colon])) else { return Self.answer(client, "403 Forbidden") }
            guard let upstream = Self.connect(port: port) else { return Self.answer(client, "502 Bad Gateway") }
            defer { _ = systemClose(upstream) }
            LoopbackConnection.send(client, Data("HTTP/1.1 200 Connection established\r\n\r\n".utf8))
            if !early.isEmpty { LoopbackConnection.send(upstream, early) }
            relay(client, upstream)
            return
        }
        guard let target = URLComponents(string: parts[1]), target.scheme == "http", let host = target.host,
              Self.isLoopback(host) else { return Self.answer(client, "400 Bad Request") }
        guard let upstream = Self.connect(port: UInt16(target.port ?? 80)) else { return Self.answer(client, "502 Bad Gateway") }
        defer { _ = systemClose(upstream) }
        let dropped: Set<String> = ["proxy-authorization", "proxy-connection", "connection", "keep-alive"]
        var forwarded = "\(parts[0]) \(target.percentEncodedPath.isEmpty ? "/" : target.percentEncodedPath)"
        if let query = target.percentEncodedQuery { forwarded += "?" + query }
        forwarded += " HTTP/1.1\r\n"
        for field in fields where !dropped.contains(field.name.lowercased()) { forwarded += "\(field.name): \(field.value)\r\n" }
        forwarded += "Connection: close\r\n\r\n"
        LoopbackConnection.send(upstream, Data(forwarded.utf8) + early)
        relay(client, upstream)
    }

    /// Copies bytes both ways until either side closes, nothing moves for 30 s, or the proxy stops.
    private func relay(_ client: Int32, _ upstream: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var idle = 0
        while idle < 300, !state.withLock({ $0.stopped }) {
            var descriptors = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&descriptors, 2, 100)
            if ready < 0 && errno != EINTR { return }
            if ready <= 0 { idle += 1; continue }
            idle = 0
            for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
                let count = recv(descriptor.fd, &buffer, buffer.count, 0)
                if count <= 0 { return }
                let other = index == 0 ? upstream : client
                guard LoopbackConnection.send(other, Data(buffer[0..<count])) else { return }
            }
        }
    }

    /// The request head (without its blank line) and any bytes read past it; `nil` when the client
    /// closes first or sends more than 64 KiB of head.
    private static func readHead(_ connection: Int32) -> (Data, Data)? {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let end = Data("\r\n\r\n".utf8)
        while true {
            if let range = received.range(of: end) {
                return (received[..<range.lowerBound], Data(received[range.upperBound...]))
            }
            if received.count > 64 * 1024 { return nil }
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            received.append(buffer, count: count)
        }
    }

    private static func answer(_ connection: Int32, _ status: String, extra: String = "") {
        LoopbackConnection.send(connection, Data("HTTP/1.1 \(status)\r\n\(extra)Content-Length: 0\r\nConnection: close\r\n\r\n".utf8))
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "127.0.0.1" || host.lowercased() == "localhost"
    }

    /// A connection to 127.0.0.1:`port`, or `nil`.
    private static func connect(port: UInt16) -> Int32? {
        let fd = Descriptors.tcpSocket()
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                #if canImport(Glibc)
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #else
                Darwin.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                #endif
            }
        }
        guard connected == 0 else {
            _ = systemClose(fd)
            return nil
        }
        return fd
    }
}
