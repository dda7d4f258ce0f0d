import CJSONScan
import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The string scan behind the JSON parser (`hp_json_scan_string`, and the fallback it uses
/// without a vector unit) stops at the first quote, control byte or backslash that does not start
/// a valid escape, steps over valid escapes, says whether a byte above 0x7F came before the stop,
/// and never calls bytes valid UTF-8 that are not: where it checks UTF-8 (x86_64 with SSSE3), its
/// verdict is the standard library's, for every sequence and every position around its
/// sixteen-byte blocks.
@Suite struct JSONStringScanTests {
    private static let checksUTF8 = hp_json_scan_checks_utf8() != 0

    private typealias Scan = @Sendable (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt32>?) -> Int
    /// Both scans, with whether each checks UTF-8.
    private static let scans: [(scan: Scan, checksUTF8: Bool)] = [
        ({ hp_json_scan_string($0, $1, $2) }, checksUTF8), ({ hp_json_scan_string_portable($0, $1, $2) }, false),
    ]

    /// The length of the valid escape at `bytes[index]` (a backslash), or 0: RFC 8259's rule,
    /// written out here independently of the scan.
    private static func escapeLength(_ bytes: [UInt8], at index: Int) -> Int {
        func hex(_ at: Int) -> Int? {
            guard at + 4 <= bytes.count else { return nil }
            return Int(String(decoding: bytes[at..<at + 4], as: UTF8.self), radix: 16)
                .flatMap { bytes[at..<at + 4].allSatisfy { $0 != UInt8(ascii: "+") && $0 != UInt8(ascii: "-") } ? $0 : nil }
        }
        guard index + 1 < bytes.count else { return 0 }
        switch bytes[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return 2
        case UInt8(ascii: "u"):
            guard let value = hex(index + 2), !(0xDC00...0xDFFF).contains(value) else { return 0 }
            guard (0xD800...0xDBFF).contains(value) else { return 6 }
            guard index + 7 < bytes.count, bytes[index + 6] == UInt8(ascii: "\\"), bytes[index + 7] == UInt8(ascii: "u"),
                  let low = hex(index + 8), (0xDC00...0xDFFF).contains(low) else { return 0 }
            return 12
        default:
            return 0
        }
    }

    /// Where a scan of `bytes` must stop, and whether it steps over an escape before.
    private static func expectedStop(_ bytes: [UInt8]) -> (stop: Int, escaped: Bool) {
        var index = 0
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\"), case let length = escapeLength(bytes, at: index), length > 0 {
                escaped = true
                index += length
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 {
                break
            } else {
                index += 1
            }
        }
        return (index, escaped)
    }

    /// Checks both scans of `bytes` against what the bytes are.
    private func check(_ bytes: [UInt8], _ label: @autoclosure () -> String) {
        let (expected, escaped) = Self.expectedStop(bytes)
        let before = bytes[..<expected]
        let nonASCII = before.contains { $0 >= 0x80 }
        // Escapes are ASCII, so the runs between them are valid exactly when all the bytes are.
        let valid = String(validating: before, as: UTF8.self) != nil
        for (scan, checksUTF8) in Self.scans {
            var flags: UInt32 = 0
            let stop = bytes.withUnsafeBufferPointer { scan($0.baseAddress, $0.count, &flags) }
            let unchecked = flags & HP_JSON_SCAN_UNCHECKED != 0
            // Hundreds of thousands of cases: an issue is recorded only for a wrong one.
            var wrong: [String] = []
            if stop != expected { wrong.append("stopped at \(stop), not \(expected)") }
            if stop < bytes.count {
                if (flags & HP_JSON_SCAN_NON_ASCII != 0) != nonASCII { wrong.append("non-ASCII flag") }
                if (flags & HP_JSON_SCAN_ESCAPED != 0) != escaped { wrong.append("escape flag") }
                if !valid && !unchecked { wrong.append("invalid UTF-8 passed as valid") }
                if unchecked != (checksUTF8 ? !valid : nonASCII) { wrong.append("unchecked flag") }
            }
            if !wrong.isEmpty {
                Issue.record("\(checksUTF8 ? "vector" : "portable") scan of \(label()): \(wrong.joined(separator: ", "))")
            }
        }
    }

    /// Scans `content` placed after `offset` ASCII bytes and followed by a quote and `trailing`
    /// more bytes.
    private func check(_ content: [UInt8], at offset: Int, trailing: Int = 0) {
        var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: offset + content.count + 1 + trailing)
        bytes.replaceSubrange(offset..<offset + content.count, with: content)
        bytes[offset + content.count] = UInt8(ascii: "\"")
        check(bytes, "\(content.map { String($0, radix: 16) }) at \(offset)")
    }

    @Test func stopsAtTheFirstSpecialByteAtEveryPosition() {
        for length in 0..<70 {
            // No special byte: the scans run to the end.
            let plain = (0..<length).map { $0 % 2 == 0 ? UInt8(0xC3) : 0xA9 }
            check(plain, "\(length) bytes, none special")
            for position in 0..<length {
                for special: UInt8 in [0x22, 0x5C, 0x00, 0x1F, 0x0A] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                    bytes[position] = special
                    check(bytes, "\(special) at \(position) of \(length)")
                }
            }
        }
    }

    /// Every kind of escape, valid, invalid and cut short, at every position around the first two
    /// blocks, alone and after non-ASCII text.
    @Test func stepsOverValidEscapesOnly() {
        let escapes = [
            #"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\n"#, #"\r"#, #"\t"#, #"\u00e9"#, #"\uFFFF"#, #"\ud83e\udd54"#,
            #"\x"#, #"\'"#, #"\U00e9"#, #"\u12G4"#, #"\u12"#, #"\ud800"#, #"\ud800x"#, #"\ud800\u0041"#, #"\ud83e\Udd54"#, #"\udc00"#,
            #"\ud83e\udd5"#, #"\"#,
        ].map { Array($0.utf8) }
        for escape in escapes {
            for offset in 0..<40 {
                check(escape, at: offset)
                check(escape + escape, at: offset, trailing: 20)
                check(Array("é".utf8) + escape + Array("日".utf8), at: offset)
                // Cut right after the escape: nothing follows.
                check([UInt8](repeating: UInt8(ascii: "a"), count: offset) + escape, "\(escape) cut at \(offset)")
            }
        }
    }

    @Test func everyTwoBytePairAroundABlockEdge() {
        // Two ASCII bytes are the other tests' business.
        for first in 0...255 {
            for second in 0...255 where first >= 0x80 || second >= 0x80 {
                let pair = [UInt8(first), UInt8(second)]
                if first >= 0x80 { check(pair, at: 0) }
                check(pair, at: 14, trailing: 20)
                check(pair, at: 15)
            }
        }
    }

    @Test func threeByteSequencesAroundABlockEdge() {
        for lead in 0xE0...0xEF {
            for second in 0...255 {
                for third in [0x41, 0x7F, 0x80, 0xA0, 0xBF, 0xC0] {
                    check([UInt8(lead), UInt8(second), UInt8(third)], at: 13, trailing: 16)
                    check([UInt8(lead), UInt8(second), UInt8(third)], at: 14)
                }
            }
        }
    }

    @Test func fourByteSequencesAroundABlockEdge() {
        for lead in 0xF0...0xFF {
            for second in 0...255 {
                for third in [0x41, 0x80, 0x8F, 0x90, 0xBF] {
                    for fourth in [0x80, 0xC0] {
                        check([UInt8(lead), UInt8(second), UInt8(third), UInt8(fourth)], at: lead % 2 == 0 ? 12 : 13)
                    }
                }
            }
        }
    }

    @Test func sequencesCutByTheStop() {
        for sequence: [UInt8] in [[0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0xA5], [0xE2], [0xF0], [0xF0, 0x9F]] {
            for offset in 0..<34 { check(sequence, at: offset) }
        }
    }

    /// Random text in every script, with valid escapes or broken at one byte, parsed as a JSON
    /// string whole and in pieces: accepted exactly when it is valid, with the escapes decoded,
    /// and rejected at its first bad byte.
    @Test func randomTextIsRejectedAtItsFirstBadByte() throws {
        var random = SystemRandomNumberGenerator()
        let ranges: [ClosedRange<UInt32>] = [0x20...0x7E, 0xA0...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF]
        let escapes = [(#"\n"#, "\n"), (#"\""#, "\""), (#"\u00e9"#, "é"), (#"\ud83e\udd54"#, "🥔"), (#"\/"#, "/"), (#"\\"#, "\\")]
        for round in 0..<1500 {
            // Escapes in every other round; a broken byte in two rounds of three without them.
            let escaping = round % 2 == 0
            var content: [UInt8] = []
            var expected = ""
            for _ in 0..<Int.random(in: 0...60, using: &random) {
                if escaping, Int.random(in: 0..<8, using: &random) == 0 {
                    let (escape, decoded) = escapes.randomElement(using: &random)!
                    content += Array(escape.utf8)
                    expected += decoded
                    continue
                }
                let scalar = Unicode.Scalar(UInt32.random(in: ranges.randomElement(using: &random)!, using: &random))!
                guard scalar != "\"" && scalar != "\\" else { continue }
                content += Array(String(Character(scalar)).utf8)
                expected.unicodeScalars.append(scalar)
            }
            if !escaping, round % 3 != 0, !content.isEmpty {
                content[Int.random(in: 0..<content.count, using: &random)] = UInt8.random(in: 0x80...0xFF, using: &random)
                // A continuation byte put in place of another leaves valid text.
                expected = String(decoding: content, as: UTF8.self)
            }
            check(content, at: round % 17)
            let bad = content.withUnsafeBytes { UTF8Validation.firstInvalidOffset(in: $0) }
            let document = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
            for cuts in [[], stride(from: 0, to: document.count, by: 7).map { $0 }] {
                if let bad {
                    let error = ParserFeeding.syntaxError(document, cuts: cuts)
                    #expect(error?.offset == Int64(1 + bad), "\(content.map { String($0, radix: 16) })")
                } else {
                    #expect(try ParserFeeding.parse(document, cuts: cuts) == .string(expected))
                    #expect(try ParserFeeding.parseThroughTape(document, cuts: cuts) == .string(expected))
                }
            }
        }
    }
}
