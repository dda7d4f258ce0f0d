import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Where connections go and come from, on the libcurl engine: a Unix domain socket, address
/// overrides (curl's `--resolve`), and the local address.
@Suite(.needsNginx, .enabled(if: Session.Engine.curl.isAvailable))
struct ConnectionRoutingTests {
    @Test func aUnixSocketCarriesRequestsAndDownloads() async throws {
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: .curl) { $0.unixSocketPath = nginx.unixSocket }
        let json = try await session.get("http://localhost/small.json").asJSON().content
        #expect(json["name"] == "HotPotato")
        #expect(try await session.get("http://localhost/echo/address").asString().content == "unix:\n")
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = try await session.get("http://localhost/medium.bin").downloadToFile(at: scratch.file("medium.bin")).content
        #expect(try filesAreIdentical(file, nginx.root.appendingPathComponent("medium.bin")))
    }

    @Test func aMissingSocketIsARefusedConnection() async throws {
        let session = testSession(engine: .curl) { $0.unixSocketPath = "/nonexistent/hotpotato.sock" }
        let error = await expectFailure { try await session.get("http://localhost/small.json").asData().content }
        #expect(error?.code == .connectionRefused, "\(String(describing: error))")
    }

    @Test func anOverriddenNameConnectsToTheAddressGiven() async throws {
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: .curl) {
            $0.addressOverrides = [AddressOverride(host: "potato.invalid", port: Int(nginx.port), address: "127.0.0.1"),
                                   AddressOverride(host: "other.invalid", port: 80, address: "127.0.0.1", connectPort: Int(nginx.port))]
        }
        let json = try await session.get("http://potato.invalid:\(nginx.port)/small.json").asJSON().content
        #expect(json["name"] == "HotPotato")
        let moved = try await session.get("http://other.invalid/small.json").asJSON().content
        #expect(moved == json)
    }

    @Test(.enabled(if: TestCertificates.isAvailable))
    func tlsIsStillCheckedAgainstTheNameNotTheAddress() async throws {
        let tls = try await TestServers.nginxTLS()
        // The certificate on this port is for wrong.example only.
        let session = testSession(engine: .curl) {
            $0.certificateAuthorities = tls.certificateAuthority
            $0.addressOverrides = [AddressOverride(host: "wrong.example", port: Int(tls.wrongNamePort), address: "127.0.0.1"),
                                   AddressOverride(host: "localhost", port: Int(tls.wrongNamePort), address: "127.0.0.1")]
        }
        let json = try await session.get("https://wrong.example:\(tls.wrongNamePort)/small.json").asJSON().content
        #expect(json["name"] == "HotPotato")
        let error = await expectFailure { try await session.get("https://localhost:\(tls.wrongNamePort)/small.json").asData().content }
        #expect(error?.code == .tlsFailure, "\(String(describing: error))")
    }

    @Test func aURLsIPv6HostIsOverriddenToo() async throws {
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: .curl) {
            $0.addressOverrides = [AddressOverride(host: "::1", port: Int(nginx.port), address: "127.0.0.1")]
        }
        // Connected to 127.0.0.1, where nginx listens, though the URL names [::1].
        let json = try await session.get("http://[::1]:\(nginx.port)/small.json").asJSON().content
        #expect(json["name"] == "HotPotato")
        // Without it, nothing listens there (nginx is on 127.0.0.1 only).
        let error = await expectFailure { try await testSession(engine: .curl).get("http://[::1]:\(nginx.port)/small.json").asData().content }
        #expect(error != nil)
    }

    @Test func anOverrideLibcurlCouldMisreadFailsTheRequestBeforeAnyConnection() async throws {
        let nginx = try await TestServers.nginx()
        let port = Int(nginx.port)
        // Each would say something else to libcurl than what was set: another mapping, a second
        // entry, an address cut short.
        let bad: [(AddressOverride, String)] = [
            (AddressOverride(host: "a.invalid:\(port):127.0.0.1", port: port, address: "127.0.0.1"), "colon"),
            (AddressOverride(host: "a.invalid", port: port, address: "127.0.0.1\n"), "character"),
            (AddressOverride(host: "a.invalid", port: port, address: "127.0.0.1,127.0.0.2"), "character"),
            (AddressOverride(host: "", port: port, address: "127.0.0.1"), "empty"),
            (AddressOverride(host: "a.invalid", port: 0, address: "127.0.0.1"), "port"),
            (AddressOverride(host: "a.invalid", port: port, address: "127.0.0.1", connectPort: 70_000), "connect port"),
        ]
        for (override, why) in bad {
            #expect(override.problem?.contains(why) == true, "\(override): \(String(describing: override.problem))")
            let session = testSession(engine: .curl) { $0.addressOverrides = [override] }
            let error = await expectFailure { try await session.get("http://a.invalid:\(port)/small.json").asData().content }
            #expect(error?.code == .invalidRequest, "\(override): \(String(describing: error))")
        }
        for good in [AddressOverride(host: "a.invalid", port: 80, address: "::1"), AddressOverride(host: "::1", port: 80, address: "[::1]"),
                     AddressOverride(host: "fe80::1%eth0", port: 80, address: "127.0.0.1", connectPort: 8080)] {
            #expect(good.problem == nil, "\(good): \(String(describing: good.problem))")
        }
        #expect(AddressOverride(host: "::1", port: 80, address: "::2").curlConnectTo == "[::1]:80:[::2]:")
    }

    @Test func curlsResolveFormParses() {
        #expect(AddressOverride(parsing: "example.com:443:127.0.0.1") == AddressOverride(host: "example.com", port: 443, address: "127.0.0.1"))
        #expect(AddressOverride(parsing: "example.com:443:[::1]")?.address == "::1")
        #expect(AddressOverride(parsing: "example.com:443:::1")?.curlConnectTo == "example.com:443:[::1]:")
        for bad in ["example.com", "example.com:443", ":443:127.0.0.1", "example.com:0:127.0.0.1", "example.com:x:127.0.0.1",
                    "example.com:443:", "example.com:443:1.2.3.4,5.6.7.8"] {
            #expect(AddressOverride(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func connectionsComeFromTheLocalAddressGiven() async throws {
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: .curl) { $0.localAddress = "127.0.0.2" }
        #expect(try await session.get(nginx.url("echo/address")).asString().content == "127.0.0.2\n")
        // An address of no interface here: nothing is sent.
        let elsewhere = testSession(engine: .curl) { $0.localAddress = "192.0.2.1" }
        let error = await expectFailure { try await elsewhere.get(nginx.url("echo/address")).asString().content }
        #expect(error?.code == .transportFailed, "\(String(describing: error))")
        #expect(error?.reason.contains("localAddress") == true)
    }

    @Test func theURLSessionEngineSaysItCannot() async throws {
        let nginx = try await TestServers.nginx()
        var configurations: [(String, (inout Session.Configuration) -> Void)] = []
        configurations.append(("unixSocketPath", { $0.unixSocketPath = nginx.unixSocket }))
        configurations.append(("addressOverrides", { $0.addressOverrides = [AddressOverride(host: "a.invalid", port: 80, address: "127.0.0.1")] }))
        configurations.append(("localAddress", { $0.localAddress = "127.0.0.2" }))
        for (name, configure) in configurations {
            let error = await expectFailure { try await testSession(engine: .urlSession, configure: configure).get(nginx.url("small.json")).asData().content }
            #expect(error?.code == .engineUnavailable, "\(name)")
            #expect(error?.reason.contains(name) == true, "\(name): \(String(describing: error))")
        }
    }
}
