import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `potato --cacert FILE` trusts a certificate authority of the user's own, as curl's flag does
/// (the curl engine only), and `-v` names the version of HTTP a response came in.
@Suite(.needsNginx) struct PotatoTLSTests {
    @Test(.enabled(if: Session.Engine.curl.isAvailable))
    func cacertTrustsTheGivenAuthorityAndVerboseNamesTheVersion() async throws {
        let tls = try await TestServers.nginxTLS()
        let nginx = try await TestServers.nginx()
        let outcome = try await PotatoProcess.run([
            "get", "https://127.0.0.1:\(tls.port)/small.json", "--cacert", tls.certificateAuthority.path, "-v", "--engine", "curl",
        ])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(outcome.output == (try Data(contentsOf: nginx.root.appendingPathComponent("small.json"))))
        let version = CurlLibrary.supportsHTTP2 ? "HTTP/2" : "HTTP/1.1"
        #expect(outcome.error.contains("< \(version) 200 OK"), "-v names the version: \(outcome.error)")
    }

    @Test(.enabled(if: Session.Engine.curl.isAvailable))
    func withoutCacertTheTestAuthorityIsNotTrusted() async throws {
        let tls = try await TestServers.nginxTLS()
        let outcome = try await PotatoProcess.run(["get", "https://127.0.0.1:\(tls.port)/small.json", "--engine", "curl"])
        #expect(outcome.status == 7, "the TLS handshake failed: \(outcome.error)")
    }

    @Test func cacertNeedsAReadableFileAndTheCurlEngine() async throws {
        let tls = try await TestServers.nginxTLS()
        let url = "https://127.0.0.1:\(tls.port)/small.json"
        let missing = try await PotatoProcess.run(["get", url, "--cacert", "/nonexistent/hotpotato-ca.pem"])
        #expect(missing.status == 2, "\(missing.error)")
        #expect(missing.error.contains("--cacert"))
        let urlSession = try await PotatoProcess.run(["get", url, "--cacert", tls.certificateAuthority.path, "--engine", "urlsession"])
        #expect(urlSession.status == 2, "\(urlSession.error)")
        #expect(urlSession.error.contains("--cacert needs the curl engine"))
    }

    @Test func helpListsCacert() async throws {
        let help = try await PotatoProcess.run(["get", "--help"])
        #expect(help.text.contains("--cacert FILE"))
    }
}
