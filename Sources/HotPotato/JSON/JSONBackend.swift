import Foundation

/// The one seam through which HotPotato parses whole JSON documents held in memory: HotPotato's
/// own parser (``IncrementalJSONParser``), fed all at once.
enum JSONBackend {
    /// Parses a whole UTF-8 JSON document (any value at the top level), ignoring a UTF-8
    /// byte-order mark (offsets in errors still count it).
    ///
    /// The document is parsed into a tape (as ``JSONDocument`` is) and the tree made from it with
    /// its objects reading through the document until they are changed (see ``JSON/Object``):
    /// `data` and the tape are kept while any of them lives. A document of 4 GiB or more, beyond
    /// the tape's 32-bit offsets, is built in memory instead, and so is a document without a `{`
    /// byte (no object, so nothing to leave in the document: building its arrays straight from
    /// the text is faster than through a tape).
    static func parse(_ data: Data, options: JSONParsingOptions = JSONParsingOptions()) throws(JSONSyntaxError) -> JSON {
        guard data.count <= Int(UInt32.max), mayHoldObject(data) else { return try parseInMemory(data, options: options) }
        return try tree(tape: self.tape(data, options: options), bytes: data, options: options)
    }

    /// The tree of a document parsed into `tape`, its objects reading through `bytes` and the
    /// tape; under ``JSONParsingOptions/DuplicateKeyPolicy/reject``, the error for the first
    /// repeated key.
    static func tree(tape: JSONTape, bytes: Data, options: JSONParsingOptions) throws(JSONSyntaxError) -> JSON {
        if case .reject = options.duplicateKeys { try checkRepeatedKeys(tape, bytes) }
        let storage = JSONDocument.Storage(bytes: bytes, tape: tape, policy: options.duplicateKeys == .useFirst ? .useFirst : .useLast)
        return storage.tree(at: 0)
    }

    /// Whether `data` has a `{` byte anywhere (a quick `memchr`).
    private static func mayHoldObject(_ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return false }
            return memchr(base, Int32(UInt8(ascii: "{")), raw.count) != nil
        }
    }

    /// Parses a whole UTF-8 JSON document into a tree whose objects hold their members in memory.
    static func parseInMemory(_ data: Data, options: JSONParsingOptions = JSONParsingOptions()) throws(JSONSyntaxError) -> JSON {
        var parser = IncrementalJSONParser(mode: .document, options: options)
        try feedWhole(data, to: &parser)
        do {
            return try parser.finish()
        } catch {
            throw error as? JSONSyntaxError ?? JSONSyntaxError(reason: "\(error)", offset: 0, line: 1, column: 1)
        }
    }

    /// Under ``JSONParsingOptions/DuplicateKeyPolicy/reject``: the error for the repeated key
    /// that comes first in the document, as the in-memory parse reports it (the tape notes only
    /// the objects whose keys may repeat).
    private static func checkRepeatedKeys(_ tape: JSONTape, _ data: Data) throws(JSONSyntaxError) {
        let entries = tape.entries
        var first: (offset: Int, key: String)?
        data.withUnsafeBytes { raw in
            guard let address = raw.baseAddress else { return }
            let base = address.assumingMemoryBound(to: UInt8.self)
            for index in entries.indices where entries[index].kind == .object && entries[index].flags & JSONTapeEntry.mayRepeatKeys != 0 {
                var seen = Set<JSONMemberName>()
                var position = index + 1
                let end = Int(entries[index].payload)
                while position < end {
                    let entry = entries[position]
                    let key = JSONTapeStrings.make(UnsafeBufferPointer(start: base + Int(entry.payload), count: Int(entry.length)), flags: entry.flags)
                    if !seen.insert(JSONMemberName(key)).inserted {
                        let offset = Int(entry.payload) - 1
                        if first == nil || offset < first!.offset { first = (offset, key) }
                        break
                    }
                    position = entries[position + 1].isContainer ? Int(entries[position + 1].payload) : position + 2
                }
            }
        }
        guard let (offset, key) = first else { return }
        let (line, column) = data.withUnsafeBytes { raw in
            let before = UnsafeRawBufferPointer(rebasing: raw[..<offset])
            let line = before.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            let lineStart = (before.lastIndex(of: 0x0A).map { $0 + 1 }) ?? 0
            return (line, offset - lineStart + 1)
        }
        throw JSONSyntaxError(reason: "The key \"\(key)\" appears twice in an object", offset: Int64(offset), line: line, column: column)
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
