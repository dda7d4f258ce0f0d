import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A port of 127.0.0.1 where connecting neither succeeds nor is refused, as with a host that does
/// not answer: a listener that never accepts, its accept queue (backlog 0) filled by connections
/// of its own, so that Linux drops every further SYN and the connect waits. What a connect
/// timeout needs to be tested on loopback.
final class UnansweringListener: @unchecked Sendable {
    let port: UInt16
    private let listener: LoopbackSocket
    private var fillers: [Int32] = []
    private var closed = false

    init() throws {
        listener = try LoopbackSocket.listening(port: 0, backlog: 0)
        port = listener.port
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        for _ in 0..<4 {
            let fd = Descriptors.tcpSocket()
            guard fd >= 0 else { continue }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            fillers.append(fd)
        }
        // The handshakes of the fillers that fit complete at once on loopback.
        usleep(200_000)
    }

    /// Closes the listener and its own connections.
    func close() {
        guard !closed else { return }
        closed = true
        for fd in fillers { _ = systemClose(fd) }
        fillers = []
        listener.close()
    }

    deinit { close() }
}
