import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

@Suite struct ErrorBodyTests {
    static func body(_ text: String, type: String? = "application/json") -> ErrorBody {
        ErrorBody(data: Data(text.utf8), isTruncated: false, contentType: type.flatMap { MediaType(parsing: $0) })
    }

    @Test(arguments: [
        (#"{"error": "invalid_token"}"#, "invalid_token"),
        (#"{"message": "Not Found", "documentation_url": "x"}"#, "Not Found"),
        (#"{"detail": "Authentication credentials were not provided."}"#, "Authentication credentials were not provided."),
        (#"{"error": {"code": 7}, "error_description": "The grant expired"}"#, "The grant expired"),
        (#"{"errors": [{"message": "Field 'x' missing", "path": ["x"]}]}"#, "Field 'x' missing"),
        (#"{"type": "about:blank", "title": "Out of credit", "status": 403}"#, "Out of credit"),
        (#"{"error": {"message": "Quota exceeded", "code": 429}}"#, "Quota exceeded"),
        (#"{"errors": ["first problem", "second"]}"#, "first problem"),
        (#"{"message": "  padded  "}"#, "padded"),
    ])
    func serverMessageFromCommonJSONShapes(json: String, message: String) {
        #expect(Self.body(json).serverMessage == message)
    }

    @Test func noMessageInUnfamiliarJSON() {
        #expect(Self.body(#"{"code": 12, "ok": false}"#).serverMessage == nil)
        #expect(Self.body(#"{"message": ""}"#).serverMessage == nil)
        #expect(Self.body(#"[1, 2]"#).serverMessage == nil)
    }

    @Test func plainTextMessages() {
        #expect(Self.body("  Rate limit exceeded\n", type: "text/plain").serverMessage == "Rate limit exceeded")
        #expect(Self.body("Rate limit exceeded", type: nil).serverMessage == "Rate limit exceeded")
        #expect(Self.body("<html><body>502</body></html>", type: "text/html").serverMessage == nil)
        #expect(Self.body("<html>502</html>", type: nil).serverMessage == nil)
        let nginx = "<html>\r\n<head><title>400 No required SSL certificate was sent</title></head>\r\n<body>…</body></html>"
        #expect(Self.body(nginx, type: "text/html").serverMessage == "400 No required SSL certificate was sent")
        #expect(Self.body("<HTML><TITLE>\n  Tom &amp; Jerry &lt;3 </TITLE></HTML>", type: nil).serverMessage == "Tom & Jerry <3")
        #expect(Self.body("<html><title></title></html>", type: "text/html").serverMessage == nil)
        #expect(Self.body("<html><title>" + String(repeating: "x", count: 300) + "</title></html>", type: "text/html").serverMessage == nil)
        #expect(Self.body("<html><title>no end", type: "text/html").serverMessage == nil)
        #expect(Self.body("", type: "text/plain").serverMessage == nil)
        #expect(Self.body(String(repeating: "x", count: 5_000), type: "text/plain").serverMessage == nil)
    }

    @Test func textFollowsTheCharsetAndNeverFails() throws {
        let latin = ErrorBody(data: try #require("Übel".data(using: .isoLatin1)), isTruncated: false,
                              contentType: MediaType(parsing: "text/plain; charset=iso-8859-1"))
        #expect(latin.text == "Übel")
        let broken = ErrorBody(data: Data([0x66, 0xFF, 0x6F]), isTruncated: false, contentType: nil)
        #expect(broken.text == "f\u{FFFD}o")
    }

    @Test func decodesIntoTheCallersType() throws {
        struct Problem: Decodable, Equatable { let title: String; let status: Int }
        let body = Self.body(#"{"title": "Gone", "status": 410}"#)
        #expect(try body.decode(Problem.self) == Problem(title: "Gone", status: 410))
        #expect(body.json?["status"] == 410)
        #expect(throws: DecodingError.self) { try Self.body("not json").decode(Problem.self) }
        #expect(Self.body("not json").json == nil)
    }

    @Test func truncatedJSONIsNotParsed() {
        let body = ErrorBody(data: Data(#"{"message": "cut"#.utf8), isTruncated: true, contentType: nil)
        #expect(body.json == nil)
        #expect(body.serverMessage == #"{"message": "cut"#, "short text is shown as it is")
    }
}

@Suite struct HotPotatoErrorTests {
    @Test func descriptionCarriesTheServerMessage() throws {
        let error = try #require(expectFailure {
            try drive(JSONParser(), head: head(401, contentType: "application/json"), body: Data(#"{"error":"token expired"}"#.utf8))
        })
        #expect(error.status == 401)
        #expect(error.serverMessage == "token expired")
        #expect(error.description.contains("unacceptableStatus"))
        #expect(error.description.contains("token expired"))
        #expect(error.localizedDescription.contains("401"))
    }

    @Test func codesCompareAndDescribeThemselves() {
        #expect(HotPotatoError.Code.unacceptableStatus.isRejection)
        #expect(HotPotatoError.Code.missingContentType.isRejection)
        #expect(!HotPotatoError.Code.invalidJSON.isRejection)
        #expect(HotPotatoError.Code.invalidJSON.description == "invalidJSON")
        #expect(HotPotatoError.Code.cancelled != .timedOut)
    }

    @Test func intermediateContentViews() {
        #expect(IntermediateContent.text("é").data == Data("é".utf8))
        #expect(IntermediateContent.bytes(Data([0x61, 0xFF])).text == "a\u{FFFD}")
    }
}
