import Foundation
@testable import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A one-connection server on a port of its own: it answers the first request with a head
/// declaring `declared` bytes and the first `sent` of them, then holds the connection open until
/// the client closes it. Tests use it to see a client's close reach the server: a connection
/// that a child process inherited stays open however the client closes its own descriptor.
final class HoldingServer: @unchecked Sendable {
    let port: UInt16
    private let listener: LoopbackSocket
    private let served = DispatchSemaphore(value: 0)
    private let closed = DispatchSemaphore(value: 0)

    var url: URL { URL(string: "http://127.0.0.1:\(port)/held")! }

    init(declared: Int = 10_000_000, sent: Int = 4096, holdSeconds: Int = 60) throws {
        listener = try LoopbackSocket.listening(port: 0)
        port = listener.port
        let thread = Thread { [listener, served, closed] in
            let connection = Descriptors.accept(listener.descriptor)
            listener.close()
            guard connection >= 0 else { return }
            defer { _ = systemClose(connection) }
            var request = [UInt8](repeating: 0, count: 65_536)
            _ = recv(connection, &request, request.count, 0)
            var response = Data("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(declared)\r\n\r\n".utf8)
            response.append(FaultServer.body(count: sent))
            LoopbackConnection.send(connection, response)
            served.signal()
            let deadline = Date().addingTimeInterval(TimeInterval(holdSeconds))
            while Date() < deadline {
                if FaultServer.clientLeft(connection) {
                    closed.signal()
                    return
                }
                usleep(20_000)
            }
        }
        thread.start()
    }

    /// Waits (off the cooperative pool) until the head and the first bytes were sent.
    func waitUntilServed(seconds: TimeInterval) async -> Bool {
        await wait(served, seconds: seconds)
    }

    /// Waits (off the cooperative pool) until the client closes the connection; `false` if it
    /// had not after `seconds`.
    func waitUntilClosed(seconds: TimeInterval) async -> Bool {
        await wait(closed, seconds: seconds)
    }

    private func wait(_ semaphore: DispatchSemaphore, seconds: TimeInterval) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(returning: semaphore.wait(timeout: .now() + seconds) == .success)
            }.start()
        }
    }
}
