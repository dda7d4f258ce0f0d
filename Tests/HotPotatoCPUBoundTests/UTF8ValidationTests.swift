import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// HotPotato's UTF-8 validator (behind strict JSON strings and text decoding) agrees with the
/// standard library's on every short sequence, and reports where the first invalid one starts.
@Suite struct UTF8ValidationTests {
    /// Checks one sequence, placed after some ASCII so that offsets are not all zero.
    private func check(_ sequence: [UInt8]) {
        let bytes = Array("ab".utf8) + sequence
        let valid = String(validating: bytes, as: UTF8.self) != nil
        let offset = bytes.withUnsafeBytes { UTF8Validation.firstInvalidOffset(in: $0) }
        #expect((offset == nil) == valid, "\(sequence.map { String($0, radix: 16) })")
        if let offset {
            // Everything before the reported offset is valid; the sequence starting there is not.
            #expect(offset >= 2 && String(validating: bytes[..<offset], as: UTF8.self) != nil, "\(sequence)")
        }
    }

    @Test func everyOneAndTwoByteSequence() {
        for first in 0...255 {
            check([UInt8(first)])
            for second in 0...255 { check([UInt8(first), UInt8(second)]) }
        }
    }

    @Test func everyThreeByteSequenceWithAThreeByteLead() {
        for lead in 0xE0...0xEF {
            for second in 0...255 {
                for third in [0x00, 0x41, 0x7F, 0x80, 0x9F, 0xA0, 0xBF, 0xC0, 0xE0, 0xFF] {
                    check([UInt8(lead), UInt8(second), UInt8(third)])
                }
            }
        }
    }

    @Test func fourByteSequencesAtTheEdges() {
        let continuations = [0x41, 0x7F, 0x80, 0x8F, 0x90, 0xBF, 0xC0]
        for lead in 0xF0...0xFF {
            for second in 0...255 {
                for third in continuations {
                    for fourth in continuations { check([UInt8(lead), UInt8(second), UInt8(third), UInt8(fourth)]) }
                }
            }
        }
    }

    @Test func truncatedSequencesAtTheEnd() {
        for sequence: [UInt8] in [[0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0xA5], [0xE2], [0xF0]] {
            check(sequence)
            check(sequence + Array("xyz".utf8))
        }
    }

    @Test func longTextInManyScripts() {
        let text = "Grüße — 日本語 — Съешь — 🥔🍟 — العربية — plain ASCII that runs long enough to use the fast path. "
        let bytes = Array(String(repeating: text, count: 50).utf8)
        #expect(bytes.withUnsafeBytes { UTF8Validation.firstInvalidOffset(in: $0) } == nil)
        for wanted in [1, 7, 8, 9, 100, bytes.count / 2] {
            // Inside a character, the sequence that is cut is the first invalid one; between
            // characters, the inserted byte is.
            var cut = wanted
            while bytes[cut] & 0xC0 == 0x80 { cut += 1 }
            var broken = bytes
            broken.insert(0xFF, at: cut)
            #expect(broken.withUnsafeBytes { UTF8Validation.firstInvalidOffset(in: $0) } == cut)
            var split = bytes
            split.insert(0x41, at: cut + 1)
            #expect(split.withUnsafeBytes { UTF8Validation.firstInvalidOffset(in: $0) } == (bytes[cut] < 0x80 ? nil : cut))
        }
    }
}
