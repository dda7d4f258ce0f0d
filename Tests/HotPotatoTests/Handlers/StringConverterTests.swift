import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

@Suite struct StringConverterTests {
    static let sample = "Grüße, 世界! 🥔 — naïve café"

    @Test(arguments: Chunking.allCases)
    func decodesUTF8ByDefault(chunking: Chunking) throws {
        let body = Data(String(repeating: Self.sample + "\n", count: 2_000).utf8)
        let text = try drive(StringConverter(), head: head(200, contentType: "text/plain"), body: body, chunking: chunking)
        #expect(text == String(repeating: Self.sample + "\n", count: 2_000))
    }

    @Test(arguments: Chunking.allCases)
    func followsTheCharset(chunking: Chunking) throws {
        let body = try #require("Ærø café £5".data(using: .isoLatin1))
        let text = try drive(StringConverter(), head: head(contentType: "text/plain; charset=ISO-8859-1"), body: body, chunking: chunking)
        #expect(text == "Ærø café £5")
    }

    @Test(arguments: [
        ("utf-16le", String.Encoding.utf16LittleEndian),
        ("UTF-16BE", .utf16BigEndian),
        ("windows-1252", .windowsCP1252),
        ("utf-32le", .utf32LittleEndian),
    ])
    func charsetLabels(label: String, encoding: String.Encoding) throws {
        let text = "Price: 12€ — ok"
        let body = Self.encodeWithoutMark(text, encoding)
        #expect(!body.isEmpty)
        #expect(try drive(StringConverter(), head: head(contentType: "text/plain; charset=\(label)"), body: body, chunking: .oneByte) == text)
    }

    @Test(arguments: [
        ([0xEF, 0xBB, 0xBF] as [UInt8], String.Encoding.utf8),
        ([0xFF, 0xFE], .utf16LittleEndian),
        ([0xFE, 0xFF], .utf16BigEndian),
        ([0xFF, 0xFE, 0x00, 0x00], .utf32LittleEndian),
        ([0x00, 0x00, 0xFE, 0xFF], .utf32BigEndian),
    ])
    func byteOrderMarkWithoutCharset(mark: [UInt8], encoding: String.Encoding) throws {
        let body = Data(mark) + Self.encodeWithoutMark(Self.sample, encoding)
        let text = try drive(StringConverter(), head: head(contentType: "text/plain"), body: body, chunking: .odd)
        #expect(text == Self.sample, "the mark picks the encoding and is not part of the text")
    }

    @Test func charsetWinsOverAByteOrderMark() throws {
        let body = Data([0xEF, 0xBB, 0xBF]) + Data("abc".utf8)
        let text = try drive(StringConverter(), head: head(contentType: "text/plain; charset=iso-8859-1"), body: body)
        #expect(text == "\u{EF}\u{BB}\u{BF}abc")
    }

    @Test func utf16LabelWithoutEndiannessUsesTheMarkOrBigEndian() throws {
        let little = Data([0xFF, 0xFE]) + Self.encodeWithoutMark("hi", .utf16LittleEndian)
        #expect(try drive(StringConverter(), head: head(contentType: "text/plain; charset=utf-16"), body: little) == "hi")
        let big = Self.encodeWithoutMark("hi", .utf16BigEndian)
        #expect(try drive(StringConverter(), head: head(contentType: "text/plain; charset=utf-16"), body: big) == "hi")
    }

    @Test func explicitEncodingOverridesTheResponse() throws {
        let body = try #require("Ærø".data(using: .isoLatin1))
        let converter = StringConverter(encoding: .isoLatin1)
        #expect(try drive(converter, head: head(contentType: "text/plain; charset=utf-8"), body: body) == "Ærø")
    }

    @Test(arguments: Chunking.allCases)
    func invalidUTF8IsASpecificErrorWithTheBytes(chunking: Chunking) throws {
        let body = Data("valid start ".utf8) + Data([0xC3, 0x28]) + Data(" tail".utf8)
        let error = try #require(expectFailure { try drive(StringConverter(), head: head(contentType: "text/plain"), body: body, chunking: chunking) })
        #expect(error.code == .undecodableText)
        #expect(error.encoding == "UTF-8")
        #expect(error.byteOffset == 12)
        #expect(error.intermediate == .bytes(body))
        #expect(error.head?.status == 200)
    }

    @Test(arguments: [
        [0xED, 0xA0, 0x80] as [UInt8],  // a UTF-16 surrogate
        [0xC0, 0xAF],  // overlong "/"
        [0xF4, 0x90, 0x80, 0x80],  // past U+10FFFF
        [0xE2, 0x82],  // truncated at the end
        [0xFF],
    ])
    func strictUTF8(bytes: [UInt8]) throws {
        let body = Data("ok".utf8) + Data(bytes)
        let error = expectFailure { try drive(StringConverter(), head: head(), body: body) }
        #expect(error?.code == .undecodableText)
        #expect(error?.byteOffset == 2)
    }

    @Test func wrongCharsetLabelIsASpecificError() throws {
        let body = Data("hello".utf8)
        let error = try #require(expectFailure {
            try drive(StringConverter(), head: head(contentType: "text/plain; charset=klingon-8"), body: body)
        })
        #expect(error.code == .unsupportedCharset)
        #expect(error.encoding == "klingon-8")
        #expect(error.intermediate == .bytes(body))
    }

    @Test func bytesInvalidForTheLabelledCharset() throws {
        let error = expectFailure {
            try drive(StringConverter(), head: head(contentType: "text/plain; charset=us-ascii"), body: Data("caf\u{E9}".utf8))
        }
        #expect(error?.code == .undecodableText)
        #expect(error?.encoding == "US-ASCII")
        let odd = expectFailure {
            try drive(StringConverter(), head: head(contentType: "text/plain; charset=utf-16le"), body: Data([0x41, 0x00, 0x42]))
        }
        #expect(odd?.code == .undecodableText, "an odd byte count is not UTF-16")
    }

    @Test(arguments: [head(204), head(200, method: "HEAD"), head(200, contentLength: 0)])
    func emptyResponsesGiveAnEmptyString(response: ResponseHead) throws {
        #expect(try drive(StringConverter(), head: response, body: Data()) == "")
    }

    @Test func missingOrMalformedContentTypeFallsBackToUTF8() throws {
        #expect(try drive(StringConverter(), head: head(), body: Data("plain".utf8)) == "plain")
        #expect(try drive(StringConverter(), head: head(contentType: "bogus"), body: Data("plain".utf8)) == "plain")
    }

    @Test func bodyOverTheLimit() throws {
        let error = expectFailure { try drive(StringConverter(maximumBodySize: 4), head: head(), body: Data("too long".utf8)) }
        #expect(error?.code == .bodyTooLarge)
    }

    static func encodeWithoutMark(_ text: String, _ encoding: String.Encoding) -> Data {
        switch encoding {
        case .utf8: return Data(text.utf8)
        case .utf16LittleEndian: return Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        case .utf16BigEndian: return Data(text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
        case .utf32LittleEndian:
            return Data(text.unicodeScalars.flatMap { scalar in (0..<4).map { UInt8(truncatingIfNeeded: scalar.value >> (8 * $0)) } })
        case .utf32BigEndian:
            return Data(text.unicodeScalars.flatMap { scalar in (0..<4).reversed().map { UInt8(truncatingIfNeeded: scalar.value >> (8 * $0)) } })
        default: return text.data(using: encoding) ?? Data()
        }
    }
}
