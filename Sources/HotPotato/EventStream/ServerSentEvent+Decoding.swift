import Foundation

extension ServerSentEvent {
    /// Decodes the event's data as a JSON document with HotPotato's parser (see
    /// ``JSON/decode(_:from:atKeyPath:using:options:)``).
    ///
    /// ```swift
    /// for try await event in session.get(url).streamEvents() where event.type == "delta" {
    ///     let delta = try event.decode(Delta.self)
    /// }
    /// ```
    ///
    /// - Throws: ``HotPotatoError/Code/invalidJSON`` when the data is not JSON, a `DecodingError`
    ///   when it does not decode as `type`.
    public func decode<T: Decodable>(_ type: T.Type = T.self, using decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decode(type, strategies: JSONDecodingStrategies(decoder))
    }

    /// The data decoded with strategies read from a decoder once, for a stream of events.
    func decode<T: Decodable>(_ type: T.Type, strategies: JSONDecodingStrategies) throws -> T {
        let data = Data(self.data.utf8)
        guard data.count <= Int(UInt32.max) else {
            // Beyond the tape's 32-bit offsets: through a tree.
            return try JSONValueDecoder.decode(type, from: try JSON(parsing: data), strategies: strategies)
        }
        let tape: JSONTape
        do {
            tape = try JSONBackend.tape(data)
        } catch {
            var failure = error.hotPotatoError(head: nil, intermediate: .text(self.data))
            failure.reason = "The event's data is not valid JSON: \(error.description)."
            throw failure
        }
        return try JSONBackend.decode(
            type, tape: tape, bytes: data, atKeyPath: nil, strategies: strategies,
            duplicateKeys: JSONParsingOptions().duplicateKeys)
    }
}
