// What one small request costs, in allocations above all: 100 GETs of a 1 KiB JSON document each
// parsed with `.asJSON()`, end to end through the curl engine against a loopback server of this
// process; and the same responses fed to a JSONParser through a ResponseDriver without a network.
// The end-to-end count covers the whole request chain (Request, Call, Transfer, the engine and
// libcurl); the driver count, the handling alone. Both are per 100 requests, so that one malloc
// more per request adds 100.
import Benchmark
import BenchmarkFixtures
import Foundation
import HotPotato
#if canImport(Glibc)
import Glibc
#endif

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 1,
        maxDuration: .seconds(Fixtures.isSmoke ? 1 : 3),
        maxIterations: Fixtures.isSmoke ? 3 : 200,
        // See the allowances below.
        thresholds: [.mallocCountTotal: .init(absolute: [.p90: 40])]
    )
    let document = SmallJSON.document
    let head = Fixtures.head(contentType: "application/json", length: document.count)

    // The handling alone: about 31 mallocs a request (3 116 per 100 since HotPotatoError keeps
    // its details in a box: the handler, the driver, the JSON values). 40 over the committed
    // count is less than one more per request.
    Benchmark("ResponseDriver_JSONParser_1KiB_x100") { benchmark in
        for _ in benchmark.scaledIterations {
            for _ in 0..<100 {
                try blackHole(ResponseDriver.run(JSONParser(), head: head, chunks: CollectionOfOne(document)))
            }
        }
    }

    // End to end: about 128 mallocs a request (12 823 per 100 in each of three runs: the loopback
    // server allocates nothing per request, and the connection is made in the warm-up). 60 over
    // the committed count is less than one malloc more per request.
    var endToEnd = Benchmark.defaultConfiguration
    endToEnd.thresholds = [.mallocCountTotal: .init(absolute: [.p90: 60])]
    let server = LoopbackServer(response: SmallJSON.response)
    let session = Session(engine: .curl)
    let url = URL(string: "http://127.0.0.1:\(server.port)/small.json")!
    Benchmark("Curl_asJSON_1KiB_sequential_x100", configuration: endToEnd) { benchmark in
        for _ in benchmark.scaledIterations {
            for _ in 0..<100 {
                let response = try await session.get(url).asJSON().response()
                blackHole(response.content)
            }
        }
    }
}

/// The end-to-end run's small document: an array of objects, about 1 KiB.
enum SmallJSON {
    static let document = Fixtures.smallJSONDocument

    static let response: [UInt8] = {
        let head = "HTTP/1.1 200 OK\r\nServer: loopback\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(document.count)\r\nConnection: keep-alive\r\n\r\n"
        return Array(head.utf8) + Array(document)
    }()
}

/// A keep-alive HTTP server on 127.0.0.1 that answers every request with the same bytes, one
/// thread per connection, allocating nothing per request (so that the benchmark counts the
/// client's allocations only).
final class LoopbackServer: @unchecked Sendable {
    let port: Int
    private let listener: Int32
    private let response: [UInt8]

    init(response: [UInt8]) {
        self.response = response
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                precondition(bind(listener, pointer, length) == 0, "bind failed")
                precondition(getsockname(listener, pointer, &length) == 0, "getsockname failed")
            }
        }
        precondition(listen(listener, 64) == 0, "listen failed")
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            Thread { [self] in serve(connection) }.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        let capacity = 16 * 1024
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        defer { buffer.deallocate() }
        var used = 0
        while true {
            let count = read(connection, buffer + used, capacity - used)
            guard count > 0 else { return }
            used += count
            // Answer each complete request head (GETs: no bodies).
            var start = 0
            while let end = Self.headEnd(buffer, from: start, to: used) {
                guard writeAll(connection) else { return }
                start = end
            }
            if start > 0 {
                memmove(buffer, buffer + start, used - start)
                used -= start
            }
            if used == capacity { return }
        }
    }

    private static func headEnd(_ buffer: UnsafeMutablePointer<UInt8>, from start: Int, to end: Int) -> Int? {
        var index = start
        while index + 3 < end {
            if buffer[index] == 13, buffer[index + 1] == 10, buffer[index + 2] == 13, buffer[index + 3] == 10 {
                return index + 4
            }
            index += 1
        }
        return nil
    }

    private func writeAll(_ connection: Int32) -> Bool {
        response.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(connection, bytes.baseAddress! + offset, bytes.count - offset)
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }
}
