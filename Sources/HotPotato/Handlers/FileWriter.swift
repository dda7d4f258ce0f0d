import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Streams the body to a file in constant memory and places it at its destination only when the
/// whole body has arrived. Its content is the file's URL.
///
/// How a download reaches the disk:
/// 1. Once the response is accepted, the body goes to a file private to this download in the
///    destination's directory: on Linux an anonymous file (`O_TMPFILE`), which has no name until
///    it is placed, so that even a crash or `SIGKILL` leaves nothing behind; elsewhere (or on a
///    file system without anonymous files) `.<name>.hotpotato-<random>.part`, created
///    exclusively, never through a symbolic link, and locked while it is written, so that a later
///    download to the same place can remove one a crash left behind. Either way with permissions
///    0600, so nobody else reads a half-written file.
/// 2. Each chunk is written to it as it arrives.
/// 3. When the body is complete, the file gets the usual permissions (0666 less the umask) and is
///    placed atomically: with ``ExistingFilePolicy/fail`` (the default) only if nothing exists
///    at the destination, with ``ExistingFilePolicy/replace`` over whatever is there.
///
/// On any failure — a rejected response, a write error, a truncated body, a cancellation — the
/// temporary file is removed and a file already at the destination is left untouched. A rejected
/// response creates nothing at all.
///
/// A `206 Partial Content` is placed only when it is provably the whole file: the continuation a
/// resumable download asked for (below), or the part the caller asked for with a `Range` header
/// of their own. An unsolicited `206` fails with ``HotPotatoError/Code/malformedResponse``.
/// (Driven without a request — ``ResponseDriver`` directly — a `206` is placed only when its
/// `Content-Range` spans the whole resource.)
///
/// Errors: ``HotPotatoError/Code/destinationExists`` (checked before the request is sent — by
/// ``adapt(_:)``, which a ``Session`` calls — at the head, before any byte is downloaded, and
/// again when placing), ``HotPotatoError/Code/fileSystemError`` (a missing
/// directory, a destination that is a directory or not a regular file — a device such as
/// `/dev/null`, a FIFO — which placing would replace, a temporary file that cannot be created),
/// ``HotPotatoError/Code/writeFailed`` (no space, I/O error), each with ``HotPotatoError/path``;
/// ``HotPotatoError/Code/malformedResponse``, ``HotPotatoError/Code/resumeMismatch`` and
/// ``HotPotatoError/Code/destinationBusy`` as described here.
///
/// Gating defaults: ``ResponseGate/successful``; no size limit. A response with no body produces an
/// empty file.
///
/// ## Only if changed
///
/// With `onlyIfChanged: true` (potato's `--only-if-changed`, as wget's `-N` and curl's
/// `--etag-compare`/`-z`), when a file is already at the destination the request asks for the
/// resource only if it changed: `If-None-Match` with the `ETag` saved with the file when it was
/// placed (in its extended attribute `user.hotpotato.etag`, where the file system keeps them: no
/// file beside it), or, without one, `If-Modified-Since` with its modification time. A `304 Not Modified`
/// leaves the file exactly as it was (``wasNotModified``; the response's status says `304`); any
/// other accepted answer replaces it atomically, whatever the ``existingFilePolicy``. With
/// `keepsRemoteTime: true` (`--remote-time`) the placed file's modification time is the
/// response's `Last-Modified`, which makes the next `If-Modified-Since` exact.
///
/// ## Several connections
///
/// With `connections: N` above 1 (potato's `--connections N`), run by a ``Session``, the file is
/// asked for as the range `bytes=0-`. When the first response is a `206` of the whole file with a
/// strong `ETag`, no content coding, and at least 2 MiB to fetch, the file is split: this
/// response fetches the first part, and up to N − 1 other requests (the same `GET`, with its
/// headers, credentials, cookies and interceptors) each ask for one part with `Range` and
/// `If-Range`, and write it at its offset in the same temporary file. Each is a connection of its
/// own: on the libcurl engine it asks for HTTP/1.1 even where the first request went over HTTP/2,
/// whose streams would share one connection's window and cap. A connection that finishes
/// takes half of the slowest one's rest, so the tail does not wait on one slow connection. The
/// call completes, and the file is placed, only once every byte is on disk; progress counts the
/// whole file; each connection writes from a 256 KiB buffer, so memory stays bounded whatever the
/// file's size, and a slow disk slows every connection. The ``Response`` is the first one's (a
/// `206` whose `Content-Range` spans the file); the gate takes it as the `200` it stands for, so a
/// gate of `[200]` still accepts it.
///
/// - A `200` to the first request (a server without ranges), a weak or missing `ETag`, or a
///   small file: one connection fetches it, as without `connections`.
/// - A part answered `200` with the same `ETag` (a server that serves ranges only sometimes): no
///   further connections; the first one, whose response runs to the end, fetches the rest.
/// - A part answered with another `ETag` (or `412`): the resource changed. Everything downloaded
///   is discarded (a resumable partial too: no file of two versions is ever placed) and the
///   request starts over, at most twice — the call's ``Response`` is then the new run's; a
///   resource that changes a third time fails with ``HotPotatoError/Code/resumeMismatch``.
/// - A part answered `429` or `503` (a server's cap on connections per client, as nginx's
///   `limit_conn`) goes back to the connections running, and no more are opened than those.
/// - A connection that fails (a reset, a timeout, another `5xx`) gives its part back and another
///   request takes it over, after a short pause; more than 3 + 2 × N such failures fail the
///   download with the last one.
/// - With `resumable: true`, the record beside the partial file lists the ranges on disk
///   (`"length"` and `"done"`, saved every 8 MiB or half a second, and at the end): after a
///   failure, a cancel, a crash or `kill -9`, the next download asks only for the missing ranges
///   (`Range: bytes=<first missing>-` with `If-Range`, then a request per missing part). When
///   the file changed meanwhile, the `200` of the new version starts the partial file over, and
///   the new version is split as a new download is (when the server says `Accept-Ranges: bytes`).
/// - With ``checksum``, the digest follows the part of the file written without a gap, and
///   finishes the rest once every part is there.
/// - A call's own ``Request/limitRate(_:)`` is the whole download's: its connections share it
///   evenly (as does a session's ``Session/Configuration/receiveRateLimit`` every transfer's).
///
/// ## Mirrors
///
/// With `mirrors:` (potato's `--mirror URL`, repeatable), the parts of a download over several
/// connections are spread over the request's URL and the mirrors, each connection asking the
/// source with the fewest running; the first request still goes to the request's own URL, whose
/// answer sets the file's size. A mirror's first answer pins its strong `ETag` (mirrors rarely
/// share one), and every later part from it must carry it (`If-Range`). A mirror is dropped, and
/// its parts go to the others, when it answers what does not fit — another size, a `200` (no
/// ranges), another version, an error status, no strong `ETag` — when two of its connections
/// fail, or when it runs at under a tenth of the fastest source's rate. The download fails only
/// when no source can serve what is missing; its error names the mirrors dropped and why. A
/// mirror of another origin gets no `Authorization`, `Proxy-Authorization` or `Cookie` header of
/// the request's, and none of its own interceptors (the session's still apply). Mirrors agree on
/// the size by construction and on the version only through their own validators: give a
/// ``checksum`` with mirrors, and the whole file is verified before it is placed.
///
/// ## Resumable downloads
///
/// With `resumable: true`, the body goes to a partial file at a fixed place beside the
/// destination (``partialFileURL``), recorded with the URL and the response's validator (a strong
/// `ETag`, else `Last-Modified`); a failure, a cancellation, a crash or Ctrl-C leaves it there.
/// The next resumable download to the same destination from the same URL asks for the rest
/// (`Range: bytes=N-` with `If-Range: <validator>`, and `Accept-Encoding: identity` so that
/// offsets count the bytes as stored) and:
/// - appends only when the server answers `206` with exactly `Content-Range:
///   bytes N-<total − 1>/<total>`, the same validator and no content coding; the file is placed
///   only if exactly the range's bytes arrived and it then holds `total` bytes;
/// - starts over cleanly on `200` (the resource changed, or the server ignores ranges);
/// - completes at once on `416` with `Content-Range: bytes */N`, N the partial file's size (the
///   partial file already holds the whole body), and no other validator than the recorded one —
///   unless the caller made `416` an acceptable
///   status, in which case the `416` is handled as any accepted response and the partial file is
///   not placed;
/// - otherwise (another range or validator, a content-coded `206`, any other `416`) fails with
///   ``HotPotatoError/Code/resumeMismatch`` and discards the partial state, so that trying again
///   starts over; more bytes than the range announced fail with
///   ``HotPotatoError/Code/malformedResponse`` and discard it too.
///
/// One download at a time owns a partial file: it holds an exclusive lock on it (`flock`) from
/// the moment the request is made to the end. A second resumable download to the same
/// destination, in this process or another, fails at once with
/// ``HotPotatoError/Code/destinationBusy`` and changes nothing. A partial file or record that is
/// not a regular file of the current user's with a single link (planted in a shared directory,
/// a symbolic or hard link) is never trusted: it is removed and the download starts over; if it
/// cannot be removed, the download runs without keeping a partial file.
///
/// A content-coded response (`Content-Encoding: gzip` …) is recorded without a validator, so
/// that it is never continued: URLSession hands over decoded bytes whose offsets are not the
/// ones a `Range` counts. A rejected response (a `404`, a `503` …) leaves the partial state as it
/// was. Without a validator, a download can still be interrupted and kept, but not continued:
/// the next attempt starts over. When the request already has a `Range` header, or is not a
/// `GET`, the writer does not resume.
open class FileWriter: SelectiveDiscarder<URL>, RequestAdapting {
    /// Where the file is placed.
    public let destination: URL
    /// What happens when a file already exists at ``destination``.
    public let existingFilePolicy: ExistingFilePolicy
    /// Whether missing directories on the way to ``destination`` are created.
    public let createsIntermediateDirectories: Bool
    /// The number of body bytes written so far.
    public internal(set) var bytesWritten: Int64 = 0
    /// The named file being written, while there is one: the partial file of a resumable
    /// download, or a `.part` file where anonymous files are not available; `nil` while the body
    /// goes to an anonymous file.
    public internal(set) var temporaryURL: URL?
    /// Whether an interrupted download is kept in ``partialFileURL`` to be continued (see
    /// "Resumable downloads" above).
    public let isResumable: Bool
    /// For a resumable download, the body offset at which this response continued the partial
    /// file; `0` when it started from the beginning.
    public internal(set) var resumedFrom: Int64 = 0
    /// Where a resumable download to ``destination`` keeps its partial file.
    public var partialFileURL: URL { Self.partialFileURL(for: destination) }
    /// The digest the file must have to be placed (see ``Checksum``); `nil` for none.
    public let checksum: Checksum?
    /// Whether a file already at ``destination`` is downloaded again only if it changed on the
    /// server (see "Only if changed" above).
    public let onlyIfChanged: Bool
    /// Whether the placed file's modification time is set from the response's `Last-Modified`.
    public let keepsRemoteTime: Bool
    /// Whether the response was the `304` of a conditional request: the file at ``destination``
    /// is current, and was left as it was.
    public internal(set) var wasNotModified = false
    /// The most connections the file is fetched over at once (see "Several connections" above);
    /// `1` for one.
    public let connections: Int
    /// Other URLs of the same file, which parts may be fetched from (see "Mirrors" above).
    public let mirrors: [URL]

    /// Where a resumable download to `destination` keeps its partial file
    /// (`.<name>.hotpotato-partial` in the same directory, with its record beside it in
    /// `.<name>.hotpotato-partial.json`; a name too long for these suffixes is shortened, with a
    /// hash of the whole name).
    public static func partialFileURL(for destination: URL) -> URL {
        PartialDownload(destination: destination.standardizedFileURL).dataURL
    }

    /// How many bytes of the body a resumable download to `destination` has kept to continue
    /// from (the partial file's size, or, for one written over several connections, the ranges
    /// its record lists); `nil` when there is none.
    public static func keptBytes(for destination: URL) -> Int64? {
        let partial = PartialDownload(destination: destination.standardizedFileURL)
        guard let size = partial.dataSize() else { return nil }
        guard let info = partial.loadInfo(), info.length != nil else { return size }
        return info.doneRanges?.reduce(0) { $0 + Int64($1.count) } ?? 0
    }

    /// What the request asked for, as ``adapt(_:)`` saw it.
    enum RequestedRange {
        /// No `Range`: the whole resource.
        case whole
        /// The caller's own `Range` header.
        case callersOwn
        /// The rest of the partial file, from this offset.
        case rest(from: Int64, info: PartialDownload.Info)
    }

    /// Where the body is being written.
    enum Output {
        case partial
        case anonymous
        case named(URL)
    }

    /// `nil` until ``adapt(_:)`` runs (never, when driven without a request).
    var requested: RequestedRange?
    /// Whether this download keeps a partial file (resumable, a `GET` without a `Range` of the
    /// caller's, and the partial file's name usable).
    var wantsPartial: Bool
    /// The locked partial file, while this download holds it.
    var lease: PartialLease?
    /// The URL of the request, recorded with the partial file: without its credentials (see
    /// ``Redaction``), which are no part of what the resource is and never go to disk.
    var requestURL: String?
    /// A `416` answered a resumed request whose partial file already holds the whole body.
    var partialIsComplete = false
    /// The partial state is not to be trusted any more: discard it on clean-up.
    var discardsPartial = false
    /// For a `206`: the bytes the range holds, and the file size it ends at.
    var rangeLength: Int64?
    var expectedFileSize: Int64?
    /// The placed file; nothing is cleaned up after it.
    var isPlaced = false
    /// Digests the file as it is written, when there is a ``checksum``.
    var digester: FileDigester?
    /// ``adapt(_:)`` made the request conditional (``onlyIfChanged``).
    var sentConditional = false
    /// For a download that is not resumable, retried by its call: where the bytes of the
    /// attempts before are kept (see ``keepPartialAcrossAttempts(in:)``).
    var carry: AttemptCarry?
    /// The file taken from ``carry`` for this attempt, until the response decides its use.
    var carried: AttemptCarry.File?
    /// The URL and validator of the response being written, to hand on with the file.
    var carriedInfo: PartialDownload.Info?
    /// How other connections are started: set by the request that runs the writer, when it may
    /// fetch the file over several (``connections``, or a resumable download whose partial file
    /// came from several).
    var segmentLauncher: SegmentLauncher?
    /// The download over several connections, while it runs; its first connection's writer.
    var segments: SegmentedDownload?
    var segmentWriter: SegmentWriter?
    /// For a resumed partial file written over several connections: the ranges it holds.
    var resumedRanges: [Range<Int64>]?
    /// The request asked for the whole file as `bytes=0-` (so that it may be split): its `206`
    /// stands for the `200` the caller's gate was written for.
    var askedWholeAsRange = false

    var output: Output?
    var descriptor: Int32 = -1
    /// Small chunks are gathered here and written together: URLSession and libcurl deliver 16 KiB
    /// at a time, and one `write(2)` per 256 KiB costs far less than sixteen.
    var coalescing: UnsafeMutableRawBufferPointer?
    var coalescedCount = 0
    /// Bytes of the file handed to `write(2)` so far (including a resumed partial's).
    var bytesOnDisk: Int64 = 0
    static let coalescingCapacity = 256 * 1024
    /// The gathering buffer's size until ``coalescingGrowthPoint`` bytes are on disk: each page of a
    /// new buffer costs a page fault the first time it is written, and for a small download 64
    /// faults cost more than the twelve writes a 64 KiB buffer adds.
    static let initialCoalescingCapacity = 64 * 1024
    static let coalescingGrowthPoint: Int64 = 1 << 20
    /// Chunks at least this large are written as they are.
    static let directWriteThreshold = 64 * 1024

    /// Creates a writer to `destination`.
    /// - Parameters:
    ///   - destination: The file URL to place the download at.
    ///   - existingFilePolicy: What to do when a file is already there; default
    ///     ``ExistingFilePolicy/fail``.
    ///   - createsIntermediateDirectories: Whether to create missing directories; default `false`.
    ///   - resumable: Whether to keep an interrupted download and continue it next time; default
    ///     `false` (a partial file is removed).
    ///   - gate: The statuses and content types to accept. Default ``ResponseGate/successful``.
    ///   - maximumBodySize: The largest file accepted, in bytes (a resumed download counts the
    ///     bytes it already has). Default: no limit.
    ///   - checksum: The digest the file must have to be placed; default none. See ``Checksum``.
    ///   - onlyIfChanged: When a file is already at `destination`, ask for the resource only if
    ///     it changed, and replace the file only then; default `false`.
    ///   - keepsRemoteTime: Set the placed file's modification time from `Last-Modified`; default
    ///     `false`.
    ///   - connections: The most connections to fetch the file over at once, when the server
    ///     allows ranges (see "Several connections" above); default `1` (with mirrors, at least
    ///     one for each URL).
    ///   - mirrors: Other URLs of the same file to fetch parts from (see "Mirrors" above);
    ///     default none.
    public init(
        destination: URL,
        existingFilePolicy: ExistingFilePolicy = .fail,
        createsIntermediateDirectories: Bool = false,
        resumable: Bool = false,
        gate: ResponseGate = .successful,
        maximumBodySize: Int64 = .max,
        checksum: Checksum? = nil,
        onlyIfChanged: Bool = false,
        keepsRemoteTime: Bool = false,
        connections: Int = 1,
        mirrors: [URL] = []
    ) {
        self.mirrors = mirrors
        self.connections = max(1, connections, mirrors.isEmpty ? 1 : mirrors.count + 1)
        self.checksum = checksum
        self.onlyIfChanged = onlyIfChanged
        self.keepsRemoteTime = keepsRemoteTime
        self.destination = destination.standardizedFileURL
        self.existingFilePolicy = existingFilePolicy
        self.createsIntermediateDirectories = createsIntermediateDirectories
        self.isResumable = resumable
        wantsPartial = resumable
        super.init(accepting: gate)
        self.maximumBodySize = max(0, maximumBodySize)
    }

    /// Whether ``receive(_:)`` may be lent chunks an engine still owns: `true` for a `FileWriter`
    /// itself, which copies or writes every chunk before it returns (see ``ChunkBorrowing``).
    open override var receivesBorrowedChunks: Bool { type(of: self) == FileWriter.self }

    /// Accepts, for a resumed request, the `416` that says the partial file already holds the
    /// whole body; any other `416` to a resumed request discards the partial state and fails with
    /// ``HotPotatoError/Code/resumeMismatch``. Otherwise gates as ``SelectiveDiscarder`` does.
    open override func validate(_ head: ResponseHead) throws {
        if isNotModified(head) { return }
        if askedWholeAsRange, head.status == 206, gate.accepts(status: 200) {
            // The range was this writer's idea, not the caller's: gate it as the 200 it stands for.
            var whole = head
            whole.status = 200
            try super.validate(whole)
            return
        }
        if case .rest(let offset, let info) = requested, head.status == 416, !gate.accepts(status: 416) {
            if Self.isCompletion(head, of: offset, info: info) { return }
            discardsPartial = true
            throw resumeMismatch(head, offset: offset, "a 416 with \(Self.describeRange(head))")
        }
        try super.validate(head)
    }

    /// Gates the response, checks the destination, and opens the file the body goes to.
    open override func prepare(for head: ResponseHead) throws {
        try super.prepare(for: head)
        if isNotModified(head) {
            // The file at the destination is current: nothing to write, nothing to place.
            wasNotModified = true
            return
        }
        let directory = try checkDestination()
        if wantsPartial && lease == nil { try takePartial() }
        if case .rest(let offset, _) = requested, head.status == 416, !gate.accepts(status: 416) {
            try continuePartial(at: offset, complete: true)
        } else if head.status == 206 {
            try acceptPartialContent(head, in: directory)
        } else if carry != nil, (200..<300).contains(head.status) {
            try startCarriedOver(head, in: directory)
        } else if wantsPartial, lease != nil, (200..<300).contains(head.status) {
            try startPartialOver(head)
        } else {
            try createTemporaryFile(in: directory)
        }
        if let checksum, descriptor >= 0 {
            digester = try FileDigester(checksum.algorithm, descriptor: descriptor, size: bytesOnDisk, path: temporaryURL?.path)
        }
        try beginSegmentsIfWorthIt(head)
    }

    /// Writes the chunk to the file, or throws ``HotPotatoError/Code/writeFailed``.
    ///
    /// Chunks under 64 KiB are gathered into writes of up to 256 KiB; a write error may therefore
    /// surface on a later chunk or in ``finish()``, with the offset of the first byte not written.
    open override func receive(_ chunk: Data) throws {
        if partialIsComplete || wasNotModified { return }
        try countBody(chunk)
        if let segmentWriter {
            let more = try chunk.withUnsafeBytes { try segmentWriter.write($0) }
            bytesWritten += Int64(chunk.count)
            if !more { throw BodyComplete() }
            return
        }
        guard descriptor >= 0 else {
            throw fileError(.writeFailed, "The file is not open for writing.", path: temporaryURL?.path)
        }
        if let rangeLength, chunk.count > rangeLength - bytesWritten {
            discardsPartial = true
            throw HotPotatoError.lengthMismatch(
                .malformedResponse,
                "The server sent more than the \(rangeLength) bytes its Content-Range announced; "
                    + "the partial state was discarded.",
                expected: rangeLength, actual: bytesWritten + Int64(chunk.count), head: head)
        }
        try chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            if bytes.count >= Self.directWriteThreshold {
                try flush()
                try write(bytes)
                return
            }
            let buffer = try coalescingBuffer(adding: bytes.count)
            UnsafeMutableRawBufferPointer(rebasing: buffer[coalescedCount...]).copyMemory(from: bytes)
            coalescedCount += bytes.count
        }
        bytesWritten += Int64(chunk.count)
    }

    deinit {
        digester?.cancel()
        coalescing?.deallocate()
        if descriptor >= 0, lease?.descriptor != descriptor { _ = try? POSIXFile.close(descriptor) }
        if let carried { AttemptCarry.close(carried) }
    }

    /// Checks that the whole file arrived, then places it at ``destination``; returns the
    /// destination URL.
    open override func finish() throws -> URL {
        if wasNotModified {
            // A resumable download took its (empty) partial file when the request was made.
            releasePartial()
            return destination
        }
        if segments != nil {
            // This connection's part is written; the file is placed once every part is
            // (``completeSegments()``), before the call completes.
            defer { segmentWriter?.close() }
            try segmentWriter?.flush()
            return destination
        }
        guard output != nil, descriptor >= 0 else {
            throw fileError(.fileSystemError, "There is no downloaded file to place.", path: destination.path)
        }
        try flush()
        releaseBuffer()
        try checkCompleteness()
        try verifyChecksum()
        try place()
        isPlaced = true
        lease?.release()
        lease = nil
        return destination
    }

    /// Closes and removes the temporary file, if any; a resumable download writes what it holds
    /// and keeps its partial file (unless it was found untrustworthy, or holds nothing). The
    /// destination is never touched.
    open override func cleanUp() {
        if segments != nil {
            // The other connections write on; the download concludes (``abandonSegments()``)
            // once every one has stopped.
            try? segmentWriter?.flush()
            segmentWriter?.close()
            return
        }
        digester?.cancel()
        digester = nil
        if carry != nil, handOnCarried() { return }
        let keepsPartial: Bool
        if case .partial = output { keepsPartial = !isPlaced && !discardsPartial } else { keepsPartial = false }
        if keepsPartial && descriptor >= 0 { try? flush() }
        releaseBuffer()
        if descriptor >= 0 {
            if lease?.descriptor != descriptor { _ = try? POSIXFile.close(descriptor) }
            descriptor = -1
        }
        if case .named(let url) = output { POSIXFile.remove(url.path) }
        output = nil
        temporaryURL = nil
        releasePartial()
    }

    /// Lets go of the partial file's lock, discarding the partial state when it is not to be
    /// trusted or holds nothing (and was not placed).
    func releasePartial() {
        guard let lease else { return }
        if discardsPartial || (!isPlaced && lease.currentSize() == 0) { PartialDownload(destination: destination).discard() }
        lease.release()
        self.lease = nil
    }
}
