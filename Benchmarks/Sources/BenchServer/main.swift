// bench-server: the scale scenarios' HTTP/1.1 server (SwiftNIO), on loopback addresses only.
//
//   bench-server [--hosts N] [--port P] [--ready-file PATH]
//
// Binds 127.0.0.1 … 127.0.0.N (each address standing for another host; never 0.0.0.0), all on
// one port (P, or one the kernel picks for 127.0.0.1), then writes that port to PATH (and to
// standard output) and serves until killed. See BenchHandler for what it serves. Its sockets are
// close-on-exec (NIO opens them so), and it raises its open-file limit to the hard limit: each
// connection is a descriptor, and 10 000 streams need more than the usual 1 024.
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import ScaleKit

let arguments = Array(CommandLine.arguments.dropFirst())

func value(after flag: String) -> String? {
    guard let index = arguments.firstIndex(of: flag), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("bench-server: \(message)\n".utf8))
    exit(1)
}

let hosts = Int(value(after: "--hosts") ?? "1") ?? 1
guard (1...254).contains(hosts) else { fail("--hosts must be 1…254") }
let requestedPort = Int(value(after: "--port") ?? "0") ?? 0
let readyFile = value(after: "--ready-file")
let fileLimit = FileLimit.raiseToHardLimit()

let stats = ServerStats()

func makeBootstrap(_ stats: ServerStats) -> ServerBootstrap {
    ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .serverChannelOption(.backlog, value: 4096)
        .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
        .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
        .childChannelOption(.maxMessagesPerRead, value: 4)
        .childChannelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                try channel.pipeline.syncOperations.addHandler(BenchHandler(stats: stats))
            }
        }
}

/// Binds every address on one port: the first address's (picked by the kernel when 0), tried
/// again with a new one when another address has it taken.
func bindAll(hosts: Int, requestedPort: Int, stats: ServerStats) async throws -> (port: Int, channels: [any Channel]) {
    let bootstrap = makeBootstrap(stats)
    var lastError: (any Error)?
    for _ in 0..<10 {
        var channels: [any Channel] = []
        do {
            let first = try await bootstrap.bind(host: "127.0.0.1", port: requestedPort).get()
            channels.append(first)
            guard let port = first.localAddress?.port else { throw ChannelError.unknownLocalAddress }
            for host in 1..<hosts {
                channels.append(try await bootstrap.bind(host: "127.0.0.\(host + 1)", port: port).get())
            }
            return (port, channels)
        } catch {
            lastError = error
            for channel in channels { try? await channel.close() }
            if requestedPort != 0 { break }
        }
    }
    throw lastError ?? ChannelError.unknownLocalAddress
}

do {
    let (port, channels) = try await bindAll(hosts: hosts, requestedPort: requestedPort, stats: stats)
    let line = "bench-server: listening on 127.0.0.1…127.0.0.\(hosts) port \(port) (open-file limit \(fileLimit))\n"
    FileHandle.standardError.write(Data(line.utf8))
    if let readyFile {
        let temporary = readyFile + ".tmp"
        try String(port).write(toFile: temporary, atomically: false, encoding: .utf8)
        guard rename(temporary, readyFile) == 0 else { fail("cannot write \(readyFile)") }
    }
    FileHandle.standardOutput.write(Data("\(port)\n".utf8))
    try await channels[0].closeFuture.get()
} catch {
    fail("\(error)")
}
