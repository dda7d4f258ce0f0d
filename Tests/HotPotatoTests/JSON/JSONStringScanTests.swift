import CJSONScan
import Foundation
import Testing
@testable import HotPotato

/// The string scan behind the JSON parser (`hp_json_scan_string`) stops at the first quote,
/// backslash or control byte, says whether a byte above 0x7F came before it, and never calls
/// bytes valid UTF-8 that are not: where it checks UTF-8 (x86_64 with SSSE3), its verdict is the
/// standard library's, for every sequence and every position around its sixteen-byte blocks.
@Suite struct JSONStringScanTests {
    private static let checksUTF8 = hp_json_scan_checks_utf8() != 0

    private static func isSpecial(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20
    }

    /// Scans `content` placed after `offset` ASCII bytes and followed by a quote and `trailing`
    /// more bytes, and compares what the scan says with what the bytes are.
    private func check(_ content: [UInt8], at offset: Int, trailing: Int = 0) {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: offset) + content + [UInt8(ascii: "\"")]
            + [UInt8](repeating: UInt8(ascii: "b"), count: trailing)
        var flags: UInt32 = 0
        let stop = bytes.withUnsafeBufferPointer { hp_json_scan_string($0.baseAddress!, $0.count, &flags) }
        let expected = bytes.firstIndex(where: Self.isSpecial)!
        let label = "\(content.map { String($0, radix: 16) }) at \(offset)"
        #expect(stop == expected, "\(label)")
        let before = bytes[..<expected]
        let nonASCII = before.contains { $0 >= 0x80 }
        let valid = String(validating: before, as: UTF8.self) != nil
        let unchecked = flags & HP_JSON_SCAN_UNCHECKED != 0
        #expect((flags & HP_JSON_SCAN_NON_ASCII != 0) == nonASCII, "\(label)")
        #expect(valid || unchecked, "invalid UTF-8 passed as valid: \(label)")
        #expect(unchecked == (Self.checksUTF8 ? !valid : nonASCII), "\(label)")
    }

    @Test func stopsAtTheFirstSpecialByteAtEveryPosition() {
        for length in 0..<70 {
            // No special byte: the scan runs to the end.
            let plain = [UInt8](repeating: 0xC3, count: length).enumerated().map { $0.offset % 2 == 0 ? $0.element : 0xA9 }
            var flags: UInt32 = 0
            #expect(plain.withUnsafeBufferPointer { hp_json_scan_string($0.baseAddress, $0.count, &flags) } == length)
            for position in 0..<length {
                for special: UInt8 in [0x22, 0x5C, 0x00, 0x1F, 0x0A] {
                    var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: length)
                    bytes[position] = special
                    if position + 1 < length { bytes[position + 1] = 0x22 }
                    var flags: UInt32 = 0
                    let stop = bytes.withUnsafeBufferPointer { hp_json_scan_string($0.baseAddress!, $0.count, &flags) }
                    #expect(stop == position, "\(special) at \(position) of \(length)")
                    #expect(flags == 0, "ASCII before the stop")
                }
            }
        }
    }

    @Test func everyTwoBytePairAroundABlockEdge() {
        for first in 0...255 {
            for second in 0...255 {
                let pair = [UInt8(first), UInt8(second)]
                check(pair, at: 0)
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

    /// Random text in every script, some of it broken at one byte, parsed as a JSON string whole
    /// and in pieces: accepted exactly when it is valid, and rejected at its first bad byte.
    @Test func randomTextIsRejectedAtItsFirstBadByte() throws {
        var random = SystemRandomNumberGenerator()
        let ranges: [ClosedRange<UInt32>] = [0x20...0x7E, 0xA0...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF]
        for round in 0..<1500 {
            var content: [UInt8] = []
            let count = Int.random(in: 0...60, using: &random)
            for _ in 0..<count {
                let range = ranges.randomElement(using: &random)!
                let scalar = Unicode.Scalar(UInt32.random(in: range, using: &random))!
                guard scalar != "\"" && scalar != "\\" else { continue }
                content += Array(String(Character(scalar)).utf8)
            }
            if round % 3 != 0, !content.isEmpty {
                content[Int.random(in: 0..<content.count, using: &random)] = UInt8.random(in: 0x80...0xFF, using: &random)
            }
            check(content, at: round % 17)
            let document = [UInt8(ascii: "\"")] + content + [UInt8(ascii: "\"")]
            let bad = content.withUnsafeBytes { UTF8Validation.firstInvalidOffset(in: $0) }
            for cuts in [[], stride(from: 0, to: document.count, by: 7).map { $0 }] {
                if let bad {
                    let error = ParserFeeding.syntaxError(document, cuts: cuts)
                    #expect(error?.offset == Int64(1 + bad), "\(content.map { String($0, radix: 16) })")
                } else {
                    #expect(try ParserFeeding.parse(document, cuts: cuts) == .string(String(decoding: content, as: UTF8.self)))
                }
            }
        }
    }
}
