import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The parser's streaming modes on their own: JSON Lines, and the elements of an array at a key
/// path, whatever the chunking.
@Suite struct JSONElementModeTests {
    @Test func jsonLines() throws {
        let text = "{\"a\":1}\n\n  [1,2]\r\n\"text\"\n42\ntrue\nnull\n"
        let (elements, error) = ParserFeeding.elements(text.bytes, mode: .lines)
        #expect(error == nil)
        #expect(elements == [["a": 1], [1, 2], "text", 42, true, .null])
    }

    @Test func jsonLinesWithoutAFinalNewline() {
        let (elements, error) = ParserFeeding.elements("1\n2".bytes, mode: .lines)
        #expect(error == nil)
        #expect(elements == [1, 2])
    }

    @Test(arguments: [("1 2\n", 2), ("{\"a\":1}{\"b\":2}\n", 7), ("[1,\n2]\n", nil as Int64?), ("{\"a\":\n", 6)])
    func jsonLinesErrors(text: String, offset: Int64?) {
        let (_, error) = ParserFeeding.elements(text.bytes, mode: .lines)
        if let offset {
            #expect(error?.offset == offset, "\(text.debugDescription): \(error?.reason ?? "no error")")
        } else {
            #expect(error == nil, "a value may span lines when it is not complete on the first")
        }
    }

    static let document = #"{"meta":{"users":[{"name":"not this"}],"n":2},"data":[{"users":["x"]},{"users":[{"name":"a","tags":[1,2]},{"name":"b"},[],"c"]}],"users":{"name":"nor this"}}"#

    static let paths: [(String, [JSON])] = [
        ("data.1.users", [["name": "a", "tags": [1, 2]], ["name": "b"], [], "c"]),
        ("data.0.users", ["x"]),
        ("meta.users", [["name": "not this"]]),
        ("data", [["users": ["x"]], ["users": [["name": "a", "tags": [1, 2]], ["name": "b"], [], "c"]]]),
    ]

    @Test(arguments: paths)
    func arrayAtAKeyPath(path: String, expected: [JSON]) {
        let components = path.split(separator: ".").map(String.init)
        for size in [1, 3, 17, Int.max] {
            let (elements, error) = ParserFeeding.elements(Self.document.bytes, mode: .elements, path: components, pieceSize: size)
            #expect(error == nil, "\(path) in pieces of \(size)")
            #expect(elements == expected, "\(path) in pieces of \(size)")
        }
    }

    @Test(arguments: [("users", "not an array"), ("meta.n", "not an array"), ("nothing", "no array at the key path"),
                      ("data.5.users", "no array at the key path")])
    func keyPathsThatDoNotLeadToAnArray(path: String, reason: String) {
        let (elements, error) = ParserFeeding.elements(Self.document.bytes, mode: .elements, path: path.split(separator: ".").map(String.init))
        #expect(elements.isEmpty)
        #expect(error?.reason.contains(reason) == true, "\(path): \(error?.reason ?? "no error")")
    }

    @Test func topLevelArrayAndErrorsAfterIt() {
        let (elements, error) = ParserFeeding.elements("[1,{\"a\":[2]},\"x\"]".bytes, mode: .elements)
        #expect(error == nil)
        #expect(elements == [1, ["a": [2]], "x"])
        let (before, trailing) = ParserFeeding.elements("[1,2] 3".bytes, mode: .elements)
        #expect(before == [1, 2])
        #expect(trailing?.offset == 6)
        let (_, notArray) = ParserFeeding.elements("{\"a\":1}".bytes, mode: .elements)
        #expect(notArray?.reason.contains("not an array") == true)
    }

    @Test func invalidBytesOutsideThePathAreStillErrors() {
        let text = #"{"skip":{"x":[1,2,"bad \u12"]},"items":[1]}"#
        let (elements, error) = ParserFeeding.elements(text.bytes, mode: .elements, path: ["items"])
        #expect(elements.isEmpty)
        #expect(error?.reason.contains("escape") == true)
    }

    @Test func elementSizeLimit() {
        var parser = IncrementalJSONParser(mode: .elements)
        parser.maximumElementSize = 10
        var seen: [JSON] = []
        parser.onElement = { value, _ in seen.append(value) }
        let text = #"[1,"0123456789",3]"#
        let error = #expect(throws: JSONSyntaxError.self) { try text.bytes.withUnsafeBytes { try parser.feed($0) } }
        #expect(error?.kind == .elementTooLarge)
        #expect(error?.offset == 3)
        #expect(seen == [1])
    }
}
