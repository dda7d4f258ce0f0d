import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Mutual TLS: the session's client certificate, against nginx (`ssl_verify_client on`, which
/// answers `400` after the handshake to a client without an acceptable certificate) and against
/// `openssl s_server` (which fails the handshake itself).
@Suite(.needsNginx, .enabled(if: Session.Engine.curl.isAvailable && TestCertificates.isAvailable))
struct ClientCertificateTests {
    private func mutualURL(_ tls: NginxServer.TLS) -> String { "https://127.0.0.1:\(tls.mutualPort)/whoami" }

    private func session(_ tls: NginxServer.TLS, _ certificate: ClientCertificate?, engine: Session.Engine = .curl) -> Session {
        testSession(engine: engine) {
            $0.certificateAuthorities = tls.certificateAuthority
            $0.clientCertificate = certificate
        }
    }

    @Test func aPEMCertificateAndKeyAreAccepted() async throws {
        let tls = try await TestServers.nginxTLS()
        let certificates = tls.certificates
        let text = try await session(tls, .pem(certificate: certificates.clientCertificate, key: certificates.clientKey))
            .get(mutualURL(tls)).asString().content
        #expect(text == "client=CN=HotPotato Test Client\n")
    }

    @Test func aPKCS12FileWithItsPasswordIsAccepted() async throws {
        let tls = try await TestServers.nginxTLS()
        let certificate = ClientCertificate.pkcs12(tls.certificates.clientPKCS12, password: TestCertificates.clientPassword)
        let text = try await session(tls, certificate).get(mutualURL(tls)).asString().content
        #expect(text == "client=CN=HotPotato Test Client\n")
        #expect(!"\(certificate)".contains(TestCertificates.clientPassword), "the password is never printed")
    }

    @Test func nginxAnswersFourHundredWithoutACertificateAndTheMessageIsKept() async throws {
        let tls = try await TestServers.nginxTLS()
        let error = await expectFailure { try await session(tls, nil).get(mutualURL(tls)).asString().content }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.head?.status == 400)
        #expect(error?.errorBody?.text.contains("No required SSL certificate was sent") == true, "\(String(describing: error))")
        #expect(error?.serverMessage == "400 No required SSL certificate was sent")
    }

    @Test func nginxAnswersFourHundredToAnotherAuthoritysCertificate() async throws {
        let tls = try await TestServers.nginxTLS()
        let certificates = tls.certificates
        let error = await expectFailure {
            try await session(tls, .pem(certificate: certificates.rogueCertificate, key: certificates.rogueKey))
                .get(mutualURL(tls)).asString().content
        }
        #expect(error?.head?.status == 400)
        #expect(error?.errorBody?.text.contains("The SSL certificate error") == true, "\(String(describing: error))")
    }

    @Test func aServerThatRequiresOneInTheHandshakeIsATLSFailureThatSaysSo() async throws {
        let server = try await TestServers.tlsVerifying()
        let certificates = server.certificates
        func attempt(_ certificate: ClientCertificate?) async -> HotPotatoError? {
            await expectFailure {
                try await testSession(engine: .curl) {
                    $0.certificateAuthorities = certificates.certificateAuthority
                    $0.clientCertificate = certificate
                }.get(server.url).discardResponseContent().response()
            }
        }
        let none = await attempt(nil)
        #expect(none?.code == .tlsFailure, "\(String(describing: none))")
        #expect(none?.reason.contains("requires a client certificate") == true, "\(String(describing: none))")
        let rogue = await attempt(.pem(certificate: certificates.rogueCertificate, key: certificates.rogueKey))
        #expect(rogue?.code == .tlsFailure, "\(String(describing: rogue))")
        #expect(rogue?.reason.contains("refused the client certificate") == true, "\(String(describing: rogue))")
        let response = try await testSession(engine: .curl) {
            $0.certificateAuthorities = certificates.certificateAuthority
            $0.clientCertificate = .pem(certificate: certificates.clientCertificate, key: certificates.clientKey)
        }.get(server.url).asString().response()
        #expect(response.head.status == 200)
        #expect(response.content.contains("HotPotato Test Client"), "s_server's page shows the client's certificate")
    }

    @Test func aKeyThatIsNotTheCertificatesOrAMissingFileFailsBeforeAnythingIsSent() async throws {
        let tls = try await TestServers.nginxTLS()
        let certificates = tls.certificates
        for certificate in [ClientCertificate.pem(certificate: certificates.clientCertificate, key: certificates.rogueKey),
                            .pem(certificate: URL(fileURLWithPath: "/nonexistent/client.pem")),
                            .pkcs12(certificates.clientPKCS12, password: "wrong")] {
            let error = await expectFailure { try await session(tls, certificate).get(mutualURL(tls)).asString().content }
            #expect(error?.code == .tlsFailure, "\(certificate): \(String(describing: error))")
            #expect(error?.reason.contains("client certificate or its key could not be used") == true, "\(String(describing: error))")
            #expect(error?.head == nil)
        }
    }

    @Test func theURLSessionEngineSaysItCannot() async throws {
        let tls = try await TestServers.nginxTLS()
        let certificates = tls.certificates
        let error = await expectFailure {
            try await session(tls, .pem(certificate: certificates.clientCertificate, key: certificates.clientKey), engine: .urlSession)
                .get(mutualURL(tls)).asString().content
        }
        #expect(error?.code == .engineUnavailable)
        #expect(error?.reason.contains("clientCertificate") == true)
    }
}
