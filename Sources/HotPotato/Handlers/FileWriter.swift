import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Streams the body to a file in constant memory and places it at its destination only when the
/// whole body has arrived. Its content is the file's URL.
///
/// How a download reaches the disk:
/// 1. Once the response is accepted, a temporary file is created in the destination's directory
///    (`.<name>.hotpotato-<random>.part`): exclusively, never through a symbolic link, with
///    permissions 0600 so nobody else reads a half-written file.
/// 2. Each chunk is written to it as it arrives.
/// 3. When the body is complete, the file gets the usual permissions (0666 less the umask) and is
///    moved into place atomically: with ``ExistingFilePolicy/fail`` (the default) only if nothing
///    exists at the destination, with ``ExistingFilePolicy/replace`` over whatever is there.
///
/// On any failure — a rejected response, a write error, a truncated body, a cancellation — the
/// temporary file is removed and a file already at the destination is left untouched. A rejected
/// response creates nothing at all.
///
/// Errors: ``HotPotatoError/Code/destinationExists`` (checked at the head, before any byte is
/// downloaded, and again when placing), ``HotPotatoError/Code/fileSystemError`` (a missing
/// directory, a destination that is a directory, a temporary file that cannot be created),
/// ``HotPotatoError/Code/writeFailed`` (no space, I/O error), each with ``HotPotatoError/path``.
///
/// Gating defaults: status `200...299`, any content type. A response with no body produces an
/// empty file.
///
/// ## Resumable downloads
///
/// With `resumable: true`, the body goes to a partial file at a fixed place beside the
/// destination (``partialFileURL``), recorded with the URL and the response's validator (a strong
/// `ETag`, else `Last-Modified`); a failure, a cancellation, a crash or Ctrl-C leaves it there.
/// The next resumable download to the same destination from the same URL asks for the rest
/// (`Range: bytes=N-` with `If-Range: <validator>`, and `Accept-Encoding: identity` so that
/// offsets count the bytes as stored) and:
/// - appends only when the server answers `206` for exactly that range with the same validator;
/// - starts over cleanly on `200` (the resource changed, or the server ignores ranges);
/// - completes at once on `416` when the partial file already holds the whole body;
/// - otherwise fails with ``HotPotatoError/Code/resumeMismatch`` and discards the partial state,
///   so that trying again starts over.
///
/// A rejected response (a `404`, a `503` …) leaves the partial state as it was. Without a
/// validator, a download can still be interrupted and kept, but not continued: the next attempt
/// starts over. When the request already has a `Range` header, or is not a `GET`, the writer
/// does not resume.
open class FileWriter: SelectiveDiscarder<URL>, RequestAdapting {
    /// Where the file is placed.
    public let destination: URL
    /// What happens when a file already exists at ``destination``.
    public let existingFilePolicy: ExistingFilePolicy
    /// Whether missing directories on the way to ``destination`` are created.
    public let createsIntermediateDirectories: Bool
    /// The number of body bytes written so far.
    public private(set) var bytesWritten: Int64 = 0
    /// The temporary file being written, while there is one.
    public private(set) var temporaryURL: URL?
    /// Whether an interrupted download is kept in ``partialFileURL`` to be continued (see
    /// "Resumable downloads" above).
    public let isResumable: Bool
    /// For a resumable download, the body offset at which this response continued the partial
    /// file; `0` when it started from the beginning.
    public private(set) var resumedFrom: Int64 = 0
    /// Where a resumable download to ``destination`` keeps its partial file.
    public var partialFileURL: URL { Self.partialFileURL(for: destination) }

    /// Where a resumable download to `destination` keeps its partial file
    /// (`.<name>.hotpotato-partial` in the same directory, with its record beside it in
    /// `.<name>.hotpotato-partial.json`).
    public static func partialFileURL(for destination: URL) -> URL {
        PartialDownload(destination: destination.standardizedFileURL).dataURL
    }

    /// Resuming, as decided when the request was made: the partial state and the offset asked for.
    private typealias ResumePlan = (partial: PartialDownload, info: PartialDownload.Info?, offset: Int64)
    private var resume: ResumePlan?
    /// The URL of the request, recorded with the partial file.
    private var requestURL: String?
    /// A `416` answered a resumed request whose partial file already holds the whole body.
    private var partialIsComplete = false
    /// The placed file; nothing is cleaned up after it.
    private var isPlaced = false

    private var descriptor: Int32 = -1
    /// Small chunks are gathered here and written together: URLSession delivers 16 KiB at a time,
    /// and one `write(2)` per 256 KiB costs far less than sixteen.
    private var coalescing: UnsafeMutableRawBufferPointer?
    private var coalescedCount = 0
    /// Bytes handed to `write(2)` so far.
    private var bytesOnDisk: Int64 = 0
    private static let coalescingCapacity = 256 * 1024
    /// Chunks at least this large are written as they are.
    private static let directWriteThreshold = 64 * 1024

    /// Creates a writer to `destination`.
    /// - Parameters:
    ///   - destination: The file URL to place the download at.
    ///   - existingFilePolicy: What to do when a file is already there; default
    ///     ``ExistingFilePolicy/fail``.
    ///   - createIntermediateDirectories: Whether to create missing directories; default `false`.
    ///   - resumable: Whether to keep an interrupted download and continue it next time; default
    ///     `false` (a partial file is removed).
    ///   - acceptableStatusCodes: Statuses to accept; empty accepts all. Default `200...299`.
    ///   - acceptableContentTypes: Media types to accept; empty (the default) accepts all.
    public init(
        destination: URL,
        existingFilePolicy: ExistingFilePolicy = .fail,
        createIntermediateDirectories: Bool = false,
        resumable: Bool = false,
        acceptableStatusCodes: Set<Int> = Set(200...299),
        acceptableContentTypes: [MediaType] = []
    ) {
        self.destination = destination.standardizedFileURL
        self.existingFilePolicy = existingFilePolicy
        self.createsIntermediateDirectories = createIntermediateDirectories
        self.isResumable = resumable
        super.init(acceptableStatusCodes: acceptableStatusCodes, acceptableContentTypes: acceptableContentTypes)
    }

    func adapt(_ request: inout URLRequest) {
        guard isResumable else { return }
        guard (request.httpMethod ?? "GET").uppercased() == "GET", request.value(forHTTPHeaderField: "Range") == nil else {
            return
        }
        if request.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        requestURL = request.url?.absoluteString
        let partial = PartialDownload(destination: destination)
        guard let info = partial.loadInfo(), info.url == requestURL, let validator = info.validator,
              let size = partial.dataSize(), size > 0 else {
            resume = (partial, nil, 0)
            return
        }
        request.setValue("bytes=\(size)-", forHTTPHeaderField: "Range")
        request.setValue(validator, forHTTPHeaderField: "If-Range")
        resume = (partial, info, size)
    }

    /// Accepts, for a resumed request, the `416` that says the partial file already holds the
    /// whole body; otherwise gates as ``SelectiveDiscarder`` does.
    open override func validate(_ head: ResponseHead) throws {
        if let resume, resume.offset > 0, head.status == 416 {
            let contentRange = ContentRange(parsing: head.headers["Content-Range"])
            if contentRange?.range == nil, contentRange?.completeLength == resume.offset {
                return
            }
        }
        try super.validate(head)
    }

    /// Gates the response, checks the destination, and creates the temporary file.
    open override func prepare(for head: ResponseHead) throws {
        try super.prepare(for: head)
        let path = destination.path
        guard destination.isFileURL, !destination.lastPathComponent.isEmpty, path != "/" else {
            throw fileError(.fileSystemError, "The destination \(destination) is not a file URL.", path: path)
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue {
                throw fileError(.fileSystemError, "The destination \(path) is a directory.", path: path)
            }
            if existingFilePolicy == .fail {
                throw fileError(.destinationExists, "A file already exists at \(path).", path: path)
            }
        }
        let directory = destination.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: directory.path) {
            guard createsIntermediateDirectories else {
                throw fileError(
                    .fileSystemError, "The directory \(directory.path) does not exist.", path: directory.path,
                    underlying: POSIXError(.ENOENT))
            }
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw fileError(
                    .fileSystemError, "Creating the directory \(directory.path) failed.", path: directory.path,
                    underlying: error)
            }
        }
        if let resume {
            try openPartialFile(for: head, resume: resume)
        } else {
            try createTemporaryFile(in: directory)
        }
    }

    /// Continues the partial file when the response is the rest of it, or starts it over.
    private func openPartialFile(for head: ResponseHead, resume: ResumePlan) throws {
        let partial = resume.partial
        if resume.offset > 0, let info = resume.info, head.status == 416 || head.status == 206 {
            let contentRange = ContentRange(parsing: head.headers["Content-Range"])
            let continues = head.status == 416
                || (contentRange?.range?.lowerBound == resume.offset && PartialDownload.head(head, matches: info))
            guard continues else {
                partial.discard()
                throw fileError(
                    .resumeMismatch,
                    "The server answered HTTP \(head.status) with \(head.headers["Content-Range"].map { "Content-Range \($0)" } ?? "no Content-Range")"
                        + " and validator \(head.headers["ETag"] ?? head.headers["Last-Modified"] ?? "none"), which does not continue"
                        + " the \(resume.offset) bytes of \(partial.dataURL.path); they were discarded, so the next attempt starts over.",
                    path: partial.dataURL.path)
            }
            do {
                descriptor = try partial.openForAppending(expectedSize: resume.offset)
            } catch {
                partial.discard()
                throw fileError(
                    .resumeMismatch, "The partial file \(partial.dataURL.path) changed during the request; it was discarded.",
                    path: partial.dataURL.path, underlying: error)
            }
            temporaryURL = partial.dataURL
            resumedFrom = resume.offset
            partialIsComplete = head.status == 416
            bytesOnDisk = resume.offset
            return
        }
        do {
            // Emptied first, recorded second: a crash in between leaves an empty file, which is
            // never resumed, rather than old bytes under a new validator.
            descriptor = try partial.openEmptied()
            temporaryURL = partial.dataURL
            try partial.saveInfo(PartialDownload.info(for: head, url: requestURL))
        } catch {
            throw fileError(
                .fileSystemError, "Creating the partial file \(partial.dataURL.path) failed: \(error)",
                path: partial.dataURL.path, underlying: error)
        }
    }

    /// Writes the chunk to the temporary file, or throws ``HotPotatoError/Code/writeFailed``.
    ///
    /// Chunks under 64 KiB are gathered into writes of up to 256 KiB; a write error may therefore
    /// surface on a later chunk or in ``finish()``, with the offset of the first byte not written.
    open override func receive(_ chunk: Data) throws {
        if partialIsComplete { return }
        guard descriptor >= 0 else {
            throw fileError(.writeFailed, "The file is not open for writing.", path: temporaryURL?.path)
        }
        try chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            if bytes.count >= Self.directWriteThreshold {
                try flush()
                try write(bytes)
                return
            }
            let buffer = coalescing ?? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.coalescingCapacity, alignment: 16)
            coalescing = buffer
            if coalescedCount + bytes.count > buffer.count { try flush() }
            UnsafeMutableRawBufferPointer(rebasing: buffer[coalescedCount...]).copyMemory(from: bytes)
            coalescedCount += bytes.count
        }
        bytesWritten += Int64(chunk.count)
    }

    /// Writes the gathered small chunks, if any.
    private func flush() throws {
        guard coalescedCount > 0, let buffer = coalescing else { return }
        let count = coalescedCount
        coalescedCount = 0
        try write(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }

    private func write(_ bytes: UnsafeRawBufferPointer) throws {
        do {
            try POSIXFile.writeAll(descriptor, bytes)
        } catch {
            var failure = fileError(
                .writeFailed, "Writing to \(temporaryURL?.path ?? destination.path) failed: \(error)",
                path: temporaryURL?.path, underlying: error)
            failure.byteOffset = bytesOnDisk
            throw failure
        }
        bytesOnDisk += Int64(bytes.count)
    }

    private func releaseBuffer() {
        coalescing?.deallocate()
        coalescing = nil
        coalescedCount = 0
    }

    deinit {
        coalescing?.deallocate()
    }

    /// Closes the temporary file and moves it to ``destination``; returns the destination URL.
    open override func finish() throws -> URL {
        guard let temporary = temporaryURL, descriptor >= 0 else {
            throw fileError(.fileSystemError, "There is no downloaded file to place.", path: destination.path)
        }
        try flush()
        releaseBuffer()
        let fd = descriptor
        descriptor = -1
        do {
            try POSIXFile.setMode(fd, POSIXFile.regularFileMode)
            try POSIXFile.close(fd)
        } catch {
            throw fileError(.writeFailed, "Finishing \(temporary.path) failed: \(error)", path: temporary.path, underlying: error)
        }
        do {
            switch existingFilePolicy {
            case .replace: try POSIXFile.rename(temporary.path, to: destination.path)
            case .fail: try POSIXFile.renameNoReplace(temporary.path, to: destination.path)
            }
        } catch let error as POSIXError where error.code == .EEXIST {
            throw fileError(.destinationExists, "A file appeared at \(destination.path) during the download.", path: destination.path)
        } catch {
            throw fileError(
                .fileSystemError, "Moving the download to \(destination.path) failed: \(error)",
                path: destination.path, underlying: error)
        }
        temporaryURL = nil
        isPlaced = true
        if let resume { POSIXFile.remove(resume.partial.infoURL.path) }
        return destination
    }

    /// Closes and removes the temporary file, if any; a resumable download writes what it holds
    /// and keeps its partial file. The destination is never touched.
    open override func cleanUp() {
        let keepsPartialFile = resume != nil && !isPlaced
        if keepsPartialFile && descriptor >= 0 { try? flush() }
        releaseBuffer()
        if descriptor >= 0 {
            try? POSIXFile.close(descriptor)
            descriptor = -1
        }
        if let temporary = temporaryURL, !keepsPartialFile {
            POSIXFile.remove(temporary.path)
        }
        temporaryURL = nil
    }

    private func createTemporaryFile(in directory: URL) throws {
        var lastError: (any Error)?
        for _ in 0..<16 {
            let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let name = ".\(destination.lastPathComponent).hotpotato-\(random).part"
            let candidate = directory.appendingPathComponent(name)
            do {
                descriptor = try POSIXFile.createExclusive(candidate.path)
                temporaryURL = candidate
                return
            } catch let error as POSIXError where error.code == .EEXIST {
                lastError = error
            } catch {
                lastError = error
                break
            }
        }
        throw fileError(
            .fileSystemError, "Creating a temporary file in \(directory.path) failed: \(lastError.map { "\($0)" } ?? "")",
            path: directory.path, underlying: lastError)
    }

    private func fileError(
        _ code: HotPotatoError.Code, _ reason: String, path: String?, underlying: (any Error)? = nil
    ) -> HotPotatoError {
        var error = HotPotatoError(code, reason: reason, head: head, underlying: underlying)
        error.path = path
        return error
    }
}
