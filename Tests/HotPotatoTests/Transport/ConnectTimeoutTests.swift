import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `Session.Configuration.connectTimeout` (curl's `--connect-timeout`): a connection that is
/// not made in time fails the request with `.timedOut`, long before the request timeout; a
/// server that answers is unaffected; the URLSession engine, which cannot keep it, says so; and
/// potato's `--connect-timeout`.
@Suite struct ConnectTimeoutTests {
    @Test func aConnectionNotMadeInTimeTimesOutBeforeTheRequestTimeout() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let silent = try UnansweringListener()
        defer { silent.close() }
        let session = testSession(engine: .curl, timeout: 120) {
            $0.connectTimeout = 0.5
            $0.retryPolicy = .never
        }
        let started = Date()
        let error = await expectFailure { try await session.get(URL(string: "http://127.0.0.1:\(silent.port)/")!).asData().content }
        #expect(error?.code == .timedOut, "\(String(describing: error))")
        #expect(error?.reason.contains("connect") == true, "\(String(describing: error?.reason))")
        // The request timeout (120 s) would have taken far longer.
        #expect(Date().timeIntervalSince(started) < 60)
    }

    @Test func aServerThatAnswersIsUnaffected() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        let session = testSession(engine: .curl) { $0.connectTimeout = 5 }
        let headers = try await session.get(fault.url("/request-headers")).as([String: String].self).content
        #expect(headers["host"] != nil)
    }

    @Test func theURLSessionEngineCannotKeepIt() async throws {
        let fault = try await TestServers.fault()
        let session = testSession(engine: .urlSession) { $0.connectTimeout = 5 }
        let error = await expectFailure { try await session.get(fault.url("/request-headers")).asData().content }
        #expect(error?.code == .engineUnavailable)
        #expect(error?.reason.contains("connectTimeout") == true)
    }

    @Test func theCurlCommandLineHasIt() {
        let session = testSession(engine: .curl) { $0.connectTimeout = 2.5 }
        #expect(session.get(URL(string: "http://127.0.0.1:9/")!).cURLDescription().contains("--connect-timeout 2.5"))
    }

    @Test func potatoTakesItAsCurlDoes() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let silent = try UnansweringListener()
        defer { silent.close() }
        let url = "http://127.0.0.1:\(silent.port)/"
        let outcome = try await PotatoProcess.run(["get", url, "--connect-timeout", "0.5", "--retry", "0", "--timeout", "120"])
        #expect(outcome.status == 6, "\(outcome.error)")
        let refused = try await PotatoProcess.run(["get", url, "--connect-timeout", "1", "--engine", "urlsession"])
        #expect(refused.status == 2)
        #expect(refused.error.contains("--connect-timeout needs the curl engine"))
        let bad = try await PotatoProcess.run(["get", url, "--connect-timeout", "soon"])
        #expect(bad.status == 2)
    }
}
