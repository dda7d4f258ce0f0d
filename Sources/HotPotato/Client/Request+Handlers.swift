import Foundation

extension Request {
    /// Collects the body as `Data`, up to `maximumBodySize` bytes (64 MiB by default). This is
    /// what a new request does unless the chain says otherwise.
    public func asData(maximumBodySize: Int64 = HandlerDefaults.maximumBodySize) -> Request<Accumulator<Data>> {
        replacingHandler { Accumulator(maximumBodySize: maximumBodySize) }
    }

    /// Decodes the body as text: with `encoding` when given, else by the response's charset, a
    /// byte-order mark, or UTF-8. See ``StringConverter``.
    public func asString(encoding: String.Encoding? = nil, maximumBodySize: Int64 = HandlerDefaults.maximumBodySize) -> Request<StringConverter<String>> {
        replacingHandler { StringConverter(encoding: encoding, maximumBodySize: maximumBodySize) }
    }

    /// Parses the body as JSON into a ``JSON`` value (at `keyPath`, when given). Accepts
    /// `application/json` and `application/*+json` by default. See ``JSONParser``.
    ///
    /// `parsingOptions` sets the nesting limit and the duplicate-key policy.
    public func asJSON(
        atKeyPath keyPath: String? = nil,
        emptyBodyPolicy: EmptyBodyPolicy = .fail,
        parsingOptions: JSONParsingOptions = JSONParsingOptions(),
        maximumBodySize: Int64 = HandlerDefaults.maximumBodySize
    ) -> Request<JSONParser<JSON>> {
        replacingHandler {
            JSONParser(
                atKeyPath: keyPath, emptyBodyPolicy: emptyBodyPolicy, parsingOptions: parsingOptions,
                maximumBodySize: maximumBodySize)
        }
    }

    /// Parses the body as JSON into a ``JSONDocument`` (the value at `keyPath`, when given): the
    /// same strict parser as ``asJSON(atKeyPath:emptyBodyPolicy:parsingOptions:maximumBodySize:)``,
    /// but the document is kept as the body's bytes and an index of its tokens, and strings and
    /// numbers are made only when read — the fastest way to parse a large body, and the leanest
    /// to hold.
    ///
    /// ```swift
    /// let document = try await session.get(url).asJSONDocument().content
    /// let names = document["users"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
    /// ```
    ///
    /// Documents are addressed with 32-bit offsets. With a `maximumBodySize` above 4 GiB less one
    /// byte, a body that does not declare a smaller `Content-Length` (or is content-encoded) is
    /// parsed into a ``JSON`` tree first.
    public func asJSONDocument(
        atKeyPath keyPath: String? = nil,
        emptyBodyPolicy: EmptyBodyPolicy = .fail,
        parsingOptions: JSONParsingOptions = JSONParsingOptions(),
        maximumBodySize: Int64 = HandlerDefaults.maximumBodySize
    ) -> Request<JSONParser<JSONDocument>> {
        replacingHandler {
            JSONParser<JSONDocument>(
                atKeyPath: keyPath, emptyBodyPolicy: emptyBodyPolicy, parsingOptions: parsingOptions,
                maximumBodySize: maximumBodySize)
        }
    }

    /// Decodes the JSON body (or the value at `keyPath`) into `type` with `decoder`.
    ///
    /// ```swift
    /// let user = try await session.get(url).as(User.self, atKeyPath: "data").content
    /// ```
    ///
    /// The body is parsed by HotPotato's own parser as it arrives and decoded straight from its
    /// bytes; the decoder's strategies and `userInfo` are honoured as `JSONDecoder` honours them.
    /// `parsingOptions` sets the nesting limit and the duplicate-key policy.
    public func `as`<Value: Decodable & Sendable>(
        _ type: Value.Type,
        atKeyPath keyPath: String? = nil,
        using decoder: JSONDecoder = JSONDecoder(),
        emptyBodyPolicy: EmptyBodyPolicy = .fail,
        parsingOptions: JSONParsingOptions = JSONParsingOptions(),
        maximumBodySize: Int64 = HandlerDefaults.maximumBodySize
    ) -> Request<JSONParser<Value>> {
        replacingHandler {
            JSONParser(
                decoding: type, atKeyPath: keyPath, using: decoder, emptyBodyPolicy: emptyBodyPolicy,
                parsingOptions: parsingOptions, maximumBodySize: maximumBodySize)
        }
    }

    /// Streams the body to a file, placed at `destination` only when complete. See ``FileWriter``.
    /// The content is the file's URL.
    ///
    /// With `resumable: true`, an interrupted download (a failure, a cancellation, a crash) is
    /// kept beside the destination, and the next resumable download to the same destination from
    /// the same URL continues it with `Range` and `If-Range` when the server allows, or starts
    /// over when the resource changed:
    ///
    /// ```swift
    /// let file = try await session.get(isoURL).downloadToFile(at: destination, resumable: true).content
    /// ```
    ///
    /// - Parameters:
    ///   - destination: The file URL to place the download at.
    ///   - existingFilePolicy: What to do when a file is already there; default
    ///     ``ExistingFilePolicy/fail``.
    ///   - createsIntermediateDirectories: Whether to create missing directories; default `false`.
    ///   - resumable: Whether to keep an interrupted download and continue it next time.
    ///   - maximumBodySize: The largest file accepted, in bytes; default no limit.
    ///   - checksum: The digest the file must have to be placed (``Checksum``, computed while the
    ///     body is written); a mismatch fails with ``HotPotatoError/Code/checksumMismatch`` and
    ///     leaves nothing behind. Default none.
    ///   - onlyIfChanged: When a file is already at `destination`, ask for the resource only if it
    ///     changed (`If-None-Match` with the `ETag` saved with the file, else `If-Modified-Since`), and
    ///     replace the file only then: a `304` leaves it as it is. Default `false`. See
    ///     ``FileWriter``'s "Only if changed".
    ///   - keepsRemoteTime: Set the placed file's modification time from `Last-Modified`. Default
    ///     `false`.
    ///   - connections: The most connections to fetch the file over at once. With more than one,
    ///     the file is asked for as a range; when the server answers `206` with a strong `ETag`
    ///     and the file is large enough (at least 2 MiB), its parts are fetched in parallel, each
    ///     with `If-Range`, and written at their offsets. Otherwise one connection fetches it.
    ///     Default `1`. See ``FileWriter``'s "Several connections".
    ///   - mirrors: Other URLs of the same file: parts of it are fetched from them too (with at
    ///     least one connection for each URL). Default none. See ``FileWriter``'s "Mirrors".
    public func downloadToFile(
        at destination: URL,
        existingFilePolicy: ExistingFilePolicy = .fail,
        createsIntermediateDirectories: Bool = false,
        resumable: Bool = false,
        maximumBodySize: Int64 = .max,
        checksum: Checksum? = nil,
        onlyIfChanged: Bool = false,
        keepsRemoteTime: Bool = false,
        connections: Int = 1, mirrors: [URL] = []
    ) -> Request<FileWriter> {
        replacingHandler {
            FileWriter(
                destination: destination, existingFilePolicy: existingFilePolicy,
                createsIntermediateDirectories: createsIntermediateDirectories, resumable: resumable,
                maximumBodySize: maximumBodySize, checksum: checksum, onlyIfChanged: onlyIfChanged,
                keepsRemoteTime: keepsRemoteTime, connections: connections, mirrors: mirrors)
        }
    }

    /// Writes each chunk of the body to `stream` as it arrives. See ``StreamWriter``. The content
    /// is the number of bytes written.
    ///
    /// The stream is used by every run of this request; give each run a stream of its own.
    public func downloadToStream(_ stream: OutputStream) -> Request<StreamWriter> {
        let box = UncheckedSendable(stream)
        return replacingHandler { StreamWriter(stream: box.value) }
    }

    /// Writes each chunk of the body to `fileHandle` at its current offset. The content is the
    /// number of bytes written.
    public func downloadToStream(_ fileHandle: FileHandle) -> Request<StreamWriter> {
        replacingHandler { StreamWriter(fileHandle: fileHandle) }
    }

    /// Checks the response and throws its body away. The content is `Void`.
    public func discardResponseContent() -> Request<SelectiveDiscarder<Void>> {
        replacingHandler { SelectiveDiscarder() }
    }

    /// Hands the body to a handler of your own, made afresh for each run.
    ///
    /// ```swift
    /// let lines = try await session.get(url).handled(by: LineCounter()).content
    /// ```
    public func handled<Other: ContentHandler>(by makeHandler: @escaping @autoclosure @Sendable () -> Other) -> Request<Other> {
        replacingHandler(makeHandler)
    }
}
