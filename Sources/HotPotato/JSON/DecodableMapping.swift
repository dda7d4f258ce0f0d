import Foundation

/// Decodes a `Decodable` type from a ``JSON`` value with a caller's `JSONDecoder`'s strategies,
/// straight from the value (see ``JSON/decode(_:atKeyPath:using:)``).
struct DecodableMapping<Content> {
    let decode: (JSON) throws -> Content

    init(_ type: Content.Type, decoder: JSONDecoder) where Content: Decodable {
        decode = { value in
            try JSONValueDecoder.decode(type, from: value, using: decoder)
        }
    }
}
