import Foundation

extension JSON {
    /// Decodes a `Decodable` type from this value (or from the value at `keyPath`), straight from
    /// the parsed value: nothing is serialised and parsed again.
    ///
    /// ```swift
    /// let decoder = JSONDecoder()
    /// decoder.keyDecodingStrategy = .convertFromSnakeCase
    /// decoder.dateDecodingStrategy = .iso8601
    /// let users = try json.decode([User].self, atKeyPath: "data.users", using: decoder)
    /// ```
    ///
    /// The decoder's strategies are honoured as `JSONDecoder` honours them — keys (and
    /// `[String: Value]` keys left as written), dates, data, non-conforming floats — as is its
    /// `userInfo`, and failures are the `DecodingError`s `JSONDecoder` throws, with the same
    /// coding paths. Integers decode only when the number fits exactly (`34.0` does for `Int`,
    /// `34.5` does not); `Decimal` is made from the exact digits. One difference: when a document
    /// repeats a key, the value kept is the one ``JSONParsingOptions/duplicateKeys`` chose (the last
    /// by default), where `JSONDecoder` keeps the first.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - keyPath: Where to decode from (`"data.users"`, `"items.0"`); `nil` for this value.
    ///   - decoder: The `JSONDecoder` whose strategies and `userInfo` to use.
    /// - Throws: `DecodingError`; ``HotPotatoError/Code/keyPathNotFound`` when there is no value
    ///   at `keyPath`.
    public func decode<T: Decodable>(
        _ type: T.Type = T.self, atKeyPath keyPath: String? = nil, using decoder: JSONDecoder = JSONDecoder()
    ) throws -> T {
        var value = self
        if let keyPath {
            guard let found = self[keyPath] else {
                throw HotPotatoError.keyPathNotFound(keyPath)
            }
            value = found
        }
        return try JSONValueDecoder.decode(type, from: value, using: decoder)
    }
}

extension JSON {
    /// Decodes a `Decodable` type from a JSON document's bytes (or from the value at `keyPath`)
    /// with HotPotato's parser: the fastest way from bytes to your types, and what
    /// ``JSONParser`` and `.as(_:)` do with a response body.
    ///
    /// ```swift
    /// let users = try JSON.decode([User].self, from: data, atKeyPath: "data.users")
    /// ```
    ///
    /// The document is checked exactly as ``init(parsing:options:)-(Data,_)`` checks it, but no
    /// ``JSON`` value is made: the parser records where each token is, and the types are decoded
    /// from the bytes themselves. Strategies, special types and errors are those of
    /// ``decode(_:atKeyPath:using:)``.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - data: The document, in UTF-8 (a byte-order mark is ignored); below 4 GiB.
    ///   - keyPath: Where to decode from; `nil` for the whole document.
    ///   - decoder: The `JSONDecoder` whose strategies and `userInfo` to use.
    ///   - options: Nesting limit and duplicate-key policy.
    /// - Throws: ``HotPotatoError/Code/invalidJSON`` (with the byte offset, line and column),
    ///   ``HotPotatoError/Code/keyPathNotFound``, or a `DecodingError`.
    public static func decode<T: Decodable>(
        _ type: T.Type = T.self, from data: Data, atKeyPath keyPath: String? = nil,
        using decoder: JSONDecoder = JSONDecoder(), options: JSONParsingOptions = JSONParsingOptions()
    ) throws -> T {
        try decode(type, from: data, atKeyPath: keyPath, strategies: JSONDecodingStrategies(decoder), options: options)
    }

    /// ``decode(_:from:atKeyPath:using:options:)`` with the decoder's strategies read already, so
    /// that a stream of documents decoded with one decoder reads them once.
    static func decode<T: Decodable>(
        _ type: T.Type, from data: Data, atKeyPath keyPath: String?, strategies: JSONDecodingStrategies,
        options: JSONParsingOptions = JSONParsingOptions()
    ) throws -> T {
        guard data.count <= Int(UInt32.max) else {
            // Beyond the tape's 32-bit offsets: through a tree.
            var value = try JSON(parsing: data, options: options)
            if let keyPath {
                guard let found = value[keyPath] else { throw HotPotatoError.keyPathNotFound(keyPath) }
                value = found
            }
            return try JSONValueDecoder.decode(type, from: value, strategies: strategies)
        }
        let tape: JSONTape
        do {
            tape = try JSONBackend.tape(data, options: options)
        } catch {
            throw error.hotPotatoError(head: nil, intermediate: .bytes(data))
        }
        return try JSONBackend.decode(
            type, tape: tape, bytes: data, atKeyPath: keyPath, strategies: strategies, duplicateKeys: options.duplicateKeys)
    }
}
