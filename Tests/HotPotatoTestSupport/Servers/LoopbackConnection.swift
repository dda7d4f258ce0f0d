import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the test servers do with an accepted connection: send all of some bytes, and wait for
/// the client to go away.
enum LoopbackConnection {
    /// Sends all of `data`; `false` once the client has gone (no `SIGPIPE`).
    @discardableResult
    static func send(_ connection: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                #if canImport(Glibc)
                let result = Glibc.send(connection, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                #else
                let result = Darwin.send(connection, buffer.baseAddress! + sent, buffer.count - sent, 0)
                #endif
                if result <= 0 { return false }
                sent += result
            }
            return true
        }
    }

    /// Reads until the client closes (at most 5 s of silence), so that a clean close is not turned
    /// into a reset by unread data.
    static func drain(_ connection: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while recv(connection, &buffer, buffer.count, 0) > 0 {}
    }

    /// Accepts connections on `listener` for the life of the process, each served on a thread of
    /// its own by `serve` (which closes it).
    static func acceptForever(_ listener: LoopbackSocket, serve: @escaping @Sendable (Int32) -> Void) {
        acceptForever(descriptor: listener.descriptor, serve: serve)
    }

    /// ``acceptForever(_:serve:)`` for a listening socket given by its descriptor.
    static func acceptForever(descriptor listener: Int32, serve: @escaping @Sendable (Int32) -> Void) {
        let thread = Thread {
            while true {
                let connection = Descriptors.accept(listener)
                guard connection >= 0 else {
                    // Only a listener that is gone stops the server; a passing shortage of
                    // descriptors or an aborted connection must not end it for later tests.
                    if errno == EBADF || errno == EINVAL || errno == ENOTSOCK { return }
                    if errno != EINTR { usleep(10_000) }
                    continue
                }
                Thread { serve(connection) }.start()
            }
        }
        thread.start()
    }

    /// A response head that closes the connection after the body: the status line (with
    /// `phrase`), `Connection: close`, then `headers` in the order given.
    static func head(status: Int, phrase: String, headers: [(String, String)]) -> Data {
        var text = "HTTP/1.1 \(status) \(phrase)\r\nConnection: close\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    /// ``head(status:phrase:headers:)`` with the fields of a dictionary, sorted by name.
    static func head(status: Int, phrase: String, headers: [String: String]) -> Data {
        head(status: status, phrase: phrase, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Waits up to `seconds`, returning early when the client closes the connection.
    static func sleepUntilClosed(_ connection: Int32, seconds: Int) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let deadline = Date().addingTimeInterval(TimeInterval(seconds))
        while Date() < deadline {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count == 0 { return }
            if count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { return }
        }
    }
}
