import Foundation

/// Collects the body and parses it as JSON, into a ``JSON`` value or a `Decodable` type.
///
/// - `JSONParser()` produces a ``JSON`` value.
/// - `JSONParser<JSONDocument>()` produces a ``JSONDocument``: the body checked as strictly, but
///   kept as its bytes and a compact index of its tokens rather than built into a tree — the
///   fastest to parse and the leanest to hold.
/// - `JSONParser(decoding: User.self, atKeyPath: "data", using: decoder)` decodes a `User`
///   from the value at the key path, with your `JSONDecoder` and its strategies.
///
/// The body is parsed **as it arrives**, chunk by chunk, by HotPotato's own strict RFC 8259
/// parser, so the value is ready right after the last byte and a malformed body stops the
/// transfer at the first bad byte. Numbers keep their exact digits; nesting is limited
/// (``JSONParsingOptions/maximumDepth``, 512 by default); repeated keys follow
/// ``JSONParsingOptions/duplicateKeys`` (the last value wins by default). The document may be
/// as large as ``SelectiveDiscarder/maximumBodySize`` (64 MiB by default); the raw bytes are kept
/// alongside, so that a failure can hand them back. The objects of a ``JSON`` value read through
/// those bytes until they are changed (see ``JSON/Object``), when the first chunk has a `{` and the
/// body is known to be below 4 GiB.
///
/// The body is read as UTF-8 (RFC 8259), with a UTF-8 byte-order mark ignored. A body whose
/// `charset` or byte-order mark says UTF-16 or UTF-32 (or another known charset) is decoded to
/// text once complete, then parsed; a failure then carries that text in
/// ``HotPotatoError/intermediate``, otherwise the raw bytes received so far.
///
/// Errors: ``HotPotatoError/Code/invalidJSON`` (with the byte offset, line and column),
/// ``HotPotatoError/Code/keyPathNotFound``,
/// ``HotPotatoError/Code/decodingFailed`` (with the `DecodingError` as
/// ``HotPotatoError/underlying``), ``HotPotatoError/Code/emptyBody`` — each with the intermediate
/// data.
///
/// Gating defaults: ``ResponseGate/json`` — status `200...299`; content types `application/json`
/// and `application/*+json` (so `application/problem+json` counts); at most 64 MiB. An empty body
/// follows ``emptyBodyPolicy``; a response with no body by definition (`204`, `HEAD`) reads as
/// `null`.
///
/// A `Decodable` type is decoded straight from the parsed value, honouring the strategies of the
/// `JSONDecoder` you give (keys, dates, data, non-conforming floats) and throwing the same
/// `DecodingError`s, without serialising the value again.
///
/// ## Subclassing
///
/// Subclass with a domain type and override ``content(from:)-(JSON)``:
///
/// ```swift
/// final class UserParser: JSONParser<User> {
///     override func content(from json: JSON) throws -> User {
///         guard let name = json["name"]?.stringValue else {
///             throw HotPotatoError(.conversionFailed, reason: "No name.", head: head)
///         }
///         return User(name: name)
///     }
/// }
/// ```
open class JSONParser<Content>: Accumulator<Content> {
    /// What an empty body on a response that should have one reads as.
    public let emptyBodyPolicy: EmptyBodyPolicy
    /// The key path the content is taken from (`"data.user"`), or `nil` for the whole document.
    public let keyPath: String?
    /// The parser's limits and policies.
    public let parsingOptions: JSONParsingOptions
    let decoding: DecodableMapping<Content>?
    /// The incremental parser, while the body is UTF-8; `nil` for other charsets.
    var parser: IncrementalJSONParser?
    /// Whether ``parser`` is there (it cannot be compared with `nil`, being non-copyable).
    var isParsing = false
    /// Whether the parser records a tape (to decode, make a ``JSONDocument`` from, or make a
    /// ``JSON`` tree whose objects read through the body) rather than a ``JSON`` value.
    private(set) var recordsTape = false
    /// Whether the first chunk decides between a tape (a body with a `{` in its first chunk,
    /// whose ``JSON`` tree then reads its objects through the body) and a tree built as the body
    /// arrives (a body of arrays and scalars, which a tape would only slow down).
    private var choosesTapeAtFirstChunk = false
    /// The first bytes, held back until a byte-order mark can be told apart.
    var leadingBytes: [UInt8] = []

    // Disfavoured, so that a bare `JSONParser()` means `JSONParser<JSON>` (the convenience
    // initialiser below) in every expression; labelled `accepting:` so that a subclass keeping
    // the ``JSON`` content can call it (see ``SelectiveDiscarder``).
    /// Creates a parser whose content comes from ``content(from:)-(JSON)``: the designated
    /// initialiser, for subclasses.
    /// - Parameters:
    ///   - keyPath: The key path to take the content from; `nil` (the default) takes the whole
    ///     document.
    ///   - emptyBodyPolicy: What an empty body reads as; default ``EmptyBodyPolicy/fail``.
    ///   - parsingOptions: Nesting limit and duplicate-key policy.
    ///   - gate: The statuses and content types to accept. Default ``ResponseGate/json``.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default 64 MiB.
    @_disfavoredOverload
    public init(
        atKeyPath keyPath: String? = nil,
        emptyBodyPolicy: EmptyBodyPolicy = .fail,
        parsingOptions: JSONParsingOptions = JSONParsingOptions(),
        accepting gate: ResponseGate = .json,
        maximumBodySize: Int64 = HandlerDefaults.maximumBodySize
    ) {
        self.keyPath = keyPath
        self.emptyBodyPolicy = emptyBodyPolicy
        self.parsingOptions = parsingOptions
        self.decoding = nil
        super.init(accepting: gate, maximumBodySize: maximumBodySize)
    }

    /// Creates a parser that decodes `type` from the JSON (at `keyPath`, when given) with your
    /// decoder — Moya's `map(_:atKeyPath:using:failsOnEmptyData:)`.
    ///
    /// An empty body reads as `null` under ``EmptyBodyPolicy/null`` (and on `204` or `HEAD`),
    /// which decodes into an `Optional` type. A subclass of, say, `JSONParser<[User]>` inherits
    /// this initializer.
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - keyPath: The key path to decode from; `nil` (the default) decodes the whole document.
    ///   - decoder: The decoder to use, with its strategies; default `JSONDecoder()`.
    ///   - emptyBodyPolicy: What an empty body reads as; default ``EmptyBodyPolicy/fail``.
    ///   - parsingOptions: Nesting limit and duplicate-key policy.
    ///   - gate: The statuses and content types to accept. Default ``ResponseGate/json``.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default 64 MiB.
    public init(
        decoding type: Content.Type,
        atKeyPath keyPath: String? = nil,
        using decoder: JSONDecoder = JSONDecoder(),
        emptyBodyPolicy: EmptyBodyPolicy = .fail,
        parsingOptions: JSONParsingOptions = JSONParsingOptions(),
        gate: ResponseGate = .json,
        maximumBodySize: Int64 = HandlerDefaults.maximumBodySize
    ) where Content: Decodable {
        self.keyPath = keyPath
        self.emptyBodyPolicy = emptyBodyPolicy
        self.parsingOptions = parsingOptions
        self.decoding = DecodableMapping(type, decoder: decoder)
        super.init(accepting: gate, maximumBodySize: maximumBodySize)
    }


    /// Whether ``receive(_:)`` may be lent chunks an engine still owns: `true` for a `JSONParser`
    /// itself, which copies what it keeps of every chunk (see ``ChunkBorrowing``).
    open override var receivesBorrowedChunks: Bool { type(of: self) == JSONParser<Content>.self }

    /// Gates the response and, for a UTF-8 body, starts the incremental parser.
    open override func prepare(for head: ResponseHead) throws {
        try super.prepare(for: head)
        let charset = head.contentType?.charset
        if charset == nil || TextEncodings.encoding(forCharset: charset!) == .utf8 {
            // A `Decodable` type is decoded from the body's bytes through a tape, which needs no
            // value made of the document and addresses bodies below 4 GiB: the body is known to be
            // that small when the limit says so, or when an unencoded body declares its length.
            let declared = head.declaredBodyLength
            let small = maximumBodySize <= Int64(UInt32.max) || declared.map { $0 <= Int64(UInt32.max) } == true
            // A `JSON` tree is made from a tape too (its objects read through the body), unless
            // the first chunk has no `{` (see ``receive(_:)``).
            let tape = small
            recordsTape = tape
            choosesTapeAtFirstChunk = tape && decoding == nil && !makesDocument
            parser = IncrementalJSONParser(mode: tape ? .tape : .document, options: parsingOptions)
            if let length = head.contentLength, length <= maximumBodySize, length <= Int64(UInt32.max) {
                parser?.reserveTape(forDocumentOf: Int(length))
            }
            isParsing = true
        }
    }

    /// Keeps the chunk (see ``Accumulator``) and parses it; throws
    /// ``HotPotatoError/Code/invalidJSON`` at the first byte that is not JSON.
    open override func receive(_ chunk: Data) throws {
        try super.receive(chunk)
        guard isParsing else { return }
        if choosesTapeAtFirstChunk, !chunk.isEmpty {
            choosesTapeAtFirstChunk = false
            let hasBrace = chunk.withUnsafeBytes { memchr($0.baseAddress!, Int32(UInt8(ascii: "{")), $0.count) != nil }
            if !hasBrace {
                parser = IncrementalJSONParser(mode: .document, options: parsingOptions)
                recordsTape = false
            }
        }
        if leadingBytesPending {
            try feedLeading(chunk)
        } else {
            try feed(chunk)
        }
    }

    /// Parses the body, selects the value at ``keyPath``, and converts it: with the `Decodable`
    /// mapping when the parser was made with one (straight from the body's bytes), otherwise with
    /// ``content(from:)-(JSON)``.
    open override func content(from body: Data) throws -> Content {
        if let decoding, let tape = try finishTape(body) {
            return try decodingFailures(body) {
                try decoding.decodeTape(tape, body, keyPath, parsingOptions.duplicateKeys)
            }
        }
        if makesDocument, let tape = try finishTape(body) {
            return try document(tape: tape, body: body) as! Content
        }
        let document: JSON
        if decoding == nil, let tape = try finishTape(body) {
            do {
                document = try JSONBackend.tree(tape: tape, bytes: body, options: parsingOptions)
            } catch {
                throw invalidJSON(error, intermediate: .bytes(body))
            }
        } else {
            document = try finishDocument(body)
        }
        var value = document
        if let keyPath {
            guard let found = document[keyPath] else {
                throw HotPotatoError.keyPathNotFound(keyPath, head: head)
            }
            value = found
        }
        guard let decoding else { return try content(from: value) }
        return try decodingFailures(body) { try decoding.decodeValue(value) }
    }

    /// `JSONParser<JSONDocument>`: the body is recorded on a tape and kept as the document.
    var makesDocument: Bool { decoding == nil && Content.self == JSONDocument.self }

    /// The document of a body and its tape, or the value in it at ``keyPath``.
    func document(tape: JSONTape, body: Data) throws -> JSONDocument {
        let document: JSONDocument
        do {
            document = try JSONDocument(tape: tape, bytes: body, duplicateKeys: parsingOptions.duplicateKeys)
        } catch {
            var failure = error
            failure.head = head
            throw failure
        }
        guard let keyPath else { return document }
        guard let found = document[keyPath] else {
            throw HotPotatoError.keyPathNotFound(keyPath, head: head)
        }
        return found
    }

    /// Runs a decoding, turning its failures into ``HotPotatoError``s with the response head.
    private func decodingFailures(_ body: Data, _ decode: () throws -> Content) throws -> Content {
        do {
            return try decode()
        } catch let error as DecodingError {
            throw HotPotatoError.conversion(
                .decodingFailed,
                "Decoding \(Content.self) from the JSON"
                    + (keyPath.map { " at \"\($0)\"" } ?? "") + " failed: \(DecodingErrorText.describe(error))",
                intermediate: nil, keyPath: keyPath, head: head, underlying: error)
        } catch var error as HotPotatoError {
            error.head = error.head ?? head
            if error.code == .keyPathNotFound {
                error.keyPath = keyPath
            } else if error.code == .invalidJSON {
                error.intermediate = error.intermediate ?? .bytes(body)
            }
            throw error
        }
    }

    /// Produces the content from the parsed JSON (the value at ``keyPath``, when set).
    /// `JSONParser<JSON>` returns the value; a subclass with another `Content` type overrides
    /// this.
    open func content(from json: JSON) throws -> Content {
        if let value = json as? Content { return value }
        if Content.self == JSONDocument.self {
            // A body parsed as a whole (another charset, an empty body read as null): the
            // document of the value, written out as UTF-8.
            return try JSONDocument(parsing: Data(json.serialized().utf8), options: parsingOptions) as! Content
        }
        throw HotPotatoError(
            .handlerFailed,
            reason: "\(type(of: self)) must override content(from:) to produce \(Content.self).",
            head: head)
    }

    /// Releases the parser along with the collected bytes.
    open override func cleanUp() {
        super.cleanUp()
        parser = nil
        finishedTape = nil
        isParsing = false
        leadingBytes = []
    }

    /// Whether the first bytes are still held back (fewer than three have arrived).
    var leadingBytesPending = true
    /// The tape ``finishTape(_:)`` took from the parser.
    var finishedTape: JSONTape?

}

extension JSONParser where Content == JSON {
    /// Creates a parser whose content is the ``JSON`` value (at `keyPath`, when given).
    /// - Parameters:
    ///   - keyPath: The key path to take the value from; `nil` (the default) takes the whole
    ///     document.
    ///   - emptyBodyPolicy: What an empty body reads as; default ``EmptyBodyPolicy/fail``.
    ///   - parsingOptions: Nesting limit and duplicate-key policy.
    ///   - gate: The statuses and content types to accept. Default ``ResponseGate/json``.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default 64 MiB.
    public convenience init(
        atKeyPath keyPath: String? = nil,
        emptyBodyPolicy: EmptyBodyPolicy = .fail,
        parsingOptions: JSONParsingOptions = JSONParsingOptions(),
        gate: ResponseGate = .json,
        maximumBodySize: Int64 = HandlerDefaults.maximumBodySize
    ) {
        self.init(
            atKeyPath: keyPath, emptyBodyPolicy: emptyBodyPolicy, parsingOptions: parsingOptions,
            accepting: gate, maximumBodySize: maximumBodySize)
    }
}

extension JSONParser where Content == JSONDocument {
    // Disfavoured, so that a bare `JSONParser()` means `JSONParser<JSON>`; spelled
    // `JSONParser<JSONDocument>(…)`, it is the only one that applies.
    /// Creates a parser whose content is the ``JSONDocument`` of the body (or of the value at
    /// `keyPath`, when given).
    /// - Parameters:
    ///   - keyPath: The key path to take the value from; `nil` (the default) takes the whole
    ///     document.
    ///   - emptyBodyPolicy: What an empty body reads as; default ``EmptyBodyPolicy/fail``.
    ///   - parsingOptions: Nesting limit and duplicate-key policy.
    ///   - gate: The statuses and content types to accept. Default ``ResponseGate/json``.
    ///   - maximumBodySize: The largest body accepted, in bytes. Default 64 MiB.
    @_disfavoredOverload
    public convenience init(
        atKeyPath keyPath: String? = nil,
        emptyBodyPolicy: EmptyBodyPolicy = .fail, parsingOptions: JSONParsingOptions = JSONParsingOptions(),
        gate: ResponseGate = .json,
        maximumBodySize: Int64 = HandlerDefaults.maximumBodySize
    ) {
        self.init(
            atKeyPath: keyPath, emptyBodyPolicy: emptyBodyPolicy, parsingOptions: parsingOptions,
            accepting: gate, maximumBodySize: maximumBodySize)
    }
}
