import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// TLS is verified on both engines; the curl engine can be given a CA of its own.
@Suite(.needsNginx) struct TLSTests {
    @Test(.enabled(if: Session.Engine.curl.isAvailable))
    func curlTrustsAGivenCertificateAuthority() async throws {
        let tls = try await TestServers.nginxTLS()
        let session = testSession(engine: .curl) { $0.certificateAuthorities = tls.certificateAuthority }
        let json = try await session.get("https://127.0.0.1:\(tls.port)/small.json").asJSON().content
        #expect(json["name"] == "HotPotato")
        let local = try await session.get("https://localhost:\(tls.port)/small.json").asJSON().content
        #expect(local == json)
    }

    @Test(arguments: allEngines)
    func unknownAuthorityIsATLSFailure(engine: Session.Engine) async throws {
        let tls = try await TestServers.nginxTLS()
        let error = await expectFailure { try await testSession(engine: engine).get("https://127.0.0.1:\(tls.port)/small.json").response() }
        #expect(error?.code == .tlsFailure, "\(error.map { "\($0)" } ?? "no error")")
        #expect(error?.head == nil)
    }

    @Test(.enabled(if: Session.Engine.curl.isAvailable))
    func wrongHostNameIsATLSFailureEvenWithTheRightAuthority() async throws {
        let tls = try await TestServers.nginxTLS()
        let session = testSession(engine: .curl) { $0.certificateAuthorities = tls.certificateAuthority }
        let error = await expectFailure { try await session.get("https://127.0.0.1:\(tls.wrongNamePort)/small.json").response() }
        #expect(error?.code == .tlsFailure)
        #expect((error?.underlying as? CurlError)?.code == 60, "CURLE_PEER_FAILED_VERIFICATION")
    }

    @Test(.enabled(if: Session.Engine.curl.isAvailable))
    func largeDownloadOverTLS() async throws {
        let tls = try await TestServers.nginxTLS()
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: .curl) { $0.certificateAuthorities = tls.certificateAuthority }
        let data = try await session.get("https://127.0.0.1:\(tls.port)/medium.bin").asData().content
        #expect(data == (try Data(contentsOf: nginx.root.appendingPathComponent("medium.bin"))))
    }
}
