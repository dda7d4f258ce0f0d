import Foundation
@testable import HotPotatoTestSupport

/// The deterministic resource a soak case downloads: its bytes follow from a size and a seed, so
/// that the server can serve it, the oracle can compare against it, and a rerun rebuilds it.
///
/// Binary resources are random bytes; text is printable ASCII (valid in any ASCII-compatible
/// charset); JSON resources are an array of ``Item``s, or the same items as JSON Lines, about
/// `size` bytes long.
struct SoakResource: Sendable {
    /// What the bytes are, chosen to suit the handler that reads them.
    enum Kind: String, Sendable {
        case binary, text, jsonArray, jsonLines
    }

    /// An element of the JSON resources.
    struct Item: Codable, Equatable, Sendable {
        let i: Int
        let s: String
    }

    let kind: Kind
    let body: Data
    /// A strong validator, different for every resource.
    let etag: String
    /// The items, for the JSON kinds.
    let items: [Item]

    var contentType: String {
        switch kind {
        case .binary: return "application/octet-stream"
        case .text: return "text/plain; charset=utf-8"
        case .jsonArray: return "application/json"
        case .jsonLines: return "application/x-ndjson"
        }
    }

    init(kind: Kind, size: Int, seed: UInt64) {
        self.kind = kind
        etag = "\"soak-\(String(seed, radix: 16))-\(size)-\(kind.rawValue)\""
        var random = SplitMix64(seed: seed)
        switch kind {
        case .binary:
            var bytes = [UInt8](repeating: 0, count: size)
            var index = 0
            while index < size {
                var word = random.next()
                for _ in 0..<8 where index < size {
                    bytes[index] = UInt8(truncatingIfNeeded: word)
                    word >>= 8
                    index += 1
                }
            }
            body = Data(bytes)
            items = []
        case .text:
            body = Data((0..<size).map { _ in UInt8(32 + random.int(in: 0...94)) })
            items = []
        case .jsonArray, .jsonLines:
            var items: [Item] = []
            var length = 2
            repeat {
                let letters = String((0..<random.int(in: 0...40)).map { _ in Character(Unicode.Scalar(UInt8(97 + random.int(in: 0...25)))) })
                items.append(Item(i: random.int(in: -1_000_000...1_000_000), s: letters))
                length += 14 + letters.count
            } while length < size
            self.items = items
            let encoded = items.map { #"{"i":\#($0.i),"s":"\#($0.s)"}"# }
            body = Data((kind == .jsonArray ? "[" + encoded.joined(separator: ",") + "]" : encoded.map { $0 + "\n" }.joined()).utf8)
        }
    }

    /// The body gzip-encoded (stored deflate blocks: valid gzip that any decoder accepts).
    var gzipped: Data {
        var out = Data([0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xFF])
        var offset = 0
        repeat {
            let count = min(65_535, body.count - offset)
            let final = offset + count == body.count
            out.append(final ? 0x01 : 0x00)
            out.append(contentsOf: [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)])
            out.append(body[body.startIndex + offset ..< body.startIndex + offset + count])
            offset += count
        } while offset < body.count
        out.append(contentsOf: Self.littleEndian(Self.crc32(body)))
        out.append(contentsOf: Self.littleEndian(UInt32(truncatingIfNeeded: body.count)))
        return out
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8(value >> 24)]
    }

    private static let crcTable: [UInt32] = (0..<256).map { entry in
        var value = UInt32(entry)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    private static func crc32(_ data: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in data { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }
}
