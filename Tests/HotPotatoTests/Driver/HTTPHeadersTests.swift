import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

@Suite struct HTTPHeadersTests {
    @Test func lookupsIgnoreCase() {
        let headers: HTTPHeaders = ["Content-Type": "application/json", "X-Request-ID": "abc"]
        #expect(headers["content-type"] == "application/json")
        #expect(headers["CONTENT-TYPE"] == "application/json")
        #expect(headers["x-request-id"] == "abc")
        #expect(headers["Content-Length"] == nil)
        #expect(headers.contains("X-REQUEST-ID"))
    }

    @Test func repeatedFieldsKeepEveryValue() {
        let headers = HTTPHeaders([("Set-Cookie", "a=1"), ("set-cookie", "b=2"), ("Vary", "Accept")])
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
        #expect(headers["Set-Cookie"] == "a=1, b=2")
        #expect(headers.count == 3)
    }

    @Test func editing() {
        var headers: HTTPHeaders = ["Accept": "text/html"]
        headers.add(name: "accept", value: "application/json")
        #expect(headers.values(for: "Accept").count == 2)
        headers.replaceOrAdd(name: "ACCEPT", value: "*/*")
        #expect(headers.values(for: "accept") == ["*/*"])
        headers.remove(name: "Accept")
        #expect(headers.isEmpty)
    }

    @Test func fromDictionaryIsSortedAndStable() {
        let headers = HTTPHeaders(["b-header": "2", "A-Header": "1"] as [AnyHashable: Any])
        #expect(headers.fields.map(\.name) == ["A-Header", "b-header"])
    }
}

@Suite struct ResponseHeadTests {
    @Test func contentLengthParsing() {
        #expect(head(contentLength: 42).contentLength == 42)
        #expect(head().contentLength == nil)
        #expect(head(headers: [("Content-Length", "12, 12")]).contentLength == 12)
        #expect(head(headers: [("Content-Length", "12"), ("Content-Length", "13")]).contentLength == nil)
        #expect(head(headers: [("Content-Length", "-1")]).contentLength == nil)
        #expect(head(headers: [("Content-Length", "1e3")]).contentLength == nil)
        #expect(head(headers: [("Content-Length", "")]).contentLength == nil)
        #expect(head(headers: [("Content-Length", "99999999999999999999999")]).contentLength == nil)
    }

    /// Only spaces and tabs surround a value (RFC 9110's optional whitespace); an empty list
    /// member is a value of its own, and other whitespace is part of the value.
    @Test func contentLengthWhitespace() {
        #expect(head(headers: [("Content-Length", " 12 ,\t12\t")]).contentLength == 12)
        #expect(head(headers: [("Content-Length", "12,,12")]).contentLength == nil)
        #expect(head(headers: [("Content-Length", "12,")]).contentLength == nil)
        #expect(head(headers: [("Content-Length", "\u{A0}12")]).contentLength == nil)
        #expect(head(headers: [("Content-Length", "\u{A0}12")]).hasMalformedContentLength)
        #expect(head(headers: [("content-length", " 7"), ("Content-Length", "7 ")]).contentLength == 7)
        #expect(head(headers: [("Content-Encoding", " gzip ,identity, BR\t")]).contentEncodings == ["gzip", "br"])
        #expect(head(headers: [("Content-Encoding", "identity")]).contentEncodings.isEmpty)
        #expect(head().contentEncodings.isEmpty)
    }

    @Test func bodylessResponses() {
        #expect(head(204).hasNoBody)
        #expect(head(205).hasNoBody)
        #expect(head(304).hasNoBody)
        #expect(head(101).hasNoBody)
        #expect(head(200, method: "head").hasNoBody)
        #expect(!head(200).hasNoBody)
        #expect(head(200, contentLength: 0).hasEmptyBody)
        #expect(!head(200, contentLength: 1).hasEmptyBody)
    }

    @Test func contentTypeAndEncoding() {
        let response = head(contentType: "Text/HTML; Charset=\"ISO-8859-1\"", headers: [("Content-Encoding", "GZIP, identity")])
        #expect(response.contentType?.essence == "text/html")
        #expect(response.contentType?.charset == "iso-8859-1")
        #expect(response.contentEncodings == ["gzip"])
        #expect(head(contentType: "nonsense").contentType == nil)
        #expect(head(contentType: "nonsense").contentTypeHeader == "nonsense")
    }

    @Test func reasonPhrases() {
        #expect(head(404).reasonPhrase == "Not Found")
        #expect(head(599).reasonPhrase == "Status 599")
        #expect(head(503).description.hasPrefix("HTTP 503 Service Unavailable"))
    }
}
