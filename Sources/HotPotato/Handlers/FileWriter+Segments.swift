import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Several connections: asking for the file as a range, deciding at the head whether to split it,
/// and placing or abandoning it once every connection has stopped (see ``SegmentedDownload``).
extension FileWriter {
    /// Whether this download may be fetched over several connections: a request runs it (which
    /// starts the others) and it asks for more than one.
    var mayUseSegments: Bool { connections > 1 && segmentLauncher != nil }

    /// For a download of the whole resource that may use several connections: asks for it as the
    /// range `bytes=0-`, whose `206` says, on the first response, whether the server serves
    /// ranges, how large the file is, and with which validator. (A server that ignores ranges
    /// answers `200` with the whole body, which is written as usual.)
    func adaptSegments(_ request: inout URLRequest) {
        guard mayUseSegments, case .whole = requested, carry == nil,
              (request.httpMethod ?? "GET").uppercased() == "GET" else { return }
        request.setValue("bytes=0-", forHTTPHeaderField: "Range")
        askedWholeAsRange = true
        if request.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
    }

    /// For a resumable download whose partial file was written over several connections (its
    /// record lists the ranges on disk): asks for the file from the first byte missing, with
    /// `If-Range`. Returns `false` when the record cannot be used that way (the partial file is
    /// then started over).
    func adaptResumedSegments(_ request: inout URLRequest, lease: PartialLease, info: PartialDownload.Info) -> Bool {
        guard segmentLauncher != nil, let length = info.length, let ranges = info.doneRanges, let etag = info.etag,
              !etag.hasPrefix("W/") else { return false }
        let plan = SegmentPlan(length: length, written: ranges, minimumSplit: SegmentedDownload.minimumSplit)
        // The file must still hold every range the record lists.
        guard let first = plan.firstMissingOffset, lease.sizeAtStart >= (plan.written.last?.upperBound ?? 0) else { return false }
        resumedRanges = plan.written
        request.setValue("bytes=\(first)-", forHTTPHeaderField: "Range")
        request.setValue(etag, forHTTPHeaderField: "If-Range")
        requested = .rest(from: first, info: info)
        return true
    }

    /// At the head: when the response is a `206` that runs to the end of the file, of a version
    /// named by a strong `ETag`, without a content coding, and enough is missing to be worth
    /// splitting, starts fetching the file over several connections. So does the `200` of a new
    /// version that a resumed request's `If-Range` brought, from a server that says it serves
    /// ranges (`Accept-Ranges: bytes`): the partial file was started over, and the new version
    /// is fetched as a new download would be. Otherwise the response is written as one.
    func beginSegmentsIfWorthIt(_ head: ResponseHead) throws {
        guard let launcher = segmentLauncher, descriptor >= 0, !partialIsComplete,
              head.contentEncodings.isEmpty, let etag = head.headers["ETag"], !etag.hasPrefix("W/") else { return }
        let offset: Int64
        let length: Int64
        if head.status == 206 {
            guard let contentRange = ContentRange(parsing: head.headers["Content-Range"]), let served = contentRange.range,
                  let complete = contentRange.completeLength, served.upperBound == complete - 1 else { return }
            offset = served.lowerBound
            length = complete
        } else if head.status == 200, case .rest = requested, connections > 1,
                  head.headers.values(for: "Accept-Ranges").contains(where: { $0.lowercased().contains("bytes") }),
                  let whole = head.contentLength {
            // What the record listed belongs to the old version: nothing of the new is written.
            resumedRanges = nil
            offset = 0
            length = whole
        } else {
            return
        }
        let written = resumedRanges ?? (offset > 0 ? [0..<offset] : [])
        let missing = length - written.reduce(0) { $0 + Int64($1.count) }
        // A partial file with holes is always continued this way; otherwise only when it pays.
        guard resumedRanges != nil || (connections > 1 && missing >= 2 * SegmentedDownload.minimumSplit) else { return }
        // The plan checks that every byte arrived; the file's size is checked at the end.
        rangeLength = nil
        expectedFileSize = length
        var saveRecord: (@Sendable ([Range<Int64>]) -> Void)?
        if case .partial = output {
            let partial = PartialDownload(destination: destination)
            var base = PartialDownload.info(for: head, url: requestURL)
            base.length = length
            let info = base
            saveRecord = { ranges in
                var info = info
                info.done = ranges.map { [$0.lowerBound, $0.upperBound] }
                try? partial.saveInfo(info)
            }
        }
        var advanceDigest: (@Sendable (Int64) -> Void)?
        if let digester { advanceDigest = { digester.advance(to: $0) } }
        let download = SegmentedDownload(
            writer: self, length: length, validator: etag, written: written, maximumConnections: connections,
            mirrors: mirrors, launcher: launcher, descriptor: descriptor, path: temporaryURL?.path ?? destination.path,
            advanceDigest: advanceDigest, saveRecord: saveRecord)
        segments = download
        do {
            segmentWriter = try download.start(primaryAt: offset)
        } catch {
            segments = nil
            throw fileError(.fileSystemError, "Sharing the download's file between connections failed: \(error)", path: temporaryURL?.path, underlying: error)
        }
    }

    /// Every part is on disk: checks the file's size and checksum, and places it.
    func completeSegments() throws {
        segments = nil
        segmentWriter = nil
        if let expectedFileSize { bytesOnDisk = expectedFileSize }
        try checkCompleteness()
        try verifyChecksum()
        try place()
        isPlaced = true
        releasePartial()
    }

    /// The download failed or was cancelled, and every connection has stopped: cleans up as a
    /// download over one connection does (a resumable one keeps its partial file and record).
    func abandonSegments() {
        segments = nil
        segmentWriter = nil
        cleanUp()
    }
}
