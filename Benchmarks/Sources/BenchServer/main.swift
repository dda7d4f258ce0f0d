// bench-server: the scale scenarios' HTTP/1.1 server (SwiftNIO), on loopback addresses only.
//
//   bench-server [--hosts N] [--port P] [--ready-file PATH]
//
// Binds 127.0.0.1 … 127.0.0.N (each address standing for another host; never 0.0.0.0), all on
// one port (P, or one the kernel picks for 127.0.0.1), then writes that port to PATH (or, without
// --ready-file, to standard output) and serves until killed. See BenchHandler for what it serves. Its sockets are
// close-on-exec (see CloseOnExecListener: NIO's own are not), and it raises its open-file limit
// to the hard limit: each connection is a descriptor, and 10 000 streams need more than the
// usual 1 024.
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
let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
    .channelOption(.socketOption(.tcp_nodelay), value: 1)
    .channelOption(.maxMessagesPerRead, value: 4)
    .channelInitializer { channel in
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandler(BenchHandler(stats: stats))
        }
    }

do {
    let listener = try CloseOnExecListener(hosts: hosts, port: requestedPort, bootstrap: bootstrap)
    listener.start()
    let port = listener.port
    let line = "bench-server: listening on 127.0.0.1…127.0.0.\(hosts) port \(port) (open-file limit \(fileLimit))\n"
    FileHandle.standardError.write(Data(line.utf8))
    if let readyFile {
        let temporary = readyFile + ".tmp"
        try String(port).write(toFile: temporary, atomically: false, encoding: .utf8)
        guard rename(temporary, readyFile) == 0 else { fail("cannot write \(readyFile)") }
    } else {
        FileHandle.standardOutput.write(Data("\(port)\n".utf8))
    }
    while true { sleep(3600) }
} catch {
    fail("\(error)")
}
