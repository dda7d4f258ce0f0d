import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The handlers are extensible by subclassing, as hotpotato's were.
@Suite struct SubclassingTests {
    /// Converts the collected bytes: an `Accumulator` subclass.
    final class LineCounter: Accumulator<Int> {
        override func content(from body: Data) throws -> Int {
            body.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        }
    }

    /// Gates differently: a `SelectiveDiscarder` subclass that accepts anything below 500.
    final class LenientDiscarder: SelectiveDiscarder<Void> {
        override func validate(_ head: ResponseHead) throws {
            if head.status >= 500 { try super.validate(head) }
        }
    }

    /// Maps JSON to a domain type: a `JSONParser` subclass.
    struct Repo: Equatable { let name: String; let stars: Int }
    final class RepoParser: JSONParser<Repo> {
        override func content(from json: JSON) throws -> Repo {
            guard let name = json["name"]?.stringValue, let stars = json["stargazers_count"]?.intValue else {
                throw HotPotatoError(.conversionFailed, reason: "Not a repository.", head: head)
            }
            return Repo(name: name, stars: stars)
        }
    }

    /// Converts decoded text: a `StringConverter` subclass.
    final class WordCounter: StringConverter<Int> {
        override func content(from text: String) throws -> Int {
            text.split(whereSeparator: \.isWhitespace).count
        }
    }

    /// Converts bytes and fails with a foreign error.
    final class Picky: Accumulator<String> {
        struct NotPicky: Error {}
        override func content(from body: Data) throws -> String { throw NotPicky() }
    }

    @Test(arguments: Chunking.allCases)
    func accumulatorSubclass(chunking: Chunking) throws {
        let body = Data(String(repeating: "line\n", count: 5_000).utf8)
        #expect(try drive(LineCounter(), head: head(), body: body, chunking: chunking) == 5_000)
    }

    @Test func discarderSubclass() throws {
        try drive(LenientDiscarder(), head: head(404), body: Data("fine".utf8))
        #expect(expectFailure { try drive(LenientDiscarder(), head: head(503), body: Data()) }?.code == .unacceptableStatus)
    }

    @Test(arguments: Chunking.allCases)
    func jsonParserSubclassKeepsGatingAndKeyPaths(chunking: Chunking) throws {
        let body = Data(#"{"data": {"name": "hotpotato", "stargazers_count": 42}}"#.utf8)
        let repo = try drive(RepoParser(atKeyPath: "data"), head: head(contentType: "application/json"), body: body, chunking: chunking)
        #expect(repo == Repo(name: "hotpotato", stars: 42))
        let rejected = expectFailure { try drive(RepoParser(), head: head(contentType: "text/plain"), body: body) }
        #expect(rejected?.code == .unacceptableContentType)
        let failed = try #require(expectFailure { try drive(RepoParser(), head: head(contentType: "application/json"), body: Data("{}".utf8)) })
        #expect(failed.code == .conversionFailed)
        #expect(failed.intermediate == .bytes(Data("{}".utf8)), "the bytes are attached for the subclass")
    }

    /// Asks its superclass for the content twice, as an override that retries might.
    final class TwiceDecoder: JSONParser<[Int]> {
        override func content(from body: Data) throws -> [Int] {
            let first = try super.content(from: body)
            return try first == super.content(from: body) ? first : []
        }
    }

    final class TwiceDocument: JSONParser<JSONDocument> {
        override func content(from body: Data) throws -> JSONDocument {
            let first = try super.content(from: body)
            return try first.json == super.content(from: body).json ? first : JSONDocument(parsing: "null")
        }
    }

    @Test(arguments: Chunking.allCases)
    func theContentCanBeAskedForTwice(chunking: Chunking) throws {
        // Both decode through the tape the parser recorded: the second call must get it too.
        let body = Data("[1,2,3]".utf8)
        let json = head(contentType: "application/json")
        // The subclass inherits `init(decoding:…)`.
        #expect(try drive(TwiceDecoder(decoding: [Int].self), head: json, body: body, chunking: chunking) == [1, 2, 3])
        #expect(try drive(TwiceDocument(), head: json, body: body, chunking: chunking).json == [1, 2, 3])
    }

    @Test func stringConverterSubclass() throws {
        #expect(try drive(WordCounter(), head: head(contentType: "text/plain"), body: Data("one two  three\n".utf8), chunking: .oneByte) == 3)
    }

    @Test func foreignConversionErrorsAreWrappedWithTheBytes() throws {
        let error = try #require(expectFailure { try drive(Picky(), head: head(), body: Data("abc".utf8)) })
        #expect(error.code == .conversionFailed)
        #expect(error.underlying is Picky.NotPicky)
        #expect(error.intermediate == .bytes(Data("abc".utf8)))
    }

    @Test func missingOverrideIsAnErrorNotACrash() throws {
        let error = expectFailure { try drive(Accumulator<Int>(), head: head(), body: Data("1".utf8)) }
        #expect(error?.code == .handlerFailed)
        #expect(error?.reason.contains("must override") == true)
    }
}
