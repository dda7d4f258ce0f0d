import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Where the time went: the libcurl engine's phases and connection facts on every response, in
/// the event monitor's summary and `EventLogger`'s last line; the URLSession engine's absence of
/// them.
@Suite(.needsNginx) struct TransferMeasurementTests {
    @Test(.enabled(if: Session.Engine.curl.isAvailable && TestCertificates.isAvailable))
    func anHTTPSRequestHasItsPhasesInOrderAndANewConnectionThenAReusedOne() async throws {
        let tls = try await TestServers.nginxTLS()
        let session = testSession(engine: .curl) {
            $0.certificateAuthorities = tls.certificateAuthority
            $0.httpVersionPolicy = .http1_1Only
        }
        let first = try await session.get("https://127.0.0.1:\(tls.port)/small.json").asData().response()
        let phases = try #require(first.timings.phases)
        let handshake = try #require(phases.tlsHandshake, "a TLS handshake was made")
        let times = [phases.nameLookup, phases.connect, handshake, phases.firstByte, phases.total].map { $0 ?? -1 }
        #expect(times.allSatisfy { $0 >= 0 } && times == times.sorted(), "\(phases)")
        #expect(handshake > (phases.connect ?? 0), "the handshake takes time after the connect: \(phases)")
        let connection = try #require(first.timings.connection)
        #expect(connection.remoteAddress == "127.0.0.1" && connection.remotePort == Int(tls.port))
        #expect(connection.localAddress == "127.0.0.1" && (connection.localPort ?? 0) > 0)
        #expect(connection.connectionsMade == 1 && connection.isReused == false)
        #expect(connection.bodyBytesReceived == Int64(first.content.count))
        // The TLS facts, from OpenSSL's handle: this machine's libcurl uses OpenSSL.
        #expect(connection.tlsVersion?.hasPrefix("TLSv1.") == true, "\(connection)")
        #expect(connection.tlsCipherSuite?.isEmpty == false, "\(connection)")

        let second = try await session.get("https://127.0.0.1:\(tls.port)/small.json").asData().response()
        #expect(second.timings.connection?.isReused == true, "\(String(describing: second.timings.connection))")
        #expect(second.timings.phases?.tlsHandshake == nil, "no handshake on a reused connection")
        #expect(second.timings.connection?.localPort == connection.localPort)
        #expect(second.timings.connection?.tlsVersion == connection.tlsVersion, "a reused connection has its TLS facts too")
        // Plain http has none.
        let nginx = try await TestServers.nginx()
        let plain = try await session.get(nginx.url("small.json")).asData().response()
        #expect(plain.timings.connection?.remotePort == Int(nginx.port))
        #expect(plain.timings.connection?.tlsVersion == nil && plain.timings.connection?.tlsCipherSuite == nil)
    }

    @Test(.enabled(if: Session.Engine.curl.isAvailable))
    func aRedirectedCallCountsTheConnectionsOfEveryRequestAndTheLastOnesPhases() async throws {
        let nginx = try await TestServers.nginx()
        let other = try await TestServers.faultOnAnotherHost()
        // A redirect from 127.0.0.2 to nginx on 127.0.0.1: two hosts, two connections.
        let target = nginx.url("small.json").absoluteString
        var components = URLComponents(string: "http://\(other.host):\(other.port)/raw")!
        components.queryItems = [URLQueryItem(name: "status", value: "302"), URLQueryItem(name: "h", value: "Location: \(target)"),
                                 URLQueryItem(name: "h", value: "Content-Length: 0"), URLQueryItem(name: "body", value: "")]
        let url = components.url!
        let response = try await testSession(engine: .curl).get(url).asData().response()
        #expect(response.url?.absoluteString == target)
        #expect(response.timings.connection?.connectionsMade == 2, "\(String(describing: response.timings.connection))")
        #expect(response.timings.connection?.remotePort == Int(nginx.port))
        #expect(response.timings.phases?.total ?? 0 <= response.timings.total)
    }

    @Test(.enabled(if: Session.Engine.curl.isAvailable))
    func theEventLoggerPrintsThemAtTheEnd() async throws {
        let nginx = try await TestServers.nginx()
        let lines = Locked([String]())
        let session = testSession(engine: .curl) {
            $0.eventMonitors = [EventLogger { line in lines.withLock { $0.append(line) } }]
        }
        _ = try await session.get(nginx.url("small.json")).asData().response()
        var found: String?
        for _ in 0..<100 where found == nil {
            found = lines.withLock { $0.last(where: { $0.contains("times:") }) }
            if found == nil { try await Task.sleep(nanoseconds: 50_000_000) }
        }
        let last = try #require(found, "\(lines.withLock { $0 })")
        #expect(last.contains("connect") && last.contains("first byte") && last.contains("connection 127.0.0.1:\(nginx.port) (new)"), "\(last)")
    }

    @Test func theURLSessionEngineMeasuresNone() async throws {
        let nginx = try await TestServers.nginx()
        let response = try await testSession(engine: .urlSession).get(nginx.url("small.json")).asData().response()
        #expect(response.timings.phases == nil && response.timings.connection == nil)
        #expect(response.timings.head != nil && response.timings.total > 0)
    }
}
