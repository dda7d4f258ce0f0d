import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `potato get --retry`, `--retry-delay`, `--retry-max-time` and `-v` against `RetryServer`.
@Suite struct PotatoRetryTests {
    static func unique(_ label: String) -> String { "\(label)-\(UUID().uuidString.prefix(8))" }

    @Test(arguments: allEngineNames)
    func aDownloadCutThreeTimesFinishesByteIdenticalAndVerboseShowsEachAttempt(engine: String) async throws {
        let server = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = Self.unique("potato-cut")
        let size = 1_500_000
        let url = server.url("/download/\(name)?size=\(size)&drops=100000,700000,1200000")
        let destination = scratch.file("cut.bin")
        let outcome = try await PotatoProcess.run([
            "get", url.absoluteString, "-o", destination.path, "--retry-delay", "0", "-v", "--engine", engine,
            "-u", "alice:pa55word",
        ])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(try Data(contentsOf: destination) == FaultServer.body(count: size))
        #expect(server.records("/download/\(name)").map(\.range) == [nil, "bytes=100000-", "bytes=700000-", "bytes=1200000-"])
        #expect(try scratch.entries() == ["cut.bin"])
        #expect(outcome.error.contains("(attempt 4)"), "\(outcome.error)")
        #expect(outcome.error.contains("retrying: attempt 3 failed (truncatedBody); attempt 4 in 0.00 s"), "\(outcome.error)")
        #expect(outcome.error.contains(engine == "curl" ? "< HTTP/1.1 206 Partial Content" : "< HTTP 206 Partial Content"))
        #expect(outcome.error.contains("> Authorization: <redacted>"))
        #expect(!outcome.error.contains("pa55word") && !outcome.error.contains("YWxpY2U6cGE1NXdvcmQ="), "no credential is printed")
    }

    @Test func retryZeroMakesOneAttempt() async throws {
        let server = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = Self.unique("potato-once")
        let outcome = try await PotatoProcess.run([
            "get", server.url("/download/\(name)?size=300000&drops=1000").absoluteString, "-o", scratch.file("x").path, "--retry", "0",
        ])
        #expect(outcome.status == 12, "\(outcome.error)")
        #expect(server.records("/download/\(name)").count == 1)
        #expect(try scratch.entries().isEmpty)
    }

    @Test func aServiceUnavailableIsRetriedOnlyWhenAsked() async throws {
        let server = try await TestServers.retry()
        let asked = Self.unique("potato-asked")
        let retried = try await PotatoProcess.run([
            "get", server.url("/status/\(asked)?fail=2").absoluteString, "--json", "--retry", "2", "--retry-delay", "0",
        ])
        #expect(retried.status == 0, "\(retried.error)")
        #expect(String(decoding: retried.output, as: UTF8.self).contains("\"attempt\": 3"))
        // Without -o, potato retries nothing unless asked, as curl.
        let plain = Self.unique("potato-plain")
        let once = try await PotatoProcess.run(["get", server.url("/status/\(plain)?fail=2").absoluteString, "--json"])
        #expect(once.status != 0)
        #expect(server.records("/status/\(plain)").count == 1)
    }

    @Test func retryMaxTimeStopsRetriesThatWouldStartLater() async throws {
        let server = try await TestServers.retry()
        let name = Self.unique("potato-maxtime")
        let outcome = try await PotatoProcess.run([
            "get", server.url("/status/\(name)?fail=5").absoluteString, "--retry", "5", "--retry-delay", "2", "--retry-max-time", "1",
        ])
        #expect(outcome.status != 0)
        #expect(server.records("/status/\(name)").count == 1, "the first wait alone would end past the limit")
    }

    @Test func badRetryValuesAreUsageErrors() async throws {
        for arguments in [["--retry", "-1"], ["--retry", "x"], ["--retry-delay", "soon"], ["--retry-max-time", "-3"]] {
            let outcome = try await PotatoProcess.run(["get", "http://127.0.0.1:1/"] + arguments)
            #expect(outcome.status == 2, "\(arguments): \(outcome.error)")
        }
    }
}
