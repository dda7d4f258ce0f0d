import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// A `Decoder` or container kept past the decoding that gave it out: the tape and bytes it reads
/// are gone, so using it stops the process rather than read freed memory.
@Suite struct JSONDecoderLifetimeTests {
    @Test func decodersAreUsableWhileTheDecodingRuns() throws {
        let kept = try JSON.decode(KeepsItsDecoder.self, from: Data(#"{"a":1,"b":[2,3]}"#.utf8))
        #expect(kept.a == 1)
        #expect(kept.b == [2, 3])
        #expect(kept.scope?.isOpen == false, "the decoding's scope is closed once it returns")
    }

    @Test func aKeptDecoderStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let kept = try JSON.decode(KeepsItsDecoder.self, from: Data(#"{"a":1,"b":[2,3]}"#.utf8))
            _ = try kept.decoder.container(keyedBy: KeepsItsDecoder.Keys.self)
        }
    }

    @Test func aKeptKeyedContainerStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let kept = try JSON.decode(KeepsItsDecoder.self, from: Data(#"{"a":1,"b":[2,3]}"#.utf8))
            _ = try kept.keyed.decode(Int.self, forKey: .a)
        }
    }

    @Test func aKeptUnkeyedContainerStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let kept = try JSON.decode(KeepsItsDecoder.self, from: Data(#"{"a":1,"b":[2,3]}"#.utf8))
            var unkeyed = kept.unkeyed
            _ = try unkeyed.decode(Int.self)
        }
    }

    @Test func aKeptDocumentDecoderStopsTheProcess() async {
        await #expect(processExitsWith: .failure) {
            let document = try JSONDocument(parsing: Data(#"{"a":1,"b":[2,3]}"#.utf8))
            let kept = try document.decode(KeepsItsDecoder.self)
            _ = try kept.decoder.singleValueContainer().decode(JSON.self)
        }
    }
}

/// A type that keeps what `init(from:)` was given.
private struct KeepsItsDecoder: Decodable {
    enum Keys: String, CodingKey { case a, b }

    let a: Int
    let b: [Int]
    let decoder: any Decoder
    let keyed: KeyedDecodingContainer<Keys>
    let unkeyed: any UnkeyedDecodingContainer
    let scope: JSONDecodingScope?

    init(from decoder: any Decoder) throws {
        self.decoder = decoder
        keyed = try decoder.container(keyedBy: Keys.self)
        a = try keyed.decode(Int.self, forKey: .a)
        b = try keyed.decode([Int].self, forKey: .b)
        unkeyed = try keyed.nestedUnkeyedContainer(forKey: .b)
        scope = (decoder as? JSONTapeDecoder)?.scope
    }
}
