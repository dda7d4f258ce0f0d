import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `cURLDescription()` carries the session's trust and transport controls: run with the real
/// `curl`, it presents the same client certificate, pins the same key and goes the same way.
@Suite(.needsNginx, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") && TestCertificates.isAvailable))
struct CURLDescriptionTransportTests {
    private func runShell(_ line: String) throws -> (status: Int32, output: String) {
        let result = try ChildProcesses.output(of: "/bin/sh", ["-c", "PATH=/usr/bin:$PATH " + line + " -s --max-time 60"])
        return (result.status, String(decoding: result.output, as: UTF8.self))
    }

    @Test func aClientCertificateAndPinsGoToCurlAndThePasswordIsRedacted() async throws {
        let tls = try await TestServers.nginxTLS()
        var configuration = Session.Configuration()
        configuration.certificateAuthorities = tls.certificateAuthority
        configuration.clientCertificate = .pkcs12(tls.certificates.clientPKCS12, password: TestCertificates.clientPassword)
        configuration.publicKeyPins = try PublicKeyPins(forEveryHost: [tls.certificates.serverKeyPin])
        let request = Session(configuration: configuration).get("https://127.0.0.1:\(tls.mutualPort)/whoami")
        let line = request.cURLDescription(revealingSecrets: true)
        #expect(line.contains("--cert-type P12") && line.contains("--pinnedpubkey"), "\(line)")
        let result = try await offThePool { try runShell(line) }
        #expect(result.status == 0 && result.output == "client=CN=HotPotato Test Client\n", "\(line): \(result)")
        let redacted = request.cURLDescription()
        #expect(!redacted.contains(TestCertificates.clientPassword) && redacted.contains(":<redacted>"), "\(redacted)")

        var wrong = configuration
        wrong.publicKeyPins = try PublicKeyPins(forEveryHost: [PublicKeyPinningTests.wrongPin])
        let wrongLine = Session(configuration: wrong).get("https://127.0.0.1:\(tls.mutualPort)/whoami").cURLDescription(revealingSecrets: true)
        let mismatch = try await offThePool { try runShell(wrongLine) }
        #expect(mismatch.status == 90, "curl's CURLE_SSL_PINNEDPUBKEYNOTMATCH: \(mismatch)")
    }

    @Test func aUnixSocketAnOverrideAndALocalAddressGoToCurl() async throws {
        let nginx = try await TestServers.nginx()
        var socket = Session.Configuration()
        socket.unixSocketPath = nginx.unixSocket
        let socketLine = Session(configuration: socket).get("http://localhost/echo/address").cURLDescription()
        let viaSocket = try await offThePool { try runShell(socketLine) }
        #expect(viaSocket.output == "unix:\n", "\(viaSocket)")
        var routed = Session.Configuration()
        routed.addressOverrides = [AddressOverride(host: "potato.invalid", port: 80, address: "127.0.0.1", connectPort: Int(nginx.port))]
        routed.localAddress = "127.0.0.2"
        let line = Session(configuration: routed).get("http://potato.invalid/echo/address").cURLDescription()
        let viaOverride = try await offThePool { try runShell(line) }
        #expect(viaOverride.output == "127.0.0.2\n", "\(line): \(viaOverride)")
    }
}
