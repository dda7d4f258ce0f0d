import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finds a free TCP port on 127.0.0.1 by binding to port 0 and asking which port was chosen.
func freeLoopbackPort() throws -> UInt16 {
    let socket = try LoopbackSocket.listening(port: 0)
    defer { socket.close() }
    return socket.port
}

/// Waits until something accepts TCP connections on 127.0.0.1:`port`, or the deadline passes.
func waitForPort(_ port: UInt16, timeout: TimeInterval) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if LoopbackSocket.canConnect(port: port) { return true }
        usleep(50_000)
    }
    return false
}

/// The few socket calls the test servers need.
struct LoopbackSocket {
    let descriptor: Int32
    let port: UInt16

    /// A socket bound to a port of 127.0.0.1 that does not listen: connecting to it is refused,
    /// and no other server can take the port while it is open (unlike a port found free, which a
    /// server started meanwhile can take).
    static func refusing() throws -> LoopbackSocket {
        try listening(port: 0, listens: false)
    }

    /// A socket bound to `port` (0: any free one) of `host`, a loopback address (127.0.0.2 and
    /// the like stand for other hosts), listening unless `listens` is `false`.
    static func listening(port: UInt16, host: String = "127.0.0.1", listens: Bool = true, backlog: Int32 = 128) throws -> LoopbackSocket {
        let fd = Descriptors.tcpSocket()
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: port, host: host)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, !listens || listen(fd, backlog) == 0 else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            _ = systemClose(fd)
            throw error
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return LoopbackSocket(descriptor: fd, port: UInt16(bigEndian: actual.sin_port))
    }

    static func canConnect(port: UInt16) -> Bool {
        let fd = Descriptors.tcpSocket()
        guard fd >= 0 else { return false }
        defer { _ = systemClose(fd) }
        var address = loopback(port: port)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    func close() {
        _ = systemClose(descriptor)
    }

    private static func loopback(port: UInt16, host: String = "127.0.0.1") -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        if inet_pton(AF_INET, host, &address.sin_addr) != 1 {
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        }
        return address
    }
}

func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    return Glibc.close(fd)
    #else
    return Darwin.close(fd)
    #endif
}
