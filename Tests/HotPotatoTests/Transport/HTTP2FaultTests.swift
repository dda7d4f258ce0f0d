import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// HTTP/2 faults the curl engine meets (the URLSession engine cannot trust the tests' authority
/// on Linux): a `GOAWAY` whose last stream ID is below the request's — the server provably did
/// not process it, and RFC 9113 §6.8 lets the client retry — is a lost connection, retried as a
/// refused stream is.
@Suite(.needsHTTP2FaultServer) struct HTTP2FaultTests {
    private func session(_ server: HTTP2FaultServer) -> Session {
        testSession(engine: .curl) { $0.certificateAuthorities = server.certificateAuthority }
    }

    /// (A refused stream is retried by libcurl itself, once, on a new connection.)
    @Test(arguments: ["goaway"]) func anUnprocessedRequestIsALostConnection(route: String) async throws {
        try #require(Session.Engine.curl.isAvailable && CurlLibrary.supportsHTTP2)
        let server = try await TestServers.http2Fault()
        let name = "\(route)/lost-\(UUID().uuidString)"
        let error = await expectFailure {
            try await session(server).get(server.url("/\(name)?fail=1")).asJSON().retry(.never).response()
        }
        #expect(error?.code == .connectionLost, "\(String(describing: error))")
    }

    @Test(arguments: ["goaway", "refuse"]) func anUnprocessedRequestIsRetried(route: String) async throws {
        try #require(Session.Engine.curl.isAvailable && CurlLibrary.supportsHTTP2)
        let server = try await TestServers.http2Fault()
        let name = "\(route)/retried-\(UUID().uuidString)"
        let response = try await session(server).get(server.url("/\(name)?fail=2")).asJSON()
            .retry(RetryPolicy(maximumAttempts: 3, initialDelay: 0, jitter: 0)).response()
        #expect(response.content["attempt"] == 3)
        #expect(response.httpVersion == .http2)
    }
}
