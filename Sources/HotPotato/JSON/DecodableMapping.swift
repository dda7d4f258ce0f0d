import Foundation

/// Decodes a `Decodable` type from a ``JSON`` value with a caller's `JSONDecoder`.
///
/// For now the value is serialised with its exact digits and decoded by the decoder; a decoder
/// that reads the value directly replaces this without changing callers.
struct DecodableMapping<Content> {
    let decode: (JSON) throws -> Content

    init(_ type: Content.Type, decoder: JSONDecoder) where Content: Decodable {
        decode = { value in
            try decoder.decode(type, from: value.serializedData())
        }
    }
}
