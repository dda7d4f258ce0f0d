import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The body of a redirect that is followed is not read past 64 KiB on the libcurl engine: the
/// server sees the client leave long before the end of a 256 MiB body. (FoundationNetworking
/// reads a redirect's body whole before it reports the redirect, keeping it in memory in time
/// that grows with its square: a limit of the URLSession engine on Linux, in ChoosingAnEngine.)
@Suite struct RedirectBodyTests {
    @Test(arguments: allEngines.filter { $0 == .curl }) func aLongRedirectBodyIsNotRead(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let name = "redirect-body-\(engine == .curl ? "curl" : "urlsession")-\(UUID().uuidString)"
        var components = URLComponents(url: fault.url("/drip"), resolvingAgainstBaseURL: false)!
        let total = 256 << 20
        components.queryItems = [
            URLQueryItem(name: "status", value: "302"), URLQueryItem(name: "location", value: "/request-headers"),
            URLQueryItem(name: "bytes", value: String(total)), URLQueryItem(name: "chunk", value: String(64 << 10)),
            URLQueryItem(name: "delayMs", value: "0"), URLQueryItem(name: "abandon", value: name),
        ]
        let headers = try await testSession(engine: engine, timeout: 30).get(components.url!).as([String: String].self).content
        #expect(headers[":path"] == "/request-headers")
        let sent = await FaultServer.waitForAbandonment(name, seconds: 30)
        #expect(sent.map { $0 < total / 4 } == true, "the server sent \(sent.map(String.init) ?? "all") of \(total) bytes")
    }
}

/// A `Location` whose scheme is written in capitals (`HTTP://…`) is the same URL: followed on
/// both engines (FoundationNetworking called it unsupported).
@Suite struct RedirectSchemeCaseTests {
    @Test(arguments: allEngines) func aCapitalSchemeIsFollowed(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        var components = URLComponents(url: fault.url("/raw"), resolvingAgainstBaseURL: false)!
        let target = fault.url("/request-headers").absoluteString.replacingOccurrences(of: "http://", with: "HTTP://")
        components.queryItems = [URLQueryItem(name: "status", value: "302"), URLQueryItem(name: "h", value: "Location: \(target)")]
        let headers = try await testSession(engine: engine, timeout: 20).get(components.url!).as([String: String].self).content
        #expect(headers[":path"] == "/request-headers")
    }
}
