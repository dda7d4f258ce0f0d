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
