import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A request body as an engine streams it, made for one attempt by ``RequestDescription/makeRequestBody()``:
/// replayable segments (a file, a multipart form), whose files were checked and measured when the
/// attempt began, or a claimed ``OneShotBody``. A body of `Data` is not one: it travels in the
/// `URLRequest`'s `httpBody`.
///
/// Each request an engine sends (the first, then each redirect that keeps the body) reads it
/// through a ``BodyReader`` of its own (``makeReader()``), which starts from the first byte; a
/// one-shot body gives its reader once. An engine holds the body until its transfer is over:
/// letting go of it (and of its reader) releases a one-shot body's claim.
final class RequestBody: Sendable {
    private enum Source {
        case segments([BodySegment])
        case oneShot(OneShotReader)
    }

    private let source: Source
    /// The length, when it is known before the body is sent.
    let length: Int64?
    private let readerMade = Locked(false)

    init(segments: [BodySegment]) {
        source = .segments(segments)
        length = BodySegment.totalLength(segments)
    }

    /// Claims `body` for an attempt of the call `owner` (see ``OneShotBody/claim(by:)``).
    init(claiming body: OneShotBody, by owner: AnyObject) throws(HotPotatoError) {
        source = .oneShot(try body.claim(by: owner))
        length = body.length
    }

    /// Whether the body can be sent again from its first byte (a redirect, a rewind).
    var isReplayable: Bool {
        if case .segments = source { return true }
        return false
    }

    /// Whether a read may have to wait for bytes that are not there yet: a one-shot stream (its
    /// producer), or a body with a file that is not a regular file (a FIFO, a device), which is
    /// read only as its writer writes. A body that never waits (bytes, regular files) may be read
    /// on a thread that must not wait, such as libcurl's multi thread.
    var mayWait: Bool {
        switch source {
        case .oneShot: return true
        case .segments(let segments): return segments.contains { $0.length == nil }
        }
    }

    /// The segments of a replayable body.
    var segments: [BodySegment]? {
        if case .segments(let segments) = source { return segments }
        return nil
    }

    /// A reader from the first byte.
    /// - Throws: ``HotPotatoError/Code/bodyNotReplayable`` for a one-shot body read before.
    func makeReader() throws(HotPotatoError) -> any BodyReader {
        switch source {
        case .segments(let segments):
            return SegmentedBodyReader(segments)
        case .oneShot(let reader):
            let first = readerMade.withLock { made in
                defer { made = true }
                return !made
            }
            guard first else {
                throw .bodyNotReplayable("The request body is a one-shot \(reader.body.kind) and would have to be sent again.")
            }
            return reader
        }
    }

    /// The segment of a body file: checked to be readable, with its size when it is a regular file
    /// (after symbolic links: FoundationNetworking would announce a link's own size). Opened
    /// without blocking and closed at once — but for a FIFO, which is only checked: opening its
    /// read end lets a writer waiting to open it go on, and closing it again would leave that
    /// writer without a reader, killed (`SIGPIPE`) by its first write before the request reads.
    /// - Throws: ``HotPotatoError/Code/invalidRequest`` with the `path` when it cannot be read.
    static func fileSegment(_ url: URL) throws(HotPotatoError) -> BodySegment {
        guard url.isFileURL else {
            throw HotPotatoError.file(.invalidRequest, "\(url.absoluteString) is not a file URL.", path: url.absoluteString)
        }
        let resolved = url.resolvingSymlinksInPath()
        var named = stat()
        if stat(resolved.path, &named) == 0, (named.st_mode & S_IFMT) == S_IFIFO {
            guard access(resolved.path, R_OK) == 0 else { throw .unreadableBodyFile(url, underlying: POSIXFile.currentError()) }
            return .file(resolved, length: nil)
        }
        let descriptor = open(resolved.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadableBodyFile(url, underlying: POSIXFile.currentError()) }
        defer { _ = try? POSIXFile.close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw .unreadableBodyFile(url, underlying: POSIXFile.currentError()) }
        switch status.st_mode & S_IFMT {
        case S_IFDIR:
            throw .unreadableBodyFile(url, underlying: POSIXError(.EISDIR))
        case S_IFREG:
            return .file(resolved, length: Int64(status.st_size))
        default:
            return .file(resolved, length: nil)
        }
    }
}
