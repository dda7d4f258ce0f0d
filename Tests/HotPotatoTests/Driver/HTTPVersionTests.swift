import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The version of HTTP as a value: written as a status line writes it, ordered, carried by the
/// head into its description and the logger's line; and the policy's two settings.
@Suite struct HTTPVersionTests {
    @Test func versionsAreWrittenAsStatusLinesWriteThem() {
        #expect(HTTPVersion.http1_0.description == "HTTP/1.0")
        #expect(HTTPVersion.http1_1.description == "HTTP/1.1")
        #expect(HTTPVersion.http2.description == "HTTP/2")
        #expect(HTTPVersion.http3.description == "HTTP/3")
        #expect(HTTPVersion(major: 2, minor: 1).description == "HTTP/2.1")
    }

    @Test func versionsAreOrdered() {
        #expect([HTTPVersion.http3, .http1_1, .http2, .http1_0].sorted() == [.http1_0, .http1_1, .http2, .http3])
        #expect(HTTPVersion.http2 == HTTPVersion(major: 2, minor: 0))
    }

    @Test func theHeadCarriesItsVersion() {
        let known = ResponseHead(status: 200, httpVersion: .http2)
        #expect(known.description.hasPrefix("HTTP/2 200 OK"))
        #expect(ResponseHead(status: 200).description.hasPrefix("HTTP 200 OK"))
        #expect(known != ResponseHead(status: 200), "the version is part of the head's value")
    }

    @Test func theLoggerNamesTheVersionWhenKnown() {
        let logger = EventLogger { _ in }
        func line(_ head: ResponseHead) -> String {
            logger.lines(for: RequestEvent(requestID: 1, method: .get, url: nil, date: Date(), kind: .headReceived(head))).first ?? ""
        }
        #expect(line(ResponseHead(status: 404, httpVersion: .http1_1)) == "[#1] < HTTP/1.1 404 Not Found")
        #expect(line(ResponseHead(status: 200, httpVersion: .http2)) == "[#1] < HTTP/2 200 OK")
        #expect(line(ResponseHead(status: 200)) == "[#1] < HTTP 200 OK")
    }

    @Test func thePolicyAllowsHTTP2ByDefault() {
        #expect(Session.Configuration().httpVersionPolicy == .automatic)
        #expect(HTTPVersionPolicy.automatic.allowsHTTP2)
        #expect(!HTTPVersionPolicy.http1_1Only.allowsHTTP2)
        #expect("\(HTTPVersionPolicy.http1_1Only)" == "http1_1Only")
    }
}
