import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// No size a server sends may trap the process: every handler, fed the most extreme
/// `Content-Length` and `Content-Range` values through ``ResponseDriver``, fails with a specific
/// error (or succeeds where the body is whole) and never crashes.
@Suite struct ExtremeSizeTests {
    /// Every handler, made afresh, driven over `body`; returns the error code, or nil on success.
    static func codes(head: ResponseHead, body: Data, in scratch: ScratchDirectory) -> [String: HotPotatoError.Code?] {
        func run<H: ContentHandler>(_ handler: H) -> HotPotatoError.Code? {
            do {
                _ = try ResponseDriver.run(handler, head: head, chunks: [body])
                return nil
            } catch {
                return error.code
            }
        }
        let sink = OutputStream(toMemory: ())
        return [
            "SelectiveDiscarder": run(SelectiveDiscarder<Void>()),
            "Accumulator": run(Accumulator<Data>()),
            "StringConverter": run(StringConverter<String>()),
            "JSONParser": run(JSONParser<JSON>()),
            "JSONParser(decoding:)": run(JSONParser(decoding: [Int].self)),
            "StreamWriter": run(StreamWriter(stream: sink)),
            "FileWriter": run(FileWriter(destination: scratch.file(UUID().uuidString))),
            "FileWriter(resumable:)": run(FileWriter(destination: scratch.file(UUID().uuidString), resumable: true)),
        ]
    }

    static let body = Data("[1,2,3]".utf8)

    @Test(arguments: [Int64.max, Int64.max - 1, Int64.max - 511, Int64(UInt32.max) + 1, 1 << 62])
    func hugeDeclaredLengths(length: Int64) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let codes = Self.codes(head: head(200, contentType: "application/json", headers: [("Content-Length", String(length))]),
                               body: Self.body, in: scratch)
        for (handler, code) in codes {
            let holdsTheBody = ["Accumulator", "StringConverter", "JSONParser", "JSONParser(decoding:)"].contains(handler)
            #expect(code == (holdsTheBody ? .bodyTooLarge : .truncatedBody), "\(handler): \(String(describing: code))")
        }
        #expect(try scratch.entries().allSatisfy { $0.contains(".hotpotato-partial") }, "only the resumable partial is kept")
    }

    @Test(arguments: ["1e3", "99999999999999999999", "9223372036854775808", "-1", "+7", "7, 8", "0x7", "7.0", "", " ", "٧"])
    func malformedLengths(value: String) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let head = head(200, contentType: "application/json", headers: [("Content-Length", value)])
        #expect(head.contentLength == nil && head.hasMalformedContentLength)
        for (handler, code) in Self.codes(head: head, body: Self.body, in: scratch) {
            #expect(code == .malformedResponse, "\(handler), Content-Length \"\(value)\": \(String(describing: code))")
        }
        #expect(try scratch.entries().isEmpty)
    }

    @Test func repeatedIdenticalLengthsAreOneLength() {
        #expect(head(200, headers: [("Content-Length", "7"), ("Content-Length", "7")]).contentLength == 7)
        #expect(head(200, headers: [("Content-Length", "7, 7")]).contentLength == 7)
        #expect(head(200, headers: [("Content-Length", " 7 ")]).contentLength == 7)
        #expect(head(200, headers: [("Content-Length", "007")]).contentLength == 7)
        #expect(head(200, headers: [("Content-Length", "9223372036854775807")]).contentLength == Int64.max)
        #expect(!head(200).hasMalformedContentLength)
    }

    @Test(arguments: [
        "bytes 0-9223372036854775806/9223372036854775807", "bytes 0-9223372036854775807/*",
        "bytes 9223372036854775807-9223372036854775807/*", "bytes */9223372036854775807",
        "bytes 0-99999999999999999999/99999999999999999999", "bytes 5-2/10", "bytes 0-6/7",
    ])
    func extremeContentRanges(contentRange: String) throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let head = head(206, contentType: "application/json", headers: [("Content-Range", contentRange)])
        for (handler, code) in Self.codes(head: head, body: Self.body, in: scratch) {
            if handler.hasPrefix("FileWriter") {
                // Driven without a request, a 206 is a file only when it spans the whole resource.
                let expected: HotPotatoError.Code? = switch contentRange {
                case "bytes 0-6/7": nil
                case "bytes 0-9223372036854775806/9223372036854775807": .truncatedBody  // whole, but 7 bytes came
                default: .malformedResponse
                }
                #expect(code == expected, "\(handler), \(contentRange): \(String(describing: code))")
            } else {
                #expect(code == nil, "\(handler) reads any 206 body: \(String(describing: code))")
            }
        }
        let range = ContentRange(parsing: contentRange)
        _ = range?.length  // never traps
        #expect(ContentRange(parsing: "bytes 0-9223372036854775807/*")?.length == nil, "2^63 bytes do not fit")
        #expect(ContentRange(parsing: "bytes 0-9223372036854775806/9223372036854775807")?.length == Int64.max)
    }
}
