import Foundation

/// A parsed JSON document kept as its bytes and a compact index of its tokens, or a value inside
/// one: the fastest way to parse JSON with HotPotato, and the leanest to hold.
///
/// ```swift
/// let document = try await session.get(url).asJSONDocument().content
/// document["user.followers.0.name"]?.stringValue
/// for item in document["items"]?.arrayValue ?? [] { print(item["id"]?.intValue ?? 0) }
/// let users = try document.decode([User].self, atKeyPath: "data.users")
/// ```
///
/// Parsing checks the whole document exactly as ``JSON/init(parsing:options:)-(Data,_)`` does
/// (strict RFC 8259, the nesting limit, the duplicate-key policy) but makes no value of it: it
/// records where each token is, 12 bytes per token, beside the bytes themselves. A string becomes
/// a `String`, a number a ``JSON/Number``, only when you ask for it, so parsing a large document
/// costs a fraction of building a ``JSON`` tree, and holding it costs little more than the
/// document. Decoding a `Decodable` type from it reads the bytes directly, with nothing parsed
/// again.
///
/// What reaching into it costs: in an array or object of up to 16 children, an index is found by
/// stepping over the elements before it and a key by comparing it with the written keys in order.
/// The first lookup in a larger container makes a table of where its children are (4 bytes per
/// element; a `String` per key), kept with the document, so that later lookups there take
/// constant time; tables are made only for the containers reached into.
///
/// Values reached from a document (`document["items"]`) are `JSONDocument`s too, sharing its
/// storage; each keeps the whole document alive. Documents are addressed with 32-bit offsets, so
/// they must be smaller than 4 GiB.
public struct JSONDocument: Sendable {
    /// The bytes and the tape, shared by every value of a document.
    final class Storage: Sendable {
        let bytes: Data
        let tape: JSONTape
        /// The policy lookups follow where an object may repeat a key.
        let policy: JSONParsingOptions.DuplicateKeyPolicy
        /// Lookup tables of the large containers reached into so far.
        let tables = Locked(LookupTables())

        init(bytes: Data, tape: JSONTape, policy: JSONParsingOptions.DuplicateKeyPolicy) {
            self.bytes = bytes
            self.tape = tape
            self.policy = policy
        }

        /// Runs `body` with a tape decoder over the document (`useLast`: documents with a
        /// repeated key under ``JSONParsingOptions/DuplicateKeyPolicy/reject`` are refused when
        /// made, and ``JSONParsingOptions/DuplicateKeyPolicy/useFirst`` is applied by lookups).
        func read<R>(
            strategies: JSONDecodingStrategies = .standard, duplicateKeys: JSONParsingOptions.DuplicateKeyPolicy? = nil,
            _ body: (JSONTapeDecoder) throws -> R
        ) rethrows -> R {
            try bytes.withUnsafeBytes { bytes in
                try tape.withUnsafeBufferPointer { entries in
                    let decoder = JSONTapeDecoder(
                        tape: entries, bytes: bytes, at: 0, strategies: strategies, duplicateKeys: duplicateKeys ?? policy)
                    defer { decoder.scope.close() }
                    return try body(decoder)
                }
            }
        }
    }

    let storage: Storage
    /// The tape entry of this value.
    let index: Int

    init(storage: Storage, index: Int) {
        self.storage = storage
        self.index = index
    }

    /// Parses a JSON document held in memory, keeping `data` as the document's storage.
    ///
    /// ```swift
    /// let document = try JSONDocument(parsing: data)
    /// ```
    ///
    /// The bytes are read as UTF-8; a leading UTF-8 byte-order mark is ignored.
    /// - Parameters:
    ///   - data: The document, smaller than 4 GiB.
    ///   - options: Nesting limit and duplicate-key policy.
    /// - Throws: ``HotPotatoError/Code/invalidJSON`` with the ``HotPotatoError/byteOffset``,
    ///   ``HotPotatoError/line`` and ``HotPotatoError/column`` of the first byte that is not
    ///   JSON (or of a repeated key, under ``JSONParsingOptions/DuplicateKeyPolicy/reject``), and
    ///   the bytes as ``HotPotatoError/intermediate``.
    public init(parsing data: Data, options: JSONParsingOptions = JSONParsingOptions()) throws(HotPotatoError) {
        guard data.count <= Int(UInt32.max) else {
            var error = HotPotatoError(
                .invalidJSON, reason: "The document is too large for a JSONDocument (4 GiB at most); parse it as JSON instead.")
            error.intermediate = .bytes(data)
            throw error
        }
        let tape: JSONTape
        do {
            tape = try JSONBackend.tape(data, options: options)
        } catch {
            throw error.hotPotatoError(head: nil, intermediate: .bytes(data))
        }
        try self.init(tape: tape, bytes: data, duplicateKeys: options.duplicateKeys)
    }

    /// Parses a JSON document held in a string; see ``init(parsing:options:)-(Data,_)``.
    public init(parsing text: String, options: JSONParsingOptions = JSONParsingOptions()) throws(HotPotatoError) {
        try self.init(parsing: Data(text.utf8), options: options)
    }

    /// A document from a tape the parser recorded for `bytes`.
    ///
    /// - Throws: ``HotPotatoError/Code/invalidJSON`` for a repeated key under
    ///   ``JSONParsingOptions/DuplicateKeyPolicy/reject``: the tape only notes the objects whose
    ///   keys may repeat, and those are checked now, so that no lookup can fail later.
    init(tape: JSONTape, bytes: Data, duplicateKeys: JSONParsingOptions.DuplicateKeyPolicy) throws(HotPotatoError) {
        let storage = Storage(bytes: bytes, tape: tape, policy: duplicateKeys == .useFirst ? .useFirst : .useLast)
        let entries = tape.entries
        if duplicateKeys == .reject, entries.contains(where: { $0.flags & JSONTapeEntry.mayRepeatKeys != 0 && $0.kind == .object }) {
            do {
                try storage.read(duplicateKeys: .reject) { decoder in
                    for position in entries.indices
                    where entries[position].kind == .object && entries[position].flags & JSONTapeEntry.mayRepeatKeys != 0 {
                        _ = try decoder.members(of: position)
                    }
                }
            } catch let error as HotPotatoError {
                var failure = error
                failure.intermediate = .bytes(bytes)
                throw failure
            } catch {
                var failure = HotPotatoError(.invalidJSON, reason: "\(error)")
                failure.intermediate = .bytes(bytes)
                throw failure
            }
        }
        self.init(storage: storage, index: 0)
    }

    /// This value's tape entry.
    var entry: JSONTapeEntry { storage.tape[index] }

    /// The value as a ``JSON`` tree: every string and number made, every container built.
    public var json: JSON {
        // Repeated keys were checked when the document was made, so this cannot throw.
        (try? storage.read { try $0.materialize(index) }) ?? .null
    }

    /// Decodes a `Decodable` type from this value (or from the value at `keyPath`) straight from
    /// the document's bytes, with the strategies, special types and errors of
    /// ``JSON/decode(_:atKeyPath:using:)``.
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
        var target = self
        if let keyPath {
            guard let found = self[keyPath] else {
                throw HotPotatoError.keyPathNotFound(keyPath)
            }
            target = found
        }
        return try storage.read(strategies: JSONDecodingStrategies(decoder)) { tapeDecoder in
            try tapeDecoder.decode(type, at: target.index)
        }
    }
}

extension JSONDocument: CustomStringConvertible {
    /// The value serialised as compact JSON, members in order.
    public var description: String {
        json.description
    }
}
