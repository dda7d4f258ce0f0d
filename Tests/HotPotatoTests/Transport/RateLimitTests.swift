import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Rate limits (`Request.limitRate`, `Session.Configuration.receiveRateLimit`, `potato
/// --limit-rate`) against nginx. What is checked is that a limited transfer cannot be faster
/// than its limit allows (nginx serves these files at hundreds of MB/s here) and still arrives
/// whole; how close it stays to the limit is measured in BENCHMARKS.md, not asserted here. The
/// URLSession engine cannot limit a rate, and says so.
@Suite(.needsNginx) struct RateLimitTests {
    /// 8 MiB at 4 MiB/s: at least 1.5 s (2 s less libcurl's first burst), unlimited well under.
    @Test func aRequestsLimitHoldsItsTransferBack() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: .curl, timeout: 60)
        let started = Date()
        let body = try await session.get(nginx.url("medium.bin")).limitRate(4 << 20).asData(maximumBodySize: .max).content
        let elapsed = Date().timeIntervalSince(started)
        #expect(body.count == NginxServer.mediumFileSize)
        #expect(body == (try Data(contentsOf: nginx.root.appendingPathComponent("medium.bin"))))
        #expect(elapsed >= 1.5, "8 MiB at 4 MiB/s took \(elapsed) s")
    }

    /// Two 8 MiB downloads at once in a session limited to 8 MiB/s together: at least 1.5 s for
    /// both (2 s at the limit), where each alone could take 8 MiB/s.
    @Test func aSessionsLimitIsSharedByItsTransfers() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: .curl, timeout: 60) { $0.receiveRateLimit = 8 << 20 }
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let started = Date()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<2 {
                group.addTask {
                    let file = try await session.get(nginx.url("medium.bin"))
                        .downloadToFile(at: scratch.file("medium-\(index).bin")).content
                    #expect(try filesAreIdentical(file, nginx.root.appendingPathComponent("medium.bin")))
                }
            }
            try await group.waitForAll()
        }
        let elapsed = Date().timeIntervalSince(started)
        #expect(elapsed >= 1.5, "16 MiB at 8 MiB/s together took \(elapsed) s")
    }

    @Test func theURLSessionEngineSaysItCannot() async throws {
        let nginx = try await TestServers.nginx()
        let perRequest = await expectFailure {
            try await testSession(engine: .urlSession).get(nginx.url("small.json")).limitRate(1 << 20).asData().content
        }
        #expect(perRequest?.code == .engineUnavailable)
        let session = testSession(engine: .urlSession) { $0.receiveRateLimit = 1 << 20 }
        let perSession = await expectFailure { try await session.get(nginx.url("small.json")).asData().content }
        #expect(perSession?.code == .engineUnavailable)
        #expect(perSession?.reason.contains("libcurl") == true)
    }

    @Test func potatoLimitsItsDownload() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = scratch.file("medium.bin")
        let started = Date()
        let outcome = try await PotatoProcess.run(
            ["get", nginx.url("medium.bin").absoluteString, "-o", file.path, "--limit-rate", "4M", "--engine", "curl", "-q"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(try filesAreIdentical(file, nginx.root.appendingPathComponent("medium.bin")))
        #expect(elapsed >= 1.5, "8 MiB at 4 MiB/s took \(elapsed) s")
        // 0 is curl's "no limit", and accepted.
        for bad in ["fast", "-1K"] {
            let refused = try await PotatoProcess.run(["get", nginx.url("small.json").absoluteString, "--limit-rate", bad])
            #expect(refused.status == 2, "--limit-rate \(bad): \(refused.error)")
        }
    }
}
