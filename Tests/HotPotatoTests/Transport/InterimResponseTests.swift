import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Interim (1xx) responses before the final one — `103 Early Hints`, an unasked `100 Continue`,
/// several of them — are skipped on both engines: the final response is the one the handler
/// gets, with its body.
@Suite struct InterimResponseTests {
    private func verbatim(_ fault: FaultServer, interim: [String], body: String) -> URL {
        var components = URLComponents(url: fault.url("/verbatim"), resolvingAgainstBaseURL: false)!
        let head = interim.map { $0 + "\r\n\r\n" }.joined() + "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)"
        components.queryItems = [URLQueryItem(name: "head", value: head), URLQueryItem(name: "body", value: body)]
        return components.url!
    }

    @Test(arguments: allEngines) func interimResponsesAreSkipped(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let session = testSession(engine: engine, timeout: 20)
        for interim in [
            ["HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload"],
            ["HTTP/1.1 100 Continue"],
            ["HTTP/1.1 100 Continue", "HTTP/1.1 103 Early Hints\r\nLink: </a.js>; rel=preload", "HTTP/1.1 102 Processing"],
        ] {
            let response = try await session.get(verbatim(fault, interim: interim, body: #"{"after":"1xx"}"#)).asJSON().response()
            #expect(response.status == 200, "\(interim)")
            #expect(response.content["after"]?.stringValue == "1xx", "\(interim)")
            #expect(response.head.headers["Content-Type"] == "application/json")
        }
    }
}

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
