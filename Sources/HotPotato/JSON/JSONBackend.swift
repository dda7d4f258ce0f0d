import Foundation

/// The one seam through which HotPotato parses whole JSON documents held in memory: HotPotato's
/// own parser (``IncrementalJSONParser``), fed all at once.
enum JSONBackend {
    /// Parses a whole UTF-8 JSON document (any value at the top level), ignoring a UTF-8
    /// byte-order mark (offsets in errors still count it).
    static func parse(_ data: Data, options: JSONParsingOptions = JSONParsingOptions()) throws(JSONSyntaxError) -> JSON {
        var parser = IncrementalJSONParser(mode: .document, options: options)
        try feedWhole(data, to: &parser)
        do {
            return try parser.finish()
        } catch {
            throw error as? JSONSyntaxError ?? JSONSyntaxError(reason: "\(error)", offset: 0, line: 1, column: 1)
        }
    }

    /// Parses a whole UTF-8 document into a tape (see ``JSONTapeEntry``), for decoding from
    /// `data` itself.
    static func tape(_ data: Data, options: JSONParsingOptions = JSONParsingOptions()) throws(JSONSyntaxError) -> JSONTape {
        var parser = IncrementalJSONParser(mode: .tape, options: options)
        parser.reserveTape(forDocumentOf: data.count)
        try feedWhole(data, to: &parser)
        do {
            _ = try parser.finish()
        } catch {
            throw error as? JSONSyntaxError ?? JSONSyntaxError(reason: "\(error)", offset: 0, line: 1, column: 1)
        }
        return parser.tape.take()
    }

    private static func feedWhole(_ data: Data, to parser: inout IncrementalJSONParser) throws(JSONSyntaxError) {
        do {
            if data.starts(with: [0xEF, 0xBB, 0xBF]) {
                parser.skipLeadingBytes(3)
                try data.dropFirst(3).withUnsafeBytes { try parser.feed($0) }
            } else {
                try data.withUnsafeBytes { try parser.feed($0) }
            }
        } catch {
            throw error as? JSONSyntaxError ?? JSONSyntaxError(reason: "\(error)", offset: 0, line: 1, column: 1)
        }
    }

    /// Decodes `type` from `data` through its tape, at `keyPath` when given.
    ///
    /// - Throws: `DecodingError`; ``HotPotatoError`` with ``HotPotatoError/Code/keyPathNotFound``,
    ///   or ``HotPotatoError/Code/invalidJSON`` for a key that repeats under
    ///   ``JSONParsingOptions/DuplicateKeyPolicy/reject``.
    static func decode<T: Decodable>(
        _ type: T.Type, tape: JSONTape, bytes data: Data, atKeyPath keyPath: String?,
        strategies: JSONDecodingStrategies, duplicateKeys: JSONParsingOptions.DuplicateKeyPolicy
    ) throws -> T {
        try data.withUnsafeBytes { bytes in
            try tape.withUnsafeBufferPointer { entries in
                let decoder = JSONTapeDecoder(tape: entries, bytes: bytes, at: 0, strategies: strategies, duplicateKeys: duplicateKeys)
                defer { decoder.scope.close() }
                var root = 0
                if let keyPath {
                    guard let found = try decoder.entry(atKeyPath: keyPath, from: 0) else {
                        throw HotPotatoError.keyPathNotFound(keyPath)
                    }
                    root = found
                }
                return try decoder.decode(type, at: root)
            }
        }
    }
}
