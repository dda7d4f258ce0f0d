import Foundation
@testable import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A server that holds a request's body back: it reads the head, then reads nothing more until
/// the test releases the path — so the test can change the body's file while the client is in
/// the middle of sending it (the client blocks once the socket buffers are full) — then reads
/// exactly the `Content-Length` announced, answers `200` with `Connection: close`, and keeps
/// reading until the client closes: any byte that arrives past the announced body is recorded
/// as ``Record/excess`` (what a server would read as the start of the next request).
///
/// Its connections are accepted with a small receive buffer (64 KiB), so that little of a body
/// is in flight while it is held.
final class BodyHoldingServer: @unchecked Sendable {
    /// One request, as the tests check it.
    struct Record: Sendable {
        let method: String
        let path: String
        let contentLength: Int?
        /// The body bytes read, up to the `Content-Length` (at most 1 MiB of them kept).
        var bodyLength = 0
        var bodyStart = Data()
        /// The bytes that came after the announced body, before the client closed.
        var excess = Data()
        /// Whether the connection has been read to its close.
        var finished = false
    }

    let port: UInt16
    private let listener: LoopbackSocket
    private let state = Locked(State())

    private struct State {
        var records: [String: Record] = [:]
        var released: Set<String> = []
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    init() throws {
        listener = try LoopbackSocket.listening(port: 0)
        var size: Int32 = 64 * 1024
        setsockopt(listener.descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        port = listener.port
        LoopbackConnection.acceptForever(listener) { [self] in serve($0) }
    }

    /// Waits (off the cooperative pool, at most `seconds`) until the head of a request for `path`
    /// has arrived; `false` if it did not.
    func waitForHead(_ path: String, seconds: Double = 60) async throws -> Bool {
        try await offThePool { [self] in waitUntil(seconds: seconds) { state.withLock { $0.records[path] != nil } } }
    }

    /// Lets the request for `path` be read.
    func release(_ path: String) {
        state.withLock { _ = $0.released.insert(path) }
    }

    /// The request for `path` once its connection has closed (waiting at most `seconds`).
    func finishedRecord(_ path: String, seconds: Double = 30) async throws -> Record? {
        try await offThePool { [self] in
            _ = waitUntil(seconds: seconds) { state.withLock { $0.records[path]?.finished == true } }
            return state.withLock { $0.records[path] }
        }
    }

    // MARK: - Serving

    private func serve(_ connection: Int32) {
        defer { _ = systemClose(connection) }
        var pending = Data()
        guard let (record, rest) = readHead(connection, into: &pending) else { return }
        var current = record
        let path = record.path
        state.withLock { $0.records[path] = record }
        _ = waitUntil(seconds: 120) { state.withLock { $0.released.contains(path) } }
        // The body: exactly the length announced.
        var buffered = rest
        let wanted = record.contentLength ?? 0
        while current.bodyLength < wanted {
            if buffered.isEmpty {
                guard let more = receive(connection) else { break }
                buffered = more
            }
            let take = min(wanted - current.bodyLength, buffered.count)
            if current.bodyStart.count < 1 << 20 { current.bodyStart.append(buffered.prefix(min(take, (1 << 20) - current.bodyStart.count))) }
            current.bodyLength += take
            buffered = buffered.dropFirst(take)
        }
        current.excess.append(buffered)
        let complete = current.bodyLength == wanted
        let reply = #"{"length":\#(current.bodyLength)}"#
        if complete {
            LoopbackConnection.send(connection, Data((
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(reply.utf8.count)\r\n"
                    + "Connection: close\r\n\r\n" + reply).utf8))
        }
        // Whatever the client sends before it closes (at most 10 s of silence).
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while let more = receive(connection) { current.excess.append(more) }
        current.finished = true
        let finished = current
        state.withLock { $0.records[path] = finished }
    }

    /// Reads up to the end of the head; returns the record and the bytes read past the head.
    private func readHead(_ connection: Int32, into pending: inout Data) -> (Record, Data)? {
        let end = Data("\r\n\r\n".utf8)
        while pending.range(of: end) == nil {
            guard pending.count < 64 * 1024, let more = receive(connection) else { return nil }
            pending.append(more)
        }
        let range = pending.range(of: end)!
        let lines = String(decoding: pending[..<range.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines.first?.split(separator: " ") ?? []
        guard requestLine.count >= 2 else { return nil }
        var length: Int?
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                length = Int(parts[1].trimmingCharacters(in: .whitespaces))
            }
        }
        let path = String(requestLine[1]).split(separator: "?").first.map(String.init) ?? ""
        let record = Record(method: String(requestLine[0]), path: path, contentLength: length)
        return (record, Data(pending[range.upperBound...]))
    }

    /// The next bytes from `connection`; `nil` at its end, on an error or a timeout.
    private func receive(_ connection: Int32) -> Data? {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var count: Int
        repeat {
            count = recv(connection, &buffer, buffer.count, 0)
        } while count < 0 && errno == EINTR
        return count > 0 ? Data(buffer[..<count]) : nil
    }

    private func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(5_000)
        }
        return condition()
    }
}
