import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `Session.Configuration.minimumTLSVersion` (curl's `--tlsv1.2`, `--tlsv1.3`): a server that
/// speaks only older versions fails the handshake with `.tlsFailure`; one that speaks the
/// minimum is reached; the URLSession engine on Linux, which cannot set it, says so; potato
/// takes curl's options, as the one-line installers type them (`--proto '=https' --tlsv1.2 -sSf`).
@Suite struct MinimumTLSVersionTests {
    @Test func aServerBelowTheMinimumFailsTheHandshake() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let server = try await TestServers.tls12Only()
        func session(_ minimum: TLSVersion) -> Session {
            testSession(engine: .curl, timeout: 20) {
                $0.certificateAuthorities = server.certificates.certificateAuthority
                $0.minimumTLSVersion = minimum
                $0.retryPolicy = .never
            }
        }
        let error = await expectFailure { try await session(.v1_3).get(server.url).acceptingAnyContentType().asData().content }
        #expect(error?.code == .tlsFailure, "\(String(describing: error))")
        let page = try await session(.v1_2).get(server.url).acceptingAnyContentType().asString().content
        #expect(page.contains("TLSv1.2"), "s_server's status page names the protocol")
    }

    #if canImport(FoundationNetworking)
    @Test func theURLSessionEngineOnLinuxCannotSetIt() async throws {
        let fault = try await TestServers.fault()
        let session = testSession(engine: .urlSession) { $0.minimumTLSVersion = .v1_2 }
        let error = await expectFailure { try await session.get(fault.url("/request-headers")).asData().content }
        #expect(error?.code == .engineUnavailable)
        #expect(error?.reason.contains("minimumTLSVersion") == true)
    }
    #endif

    @Test func potatoTakesTheInstallersOptions() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let server = try await TestServers.tls12Only()
        let authority = server.certificates.certificateAuthority.path
        let reached = try await PotatoProcess.run(["get", server.url.absoluteString, "--cacert", authority, "--proto", "=https", "--tlsv1.2", "-sSf"])
        #expect(reached.status == 0, "\(reached.error)")
        let refused = try await PotatoProcess.run(["get", server.url.absoluteString, "--cacert", authority, "--tlsv1.3", "-s", "--retry", "0"])
        #expect(refused.status == 7, "\(refused.error)")
        // --proto '=https' leaves http out, and so a redirect to it.
        let fault = try await TestServers.fault()
        let plain = try await PotatoProcess.run(["get", fault.url("/request-headers").absoluteString, "--proto", "=https"])
        #expect(plain.status == 1)
        #expect(plain.error.contains("--proto"))
        let bad = try await PotatoProcess.run(["get", server.url.absoluteString, "--proto", "=h t"])
        #expect(bad.status == 2)
    }

    @Test func aRedirectToALeftOutProtocolFails() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        var components = URLComponents(url: fault.url("/raw"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "status", value: "302"), URLQueryItem(name: "h", value: "Location: /request-headers")]
        let followed = try await PotatoProcess.run(["get", components.url!.absoluteString, "--proto-redir", "=http"])
        #expect(followed.status == 0, "\(followed.error)")
        let refused = try await PotatoProcess.run(["get", components.url!.absoluteString, "--proto-redir", "-all,https"])
        #expect(refused.status != 0)
        #expect(refused.error.contains("--proto"), "\(refused.error)")
    }

    @Test func theCurlCommandLineHasIt() {
        let session = testSession(engine: .curl) { $0.minimumTLSVersion = .v1_3 }
        #expect(session.get(URL(string: "https://127.0.0.1:9/")!).cURLDescription().contains("--tlsv1.3"))
    }
}
