import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

@Suite struct JSONParserTests {
    static let document = """
        {"user": {"name": "Ada", "followers": [{"name": "Grace"}, {"name": "Alan"}], "joined": "2015-03-01T00:00:00Z"},
         "count": 2, "ratio": 0.25, "active": true, "nothing": null, "big": 12345678901234567890}
        """

    struct Follower: Decodable, Equatable, Sendable { let name: String }
    struct User: Decodable, Equatable, Sendable {
        let name: String
        let followers: [Follower]
        let joined: Date
    }

    @Test(arguments: Chunking.allCases)
    func parsesIntoJSON(chunking: Chunking) throws {
        let json = try drive(JSONParser(), head: head(contentType: "application/json"), body: Data(Self.document.utf8), chunking: chunking)
        #expect(json["user.name"] == "Ada")
        #expect(json["user.followers.1.name"]?.stringValue == "Alan")
        #expect(json["count"]?.intValue == 2)
        #expect(json["ratio"]?.doubleValue == 0.25)
        #expect(json["active"]?.boolValue == true)
        #expect(json["nothing"]?.isNull == true)
        #expect(json["missing"] == nil)
    }

    @Test(arguments: Chunking.allCases)
    func largeDocument(chunking: Chunking) throws {
        let items = (0..<3_000).map { "{\"id\":\($0),\"name\":\"item \($0)\",\"tags\":[\"a\",\"b\"]}" }
        let body = Data("[\(items.joined(separator: ","))]".utf8)
        let json = try drive(JSONParser(), head: head(contentType: "application/json"), body: body, chunking: chunking)
        #expect(json.arrayValue?.count == 3_000)
        #expect(json["2999.name"] == "item 2999")
    }

    @Test func valueAtAKeyPath() throws {
        let json = try drive(JSONParser(atKeyPath: "user.followers.0"), head: head(contentType: "application/json"), body: Data(Self.document.utf8))
        #expect(json == ["name": "Grace"])
    }

    @Test(arguments: Chunking.allCases)
    func decodesATypeAtAKeyPathWithTheCallersDecoder(chunking: Chunking) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let parser = JSONParser(decoding: User.self, atKeyPath: "user", using: decoder)
        let user = try drive(parser, head: head(contentType: "application/json; charset=utf-8"), body: Data(Self.document.utf8), chunking: chunking)
        #expect(user.name == "Ada")
        #expect(user.followers == [Follower(name: "Grace"), Follower(name: "Alan")])
        #expect(user.joined == Date(timeIntervalSince1970: 1_425_168_000))
    }

    @Test func decodesTheWholeDocument() throws {
        let parser = JSONParser(decoding: [Follower].self)
        let followers = try drive(parser, head: head(contentType: "application/json"), body: Data("[{\"name\":\"x\"}]".utf8))
        #expect(followers == [Follower(name: "x")])
    }

    @Test func decoderStrategiesApply() throws {
        struct Snake: Decodable, Sendable { let firstName: String }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let value = try drive(JSONParser(decoding: Snake.self, using: decoder), head: head(contentType: "application/json"),
                              body: Data("{\"first_name\":\"Ada\"}".utf8))
        #expect(value.firstName == "Ada")
    }

    @Test func decodingFailureCarriesTheDecodingErrorAndTheBytes() throws {
        let body = Data(Self.document.utf8)
        let error = try #require(expectFailure {
            try drive(JSONParser(decoding: User.self, atKeyPath: "user"), head: head(contentType: "application/json"), body: body)
        })
        #expect(error.code == .decodingFailed)
        #expect(error.underlying is DecodingError, "joined is a string, not the default Date encoding")
        #expect(error.keyPath == "user")
        #expect(error.intermediate == .bytes(body))
        #expect(error.reason.contains("joined"))
    }

    @Test func missingKeyPath() throws {
        let body = Data(Self.document.utf8)
        let error = try #require(expectFailure {
            try drive(JSONParser(decoding: User.self, atKeyPath: "data.user"), head: head(contentType: "application/json"), body: body)
        })
        #expect(error.code == .keyPathNotFound)
        #expect(error.keyPath == "data.user")
        #expect(error.intermediate == .bytes(body))
    }

    @Test(arguments: [
        ("{\"a\" 1}", 5), ("[1, 2", 5), ("{\"a\": tru}", 6), ("nul", 3), ("{\"a\": \"unterminated}", 20),
        ("[1] [2]", 4), ("<html>oops</html>", 0), ("{\"a\": 1,}", 8),
    ])
    func invalidJSONCarriesTheBytesAndWhereItBroke(text: String, offset: Int64) throws {
        let body = Data(text.utf8)
        for chunking in Chunking.allCases {
            let error = try #require(expectFailure { try drive(JSONParser(), head: head(contentType: "application/json"), body: body, chunking: chunking) })
            #expect(error.code == .invalidJSON)
            #expect(error.byteOffset == offset, "\(chunking)")
            #expect(error.line == 1)
            #expect(error.column == Int(offset) + 1)
            // Parsing stops at the first bad byte: the bytes received up to there come back.
            let kept = try #require(error.intermediate?.data)
            #expect(body.starts(with: kept) && kept.count >= min(Int(offset) + 1, body.count))
            #expect(error.head?.status == 200)
        }
    }

    @Test func errorPositionsCountLines() throws {
        let body = Data("{\n  \"a\": 1,\n  \"b\": [true, fals]\n}".utf8)
        let error = try #require(expectFailure { try drive(JSONParser(), head: head(contentType: "application/json"), body: body) })
        #expect(error.line == 3)
        #expect(error.column == 15)
        #expect(error.byteOffset == 26)
        #expect(error.reason.contains("line 3, column 15"))
    }

    @Test func truncatedJSONWithoutContentLengthIsInvalid() throws {
        let body = Data(Self.document.utf8).prefix(40)
        let error = expectFailure { try drive(JSONParser(), head: head(contentType: "application/json"), body: Data(body)) }
        #expect(error?.code == .invalidJSON)
        #expect(error?.intermediate?.data == Data(body))
    }

    @Test func truncatedJSONWithContentLengthIsATruncatedBody() throws {
        let body = Data(Self.document.utf8)
        let error = expectFailure {
            try drive(JSONParser(), head: head(contentType: "application/json", contentLength: body.count), body: body.prefix(40))
        }
        #expect(error?.code == .truncatedBody)
    }

    @Test func emptyBodyFailsByDefault() throws {
        let error = expectFailure { try drive(JSONParser(), head: head(contentType: "application/json"), body: Data()) }
        #expect(error?.code == .emptyBody)
        #expect(error?.head?.status == 200)
    }

    @Test func emptyBodyCanReadAsNull() throws {
        #expect(try drive(JSONParser(emptyBodyPolicy: .null), head: head(contentType: "application/json"), body: Data()) == JSON.null)
        let optional = try drive(JSONParser(decoding: User?.self, emptyBodyPolicy: .null), head: head(contentType: "application/json"), body: Data())
        #expect(optional == nil)
    }

    @Test(arguments: [head(204), head(205), head(200, contentType: "application/json", method: "HEAD")])
    func bodylessResponsesReadAsNullWhateverThePolicy(response: ResponseHead) throws {
        #expect(try drive(JSONParser(), head: response, body: Data()) == JSON.null)
    }

    @Test func problemJSONCountsAsJSON() throws {
        let json = try drive(JSONParser(), head: head(contentType: "application/problem+json"), body: Data("{\"title\":\"x\"}".utf8))
        #expect(json["title"] == "x")
    }

    @Test func htmlIsRejectedWithItsBody() throws {
        let error = try #require(expectFailure {
            try drive(JSONParser(), head: head(200, contentType: "text/html; charset=utf-8"), body: Data("<p>Login required</p>".utf8))
        })
        #expect(error.code == .unacceptableContentType)
        #expect(error.errorBody?.text == "<p>Login required</p>")
    }

    @Test func missingContentTypeIsRejected() throws {
        let error = expectFailure { try drive(JSONParser(), head: head(200), body: Data("{}".utf8)) }
        #expect(error?.code == .missingContentType)
        #expect(error?.errorBody?.json == [:])
    }

    @Test func utf8ByteOrderMarkIsIgnored() throws {
        let body = Data([0xEF, 0xBB, 0xBF]) + Data("{\"a\":1}".utf8)
        #expect(try drive(JSONParser(), head: head(contentType: "application/json"), body: body)["a"] == 1)
    }

    @Test func utf16JSONIsDecodedFirst() throws {
        let body = StringConverterTests.encodeWithoutMark("{\"name\":\"Zoë\"}", .utf16LittleEndian)
        let json = try drive(JSONParser(), head: head(contentType: "application/json; charset=utf-16le"), body: body, chunking: .oneByte)
        #expect(json["name"] == "Zoë")
        let marked = Data([0xFE, 0xFF]) + StringConverterTests.encodeWithoutMark("[true]", .utf16BigEndian)
        #expect(try drive(JSONParser(), head: head(contentType: "application/json"), body: marked) == JSON.array([true]))
    }

    @Test func invalidJSONInUTF16CarriesTheDecodedText() throws {
        let body = StringConverterTests.encodeWithoutMark("{\"name\": nope}", .utf16BigEndian)
        let error = try #require(expectFailure {
            try drive(JSONParser(), head: head(contentType: "application/json; charset=utf-16be"), body: body)
        })
        #expect(error.code == .invalidJSON)
        #expect(error.intermediate == .text("{\"name\": nope}"))
    }

    @Test func invalidUTF8InJSONWithUnknownCharset() throws {
        let error = expectFailure {
            try drive(JSONParser(), head: head(contentType: "application/json; charset=x-unknown"), body: Data("{}".utf8))
        }
        #expect(error?.code == .unsupportedCharset)
    }

    @Test func bodyOverTheLimit() throws {
        let error = expectFailure {
            try drive(JSONParser(maximumBodySize: 10), head: head(contentType: "application/json", contentLength: 11), body: Data("[1,2,3,4,5]".utf8))
        }
        #expect(error?.code == .bodyTooLarge)
    }

    /// Under a raised limit, a server declaring an impossible length (`Int64.max`) neither stops
    /// the process nor takes memory up front: the document that comes is parsed (the transport,
    /// not the handler, reports the body as short).
    @Test(arguments: [false, true])
    func anImpossibleDeclaredLengthUnderARaisedLimit(decoding: Bool) throws {
        let parser = decoding ? JSONParser(decoding: JSON.self, maximumBodySize: .max) : JSONParser(maximumBodySize: .max)
        try parser.prepare(for: ResponseHead(status: 200, headers: ["Content-Type": "application/json", "Content-Length": String(Int64.max)]))
        try parser.receive(Data(#"{"a":[1,2,3]}"#.utf8))
        #expect(try parser.finish() == ["a": [1, 2, 3]])
    }
}
