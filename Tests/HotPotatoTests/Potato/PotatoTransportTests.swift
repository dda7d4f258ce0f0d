import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// potato's transport controls: `--cert`/`--key`/`--cert-type`, `--pinnedpubkey` (exit 23),
/// `--unix-socket`, `--resolve`, `--connect-to`, `--interface`, and their usage errors.
@Suite(.needsNginx, .enabled(if: Session.Engine.curl.isAvailable && TestCertificates.isAvailable))
struct PotatoTransportTests {
    @Test func aClientCertificateIsPresentedPEMOrP12() async throws {
        let tls = try await TestServers.nginxTLS()
        let certificates = tls.certificates
        let url = "https://127.0.0.1:\(tls.mutualPort)/whoami"
        let pem = try await PotatoProcess.run([
            "get", url, "--cacert", tls.certificateAuthority.path, "--cert", certificates.clientCertificate.path,
            "--key", certificates.clientKey.path, "--engine", "curl",
        ])
        #expect(pem.status == 0, "\(pem.error)")
        #expect(pem.text == "client=CN=HotPotato Test Client\n")
        let p12 = try await PotatoProcess.run([
            "get", url, "--cacert", tls.certificateAuthority.path, "--cert-type", "P12",
            "--cert", "\(certificates.clientPKCS12.path):\(TestCertificates.clientPassword)",
        ])
        #expect(p12.status == 0, "\(p12.error)")
        #expect(p12.text == "client=CN=HotPotato Test Client\n")
        let none = try await PotatoProcess.run(["get", url, "--cacert", tls.certificateAuthority.path])
        #expect(none.status == 9, "nginx's 400: \(none.error)")
        #expect(none.error.contains("HTTP 400"), "\(none.error)")
        #expect(none.error.contains("the server says: 400 No required SSL certificate was sent"), "the page's title: \(none.error)")
    }

    @Test func aServerThatRefusesInTheHandshakeIsExitSeven() async throws {
        let server = try await TestServers.tlsVerifying()
        let certificates = server.certificates
        let rogue = try await PotatoProcess.run([
            "get", server.url.absoluteString, "--cacert", certificates.certificateAuthority.path,
            "--cert", certificates.rogueCertificate.path, "--key", certificates.rogueKey.path,
        ])
        #expect(rogue.status == 7, "\(rogue.error)")
        #expect(rogue.error.contains("refused the client certificate"), "\(rogue.error)")
    }

    @Test func aPinnedKeyIsAcceptedAndAnyOtherIsExitTwentyThree() async throws {
        let tls = try await TestServers.nginxTLS()
        let url = "https://127.0.0.1:\(tls.port)/small.json"
        let wrong = PublicKeyPinningTests.wrongPin
        let right = try await PotatoProcess.run([
            "get", url, "--cacert", tls.certificateAuthority.path, "--pinnedpubkey", "\(wrong);\(tls.certificates.serverKeyPin)",
        ])
        #expect(right.status == 0, "\(right.error)")
        let mismatch = try await PotatoProcess.run(["get", url, "--cacert", tls.certificateAuthority.path, "--pinnedpubkey", wrong])
        #expect(mismatch.status == 23, "\(mismatch.error)")
        #expect(mismatch.output.isEmpty)
        // As curl: the key's file (DER here) instead of its hash.
        let keyFile = tls.certificates.serverKey.deletingLastPathComponent().appendingPathComponent("server.pub.der").path
        let file = try await PotatoProcess.run(["get", url, "--cacert", tls.certificateAuthority.path, "--pinnedpubkey", keyFile])
        #expect(file.status == 0, "\(file.error)")
        let notAKey = try await PotatoProcess.run(["get", url, "--pinnedpubkey", tls.certificates.serverCertificate.path])
        #expect(notAKey.status == 2 && notAKey.error.contains("holds a certificate"), "\(notAKey.error)")
    }

    @Test func aUnixSocketAnOverrideAndALocalAddressRouteTheConnection() async throws {
        let nginx = try await TestServers.nginx()
        let socket = try await PotatoProcess.run(["get", "http://localhost/echo/address", "--unix-socket", nginx.unixSocket])
        #expect(socket.status == 0, "\(socket.error)")
        #expect(socket.text == "unix:\n")
        let resolved = try await PotatoProcess.run([
            "get", "http://potato.invalid:\(nginx.port)/echo/address", "--resolve", "potato.invalid:\(nginx.port):127.0.0.1",
            "--interface", "127.0.0.2",
        ])
        #expect(resolved.status == 0, "\(resolved.error)")
        #expect(resolved.text == "127.0.0.2\n")
        // curl's --connect-to: another host and port, or the same host on another port.
        let elsewhere = try await PotatoProcess.run([
            "get", "http://potato.invalid:1/echo/address", "--connect-to", "potato.invalid:1:127.0.0.1:\(nginx.port)",
        ])
        #expect(elsewhere.status == 0, "\(elsewhere.error)")
        #expect(elsewhere.text == "127.0.0.1\n")
        let samePort = try await PotatoProcess.run([
            "get", "http://127.0.0.1:1/echo/address", "--connect-to", "127.0.0.1:1::\(nginx.port)",
        ])
        #expect(samePort.status == 0, "\(samePort.error)")
        #expect(samePort.text == "127.0.0.1\n")
    }

    @Test func badValuesAndTheURLSessionEngineAreUsageErrors() async throws {
        let tls = try await TestServers.nginxTLS()
        let url = "https://127.0.0.1:\(tls.port)/small.json"
        let cases: [([String], String)] = [
            (["--cert", "/nonexistent/client.pem"], "--cert"),
            (["--key", tls.certificates.clientKey.path], "--key needs --cert"),
            (["--cert-type", "DER", "--cert", tls.certificates.clientCertificate.path], "--cert-type"),
            (["--pinnedpubkey", "sha256//nope"], "--pinnedpubkey"),
            (["--resolve", "example.com:443"], "--resolve"),
            (["--connect-to", "::127.0.0.1:443"], "--connect-to"),
            (["--connect-to", "example.com:443:127.0.0.1:99999"], "--connect-to"),
            (["--connect-to", "127.0.0.1:443::8443", "--engine", "urlsession"], "--connect-to needs the curl engine"),
            (["--unix-socket", "/tmp/x.sock", "--engine", "urlsession"], "--unix-socket needs the curl engine"),
            (["--pinnedpubkey", tls.certificates.serverKeyPin, "--engine", "urlsession"], "--pinnedpubkey needs the curl engine"),
        ]
        for (arguments, message) in cases {
            let outcome = try await PotatoProcess.run(["get", url] + arguments)
            #expect(outcome.status == 2, "\(arguments): \(outcome.error)")
            #expect(outcome.error.contains(message), "\(arguments): \(outcome.error)")
        }
    }

    @Test func aColonInTheCertificatesNameIsWrittenEscaped() async throws {
        let tls = try await TestServers.nginxTLS()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let certificate = scratch.file("c:lient.pem")
        try FileManager.default.copyItem(at: tls.certificates.clientCertificate, to: certificate)
        let escaped = certificate.path.replacingOccurrences(of: ":", with: "\\:")
        let outcome = try await PotatoProcess.run([
            "get", "https://127.0.0.1:\(tls.mutualPort)/whoami", "--cacert", tls.certificateAuthority.path,
            "--cert", escaped, "--key", tls.certificates.clientKey.path,
        ])
        #expect(outcome.status == 0, "\(outcome.error)")
        #expect(outcome.text == "client=CN=HotPotato Test Client\n")
    }
}
