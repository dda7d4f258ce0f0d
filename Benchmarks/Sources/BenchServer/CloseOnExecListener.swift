import Foundation
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// Listens on 127.0.0.1 … 127.0.0.N on one port, with sockets of its own, and hands each accepted
/// connection to SwiftNIO.
///
/// Why not `ServerBootstrap`: NIO 2.101 opens its listening sockets without `SOCK_CLOEXEC` and
/// accepts with `accept4(…, SOCK_NONBLOCK)` alone (`/proc/PID/fdinfo`: `flags: 04002`), so a
/// process spawned meanwhile would inherit every connection. Here every socket is made
/// close-on-exec when it is made (`socket(… SOCK_CLOEXEC)`, `accept4(… SOCK_CLOEXEC)`), and NIO
/// takes the connected descriptor with `ClientBootstrap.withConnectedSocket`.
final class CloseOnExecListener: @unchecked Sendable {
    let port: Int
    private let descriptors: [Int32]
    private let bootstrap: ClientBootstrap

    /// Binds every address; `port` 0 lets the kernel pick one for 127.0.0.1, tried again with
    /// another when a further address has it taken.
    init(hosts: Int, port requested: Int, bootstrap: ClientBootstrap) throws {
        self.bootstrap = bootstrap
        var lastError = "no attempt"
        for _ in 0..<10 {
            var bound: [Int32] = []
            do {
                let first = try Self.listen(on: "127.0.0.1", port: requested)
                bound.append(first.descriptor)
                for host in 1..<hosts {
                    bound.append(try Self.listen(on: "127.0.0.\(host + 1)", port: first.port).descriptor)
                }
                port = first.port
                descriptors = bound
                return
            } catch {
                lastError = "\(error)"
                bound.forEach { _ = close($0) }
                if requested != 0 { break }
            }
        }
        throw ListenError("cannot listen: \(lastError)")
    }

    /// Accepts connections on a thread of its own, forever.
    func start() {
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "bench-server accept"
        thread.start()
    }

    private func acceptLoop() {
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while true {
            guard poll(&polled, nfds_t(polled.count), -1) > 0 else { continue }
            for index in polled.indices where polled[index].revents != 0 {
                acceptAll(polled[index].fd)
            }
        }
    }

    private func acceptAll(_ listener: Int32) {
        while true {
            let connection = Self.accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
            if connection >= 0 {
                bootstrap.withConnectedSocket(connection).whenFailure { _ in }
                continue
            }
            switch errno {
            case EINTR, ECONNABORTED: continue
            case EMFILE, ENFILE:
                // Out of descriptors: let connections close before trying again.
                FileHandle.standardError.write(Data("bench-server: out of file descriptors\n".utf8))
                usleep(100_000)
                return
            default: return
            }
        }
    }

    /// glibc's `accept4`, which the Glibc module does not export (it is a GNU extension).
    private static let accept4: @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "accept4") else {
            fatalError("bench-server: no accept4 in the C library")
        }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32).self)
    }()

    private static func listen(on address: String, port: Int) throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard descriptor >= 0 else { throw ListenError("socket: errno \(errno)") }
        var yes: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = UInt16(port).bigEndian
        guard inet_pton(AF_INET, address, &socketAddress.sin_addr) == 1 else {
            close(descriptor)
            throw ListenError("bad address \(address)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let result = withUnsafeMutablePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(descriptor, pointer, length) == 0, Glibc.listen(descriptor, 4096) == 0 else { return -1 }
                return getsockname(descriptor, pointer, &length)
            }
        }
        guard result == 0 else {
            let code = errno
            close(descriptor)
            throw ListenError("\(address):\(port): errno \(code)")
        }
        return (descriptor, Int(UInt16(bigEndian: socketAddress.sin_port)))
    }
}

struct ListenError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
