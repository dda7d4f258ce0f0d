import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Public-key pinning on the libcurl engine, against nginx's test certificate: the right pin, a
/// wrong one (nothing sent), rotation, per-host pins, plain HTTP untouched, pins from key files.
@Suite(.needsNginx, .enabled(if: Session.Engine.curl.isAvailable && TestCertificates.isAvailable))
struct PublicKeyPinningTests {
    /// A well-formed pin of no key here.
    static let wrongPin = "sha256//" + Data(repeating: 7, count: 32).base64EncodedString()

    private func session(_ tls: NginxServer.TLS, _ pins: PublicKeyPins, engine: Session.Engine = .curl) -> Session {
        testSession(engine: engine) {
            $0.certificateAuthorities = tls.certificateAuthority
            $0.publicKeyPins = pins
        }
    }

    @Test func theServersOwnKeyIsAccepted() async throws {
        let tls = try await TestServers.nginxTLS()
        let json = try await session(tls, try PublicKeyPins(forEveryHost: [tls.certificates.serverKeyPin]))
            .get("https://127.0.0.1:\(tls.port)/small.json").asJSON().content
        #expect(json["name"] == "HotPotato")
    }

    @Test func anotherKeyFailsWithItsOwnCodeBeforeTheRequestIsSent() async throws {
        let tls = try await TestServers.nginxTLS()
        let nginx = try await TestServers.nginx()
        let name = "pinned-\(UUID().uuidString).txt"
        let error = await expectFailure {
            try await session(tls, try PublicKeyPins(forEveryHost: [Self.wrongPin]))
                .put("https://127.0.0.1:\(tls.port)/uploads/\(name)").body(Data("sent".utf8)).discardResponseContent().response()
        }
        #expect(error?.code == .pinnedKeyMismatch, "\(String(describing: error))")
        #expect(error?.head == nil)
        // The same PUT with the right pin writes the file: the failed one never reached nginx.
        #expect(!FileManager.default.fileExists(atPath: nginx.root.appendingPathComponent("uploads/\(name)").path))
        _ = try await session(tls, try PublicKeyPins(forEveryHost: [tls.certificates.serverKeyPin]))
            .put("https://127.0.0.1:\(tls.port)/uploads/\(name)").body(Data("sent".utf8)).discardResponseContent().response()
        #expect(FileManager.default.contents(atPath: nginx.root.appendingPathComponent("uploads/\(name)").path) == Data("sent".utf8))
    }

    @Test func anyOfSeveralPinsIsAcceptedForRotation() async throws {
        let tls = try await TestServers.nginxTLS()
        let pins = try PublicKeyPins(forEveryHost: [Self.wrongPin, tls.certificates.serverKeyPin])
        let response = try await session(tls, pins).get("https://127.0.0.1:\(tls.port)/small.json").asData().response()
        #expect(response.head.status == 200)
    }

    @Test func aHostsOwnPinsReplaceThePinsForEveryHost() async throws {
        let tls = try await TestServers.nginxTLS()
        let pins = try PublicKeyPins(forEveryHost: [Self.wrongPin]).pinning([tls.certificates.serverKeyPin], forHost: "127.0.0.1")
        #expect(pins.pins(forHost: "127.0.0.1") == [tls.certificates.serverKeyPin])
        #expect(pins.pins(forHost: "LOCALHOST") == [Self.wrongPin])
        let pinned = session(tls, pins)
        let response = try await pinned.get("https://127.0.0.1:\(tls.port)/small.json").asData().response()
        #expect(response.head.status == 200)
        // The same server by another name: that name has no pins of its own.
        let error = await expectFailure { try await pinned.get("https://localhost:\(tls.port)/small.json").asData().content }
        #expect(error?.code == .pinnedKeyMismatch)
        // Plain HTTP has no key to pin.
        let nginx = try await TestServers.nginx()
        let plain = try await pinned.get(nginx.url("small.json")).asData().response()
        #expect(plain.head.status == 200)
    }

    @Test func aPinThatIsNotOneIsRefused() {
        for pin in ["sha256//", "sha256//AAAA", "md5//" + Data(count: 32).base64EncodedString(), "/path/to/key.pem"] {
            #expect(throws: HotPotatoError.self, "\(pin)") { try PublicKeyPins(forEveryHost: [pin]) }
        }
        #expect(throws: HotPotatoError.self) { try PublicKeyPins().pinning([], forHost: "example.com") }
        #expect(PublicKeyPins?.none == nil)
        #expect((try? PublicKeyPins())?.isEmpty == true)
        #expect((try? PublicKeyPins())?.pins(forHost: "example.com") == nil)
    }

    /// A key's file gives the key's pin, PEM (as openssl writes it) or DER; what is not a
    /// public key says what it is.
    @Test func aPublicKeyFileGivesItsPin() async throws {
        let tls = try await TestServers.nginxTLS()
        let certificates = tls.certificates
        let directory = certificates.serverKey.deletingLastPathComponent()
        let der = directory.appendingPathComponent("server.pub.der")
        #expect(try PublicKeyPins.pin(ofPublicKeyAt: der) == certificates.serverKeyPin)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let openssl = try #require(findExecutable("openssl"))
        let (status, pemText) = try ChildProcesses.output(of: openssl, ["pkey", "-in", certificates.serverKey.path, "-pubout"])
        try #require(status == 0)
        let pem = scratch.file("server.pub.pem")
        // With text around the block, as a key file kept with notes has.
        try (Data("the server's key\n".utf8) + pemText).write(to: pem)
        #expect(try PublicKeyPins.pin(ofPublicKeyAt: pem) == certificates.serverKeyPin)
        let pinned = try PublicKeyPins(forEveryHost: [try PublicKeyPins.pin(ofPublicKeyAt: pem)])
        let json = try await session(tls, pinned).get("https://127.0.0.1:\(tls.port)/small.json").asData().content
        #expect(!json.isEmpty)

        let refusals: [(URL, String)] = [
            (certificates.serverCertificate, "holds a certificate"),
            (certificates.serverKey, "holds a private key"),
            (try Self.file(Data("not a key".utf8), in: scratch), "holds no public key"),
            (try Self.file(Data([0x30, 0x05, 0x01]), in: scratch), "holds no public key"),
            (try Self.file(Data("-----BEGIN PUBLIC KEY-----\n%%%\n-----END PUBLIC KEY-----\n".utf8), in: scratch), "not valid base64 DER"),
        ]
        for (file, reason) in refusals {
            let error = #expect(throws: HotPotatoError.self) { try PublicKeyPins.pin(ofPublicKeyAt: file) }
            #expect(error?.code == .invalidRequest && error?.reason.contains(reason) == true, "\(file.lastPathComponent): \(String(describing: error))")
        }
        let missing = #expect(throws: HotPotatoError.self) { try PublicKeyPins.pin(ofPublicKeyAt: scratch.file("missing.pem")) }
        #expect(missing?.code == .fileSystemError && missing?.path == scratch.file("missing.pem").path)
    }

    private static func file(_ data: Data, in scratch: ScratchDirectory) throws -> URL {
        let url = scratch.file("key-\(UUID().uuidString)")
        try data.write(to: url)
        return url
    }

    @Test func theURLSessionEngineSaysItCannotForAPinnedHost() async throws {
        let tls = try await TestServers.nginxTLS()
        let pins = try PublicKeyPins().pinning([tls.certificates.serverKeyPin], forHost: "127.0.0.1")
        let error = await expectFailure {
            try await session(tls, pins, engine: .urlSession).get("https://127.0.0.1:\(tls.port)/small.json").asData().content
        }
        #expect(error?.code == .engineUnavailable)
        #expect(error?.reason.contains("publicKeyPins") == true)
        // A host without pins is not refused.
        let nginx = try await TestServers.nginx()
        let plain = try await session(tls, pins, engine: .urlSession).get(nginx.url("small.json")).asData().response()
        #expect(plain.head.status == 200)
    }
}
