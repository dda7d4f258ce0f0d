import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Open streams cost memory, not threads: a `hotpotato-probe` process holds 500 event streams open
/// through one libcurl session, and counts its threads once every stream has delivered an event.
/// The old engine spent a thread on each (over 500); the new one drives them all from one I/O
/// thread and runs handlers on a few shared threads.
@Suite(
    .enabled(
        if: ProcessInfo.processInfo.environment["HOTPOTATO_MEMORY_TESTS"] == "1",
        "measured on its own by Tests/run-all.sh (HOTPOTATO_MEMORY_TESTS=1)")
)
struct OpenStreamsTests {
    /// A bound only a thread per stream (or per handful of streams) crosses: a Foundation process
    /// idles with about ten threads, Swift's cooperative pool has two here, libdispatch a few.
    static let threadBound = 40

    @Test func fiveHundredOpenStreamsTakeAFewThreads() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let server = try await TestServers.fault()
        let tag = "probe-streams-\(UUID().uuidString)"
        let first = FaultServer.event(1).utf8.count
        let url = "http://127.0.0.1:\(server.port)/events?count=2&holdAt=\(first)&gate=\(tag)-{i}&holdSeconds=90"
        let count = 500
        defer { for index in 0..<count { FaultServer.openGate("\(tag)-\(index)") } }
        let output = try await offThePool {
            try runProbeOutput(["open-streams", url, String(count), "curl"], environment: [:], allowingFailure: true)
        }
        reportPeak("OpenStreamsTests: \(output.text.trimmingCharacters(in: .whitespacesAndNewlines))")
        #expect(output.values["opened"] == count, "\(output.text)")
        let threads = try #require(output.values["threads"])
        #expect(threads > 0 && threads <= Self.threadBound, "\(threads) threads for \(count) open streams")
    }
}
