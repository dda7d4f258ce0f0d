import Foundation

/// The handler of one of a segmented download's other connections: it accepts only the `206`
/// that holds exactly the range asked for, of the same version of the resource (the same strong
/// `ETag`, no content coding), and writes it at its offset through a ``SegmentWriter``.
///
/// What it found at the head is its ``verdict``, which tells ``SegmentedDownload`` what a
/// failure means: the resource changed, or the server ignores ranges.
final class SegmentHandler: ContentHandler, ChunkBorrowing, @unchecked Sendable {
    typealias Content = Void

    /// What the head said.
    enum Verdict {
        case none
        /// A `206` of the range asked for.
        case accepted
        /// Another version of the resource (another validator, or `412`).
        case changed
        /// A `200` of the same version: the server ignores ranges (for this request at least).
        case rangesIgnored
        /// `429` or `503`: the server turns this connection away for now (a cap on connections
        /// per client, or a busy moment), which says nothing about the file.
        case busy
        /// Anything else (another status, a range that is not the one asked for).
        case refused
    }

    let download: SegmentedDownload
    let worker: Int
    let range: Range<Int64>
    /// Whether this connection fetches the rest of a file whose server ignores ranges: a `200`
    /// of the whole file is its answer, read up to ``range`` and written from there on.
    let takingOver: Bool
    private(set) var verdict = Verdict.none
    private var writer: SegmentWriter?
    /// Bytes of the response before ``range`` (a taking-over answer that starts earlier).
    private var skip: Int64 = 0

    init(download: SegmentedDownload, worker: Int, range: Range<Int64>, takingOver: Bool = false) {
        self.download = download
        self.worker = worker
        self.range = range
        self.takingOver = takingOver
    }

    var receivesBorrowedChunks: Bool { true }

    func prepare(for head: ResponseHead) throws {
        let etag = head.headers["ETag"]
        let expected = download.validator(of: worker)
        if takingOver {
            try takeOver(head, etag: etag, expected: expected)
            return
        }
        switch head.status {
        case 206:
            guard let etag, !etag.hasPrefix("W/"), head.contentEncodings.isEmpty else {
                verdict = expected == nil ? .refused : .changed
                throw refusal(head, "206 with validator \(etag ?? "none")\(head.contentEncodings.isEmpty ? "" : " and a content coding")")
            }
            guard let contentRange = ContentRange(parsing: head.headers["Content-Range"]), let served = contentRange.range,
                  served.lowerBound == range.lowerBound, served.upperBound < range.upperBound,
                  contentRange.completeLength == download.length,
                  head.contentLength.map({ $0 == Int64(served.count) }) ?? true else {
                verdict = .refused
                throw refusal(head, "206 with \(FileWriter.describeRange(head)), not bytes \(range.lowerBound)-\(range.upperBound - 1)/\(download.length)")
            }
            guard let writer = try download.beginWorker(worker, servedUpTo: served.upperBound + 1, validator: etag) else {
                verdict = .changed
                throw refusal(head, "206 with validator \(etag), not \(expected ?? "the one first seen")")
            }
            verdict = .accepted
            self.writer = writer
        case 200:
            verdict = expected != nil && etag != expected ? .changed : .rangesIgnored
            throw refusal(head, "200 (validator \(etag ?? "none")) to a range request")
        case 412:
            verdict = .changed
            throw refusal(head, "412 Precondition Failed")
        case 429, 503:
            verdict = .busy
            throw refusal(head, "\(head.status)")
        default:
            verdict = .refused
            throw refusal(head, "\(head.status)")
        }
    }

    func receive(_ chunk: Data) throws {
        guard let writer else { return }
        let more = try chunk.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Bool in
            guard skip > 0 else { return try writer.write(bytes) }
            let skipped = Int(min(skip, Int64(bytes.count)))
            skip -= Int64(skipped)
            return skipped == bytes.count ? true : try writer.write(UnsafeRawBufferPointer(rebasing: bytes[skipped...]))
        }
        if !more {
            reachedEnd = true
            throw BodyComplete()
        }
    }

    /// A taking-over answer: the same version, the whole file (`200`) or a range running to its
    /// end from at most ``range``'s start (`206`).
    private func takeOver(_ head: ResponseHead, etag: String?, expected: String?) throws {
        guard let etag, etag == expected, head.contentEncodings.isEmpty else {
            verdict = .changed
            throw refusal(head, "\(head.status) with validator \(etag ?? "none")")
        }
        var start: Int64 = 0
        if head.status == 206 {
            guard let contentRange = ContentRange(parsing: head.headers["Content-Range"]), let served = contentRange.range,
                  served.lowerBound <= range.lowerBound, served.upperBound == download.length - 1,
                  contentRange.completeLength == download.length else {
                verdict = .refused
                throw refusal(head, "206 with \(FileWriter.describeRange(head))")
            }
            start = served.lowerBound
        } else if head.status != 200 || head.contentLength.map({ $0 != download.length }) == true {
            verdict = .refused
            throw refusal(head, "\(head.status) of \(head.contentLength.map(String.init) ?? "unknown") bytes")
        }
        guard let writer = try download.beginWorker(worker, servedUpTo: download.length, validator: etag) else {
            verdict = .changed
            throw refusal(head, "\(head.status) of another version")
        }
        verdict = .accepted
        skip = range.lowerBound - start
        self.writer = writer
    }

    func finish() throws {
        defer { writer?.close() }
        try writer?.flush()
        if let writer, !reachedEnd {
            // The body ended before the part did: a connection that closed early without a
            // `Content-Length` to tell. A failure like any other (the download waits before it
            // asks again, and gives up after its limit), not a part that ended well: asked
            // again at once, such a server kept the download asking forever.
            throw HotPotatoError.truncatedBody(
                "A segment's body ended at byte \(writer.offset), before the end of its part (bytes \(range.lowerBound)-\(range.upperBound - 1)).",
                byteCount: writer.offset - range.lowerBound, expected: nil, head: nil)
        }
    }

    func cleanUp() {
        // What is written stays written (and counted); what was only gathered is fetched again.
        try? writer?.flush()
        writer?.close()
    }

    /// The part's end was reached (the writer wanted no more).
    private var reachedEnd = false

    private func refusal(_ head: ResponseHead, _ what: String) -> HotPotatoError {
        // An error status is the server's answer, not a breach of HTTP.
        HotPotatoError(
            verdict == .changed ? .resumeMismatch : head.status >= 400 ? .unacceptableStatus : .malformedResponse,
            reason: "A segment request for bytes \(range.lowerBound)-\(range.upperBound - 1) was answered with \(what).",
            head: head)
    }
}

/// Thrown by a handler's `receive` when it wants no more of the body: the driver finishes the
/// handler at once (without the check that the declared length arrived) and the transport stops.
struct BodyComplete: Error {}
