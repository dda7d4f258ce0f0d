import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Random documents: the parser reads the value they were written from, in any chunking, and
/// agrees with `JSONSerialization` on the same bytes.
@Suite struct JSONRandomDocumentTests {
    @Test(arguments: 0..<20)
    func randomDocumentsReadBackTheirValue(batch: Int) throws {
        for seed in UInt64(batch * 25)..<UInt64(batch * 25 + 25) {
            var random = RandomJSON(seed: seed)
            let (text, value) = random.document()
            let bytes = text.bytes
            let parsed = try ParserFeeding.parse(bytes)
            #expect(parsed == value, "seed \(seed): \(text)")
            var generator = SeededGenerator(seed: seed)
            var cuts: [Int] = []
            var position = 0
            while position < bytes.count {
                position += Int.random(in: 1...9, using: &generator)
                cuts.append(min(position, bytes.count))
            }
            #expect(try ParserFeeding.parse(bytes, cuts: cuts) == value, "seed \(seed), cuts \(cuts)")
            let foundation = try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)
            #expect(FoundationComparison.matches(parsed, foundation), "seed \(seed): \(text)")
        }
    }

    @Test func randomDocumentsWithOneByteBrokenFailWhereFoundationDoes() throws {
        var checked = 0
        for seed in UInt64(1000)..<1300 {
            var random = RandomJSON(seed: seed)
            var bytes = random.document(depth: 3).text.bytes
            guard !bytes.isEmpty else { continue }
            var generator = SeededGenerator(seed: seed)
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            bytes[position] = [UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"), UInt8(ascii: "\""), 0x01, 0xFF, UInt8(ascii: "x")]
                .randomElement(using: &generator)!
            let foundationAccepts = (try? JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed)) != nil
            let ours = ParserFeeding.syntaxError(bytes)
            if foundationAccepts {
                // Foundation is laxer in places (it reads some invalid UTF-8); when it accepts, it
                // must be because of that, and otherwise we agree.
                if let ours, !ours.reason.contains("UTF-8") {
                    Issue.record("seed \(seed): we reject what Foundation accepts: \(ours.description)")
                }
            } else {
                #expect(ours != nil, "seed \(seed): Foundation rejects, so must we: \(String(decoding: bytes, as: UTF8.self))")
                checked += 1
            }
            if let ours {
                #expect(ParserFeeding.syntaxError(bytes, cuts: Array(stride(from: 0, to: bytes.count, by: 3)))?.offset == ours.offset)
            }
        }
        #expect(checked > 100, "most broken documents are rejected by both")
    }
}
