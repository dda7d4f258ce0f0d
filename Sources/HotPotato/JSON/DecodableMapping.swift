import Foundation

/// Decodes a `Decodable` type with a caller's `JSONDecoder`'s strategies: from a body and the
/// tape the parser recorded for it (the fast way), or from a ``JSON`` value (for bodies decoded
/// from another charset first).
struct DecodableMapping<Content> {
    let decodeValue: (JSON) throws -> Content
    let decodeTape: (_ tape: JSONTape, _ body: Data, _ keyPath: String?, _ duplicateKeys: JSONParsingOptions.DuplicateKeyPolicy) throws -> Content

    init(_ type: Content.Type, decoder: JSONDecoder) where Content: Decodable {
        let strategies = JSONDecodingStrategies(decoder)
        decodeValue = { value in
            try JSONValueDecoder.decode(type, from: value, strategies: strategies)
        }
        decodeTape = { tape, body, keyPath, duplicateKeys in
            try JSONBackend.decode(type, tape: tape, bytes: body, atKeyPath: keyPath, strategies: strategies, duplicateKeys: duplicateKeys)
        }
    }
}
