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
        do {
            return try JSON.decode(type, from: Data(data.utf8), atKeyPath: nil, strategies: strategies)
        } catch var error as HotPotatoError where error.code == .invalidJSON {
            if let syntax = error.underlying as? JSONSyntaxError {
                error.reason = "The event's data is not valid JSON: \(syntax.description)."
            }
            error.intermediate = .text(data)
            throw error
        }
    }
}
