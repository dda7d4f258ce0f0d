import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Resuming: taking the partial file, asking for the rest, and accepting only the answer that
/// provably continues it (see "Resumable downloads" in ``FileWriter``).
extension FileWriter {
    /// Records what the request asks for; for a resumable `GET`, takes the partial file (failing
    /// with ``HotPotatoError/Code/destinationBusy`` when another download holds it) and asks for
    /// the rest of it with `Range` and `If-Range` (see ``RequestAdapting``). Fails with
    /// ``HotPotatoError/Code/destinationExists`` when a file is at the destination and may not be
    /// replaced (``ExistingFilePolicy/fail``, without `onlyIfChanged`): nothing is sent.
    ///
    /// A ``Session`` calls it for every request; driving the writer from a transport of your own,
    /// call ``ResponseDriver/adapt(_:)`` before sending, or the writer neither continues nor
    /// records the partial file's URL.
    public func adapt(_ request: inout URLRequest) throws(HotPotatoError) {
        // Before anything is sent: a checksum that cannot be computed here fails the call now.
        if let checksum, Digest(checksum.algorithm) == nil { throw FileDigester.unavailable(checksum.algorithm) }
        // A file that may not be replaced fails the call before it is sent, as wget's `-nc`: no
        // request for a body that could not be placed. Checked again at the head and at placing.
        // Whatever is there, a link (even one to nothing) included: placing would not replace it.
        if destination.isFileURL, let status = POSIXFile.linkStatus(destination.path) {
            if (status.st_mode & S_IFMT) == S_IFDIR {
                throw fileError(.fileSystemError, "The destination \(destination.path) is a directory.", path: destination.path)
            }
            if placementPolicy == .fail {
                throw fileError(.destinationExists, "A file already exists at \(destination.path).", path: destination.path)
            }
        }
        // Once it is known whether the rest of a partial file is asked for (only the whole is
        // asked for conditionally).
        defer {
            adaptConditional(&request)
            adaptSegments(&request)
        }
        let callersRange = request.value(forHTTPHeaderField: "Range") != nil
        requested = callersRange ? .callersOwn : .whole
        if carry != nil {
            adaptCarried(&request, callersRange: callersRange)
            return
        }
        guard wantsPartial, !callersRange, (request.httpMethod ?? "GET").uppercased() == "GET" else {
            wantsPartial = false
            return
        }
        if request.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        requestURL = request.url.map { Redaction.redactingCredentials(inURL: $0.absoluteString) }
        // A directory still to be created is created at the head; the partial file is taken then.
        guard FileManager.default.fileExists(atPath: destination.deletingLastPathComponent().path) else { return }
        try takePartial()
        guard let lease, lease.sizeAtStart > 0, let info = PartialDownload(destination: destination).loadInfo(),
              info.url == requestURL, let validator = info.validator else { return }
        if info.length != nil {
            // Written over several connections, with holes: continued only that way.
            _ = adaptResumedSegments(&request, lease: lease, info: info)
            return
        }
        askForRest(&request, from: lease.sizeAtStart, validator: validator, info: info)
    }

    /// Asks for the rest of a file of which `offset` bytes are kept — from a resumable partial
    /// file or from the attempt before (the two stores of a continuation) — with `Range` and
    /// `If-Range`, and notes what was asked for.
    func askForRest(_ request: inout URLRequest, from offset: Int64, validator: String, info: PartialDownload.Info) {
        request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
        request.setValue(validator, forHTTPHeaderField: "If-Range")
        requested = .rest(from: offset, info: info)
    }

    /// Writes on after the `offset` bytes kept in `descriptor` (the answer continued them;
    /// `complete` when they were already all of it), whichever store held them.
    func writeOn(_ output: Output, descriptor: Int32, temporaryURL: URL?, at offset: Int64, complete: Bool) {
        self.output = output
        self.descriptor = descriptor
        if let temporaryURL { self.temporaryURL = temporaryURL }
        partialIsComplete = complete
        resumedFrom = offset
        bytesOnDisk = offset
        if complete { expectedFileSize = offset }
    }

    /// Takes the partial file's lock, or stops keeping a partial file when its name cannot be used.
    func takePartial() throws(HotPotatoError) {
        let partial = PartialDownload(destination: destination)
        do {
            lease = try partial.acquire()
            if lease == nil { wantsPartial = false }
        } catch is PartialDownload.Busy {
            wantsPartial = false
            throw fileError(
                .destinationBusy,
                "Another download is writing \(partial.dataURL.path), the partial file of \(destination.path); "
                    + "nothing was changed. Try again once it has finished.",
                path: partial.dataURL.path)
        } catch {
            wantsPartial = false
            throw fileError(
                .fileSystemError, "Opening the partial file \(partial.dataURL.path) failed: \(error)",
                path: partial.dataURL.path, underlying: error)
        }
    }

    /// Whether a `416` says the partial file of `offset` bytes already holds the whole body:
    /// `Content-Range: bytes */<offset>`, and no validator other than the recorded one (a server
    /// that names another `ETag` or `Last-Modified` says the partial file is of another version),
    /// nor a length other than the one the response that began it declared (a server that calls
    /// half the body whole).
    static func isCompletion(_ head: ResponseHead, of offset: Int64, info: PartialDownload.Info) -> Bool {
        guard let contentRange = ContentRange(parsing: head.headers["Content-Range"]),
              contentRange.range == nil, contentRange.completeLength == offset else { return false }
        if let declared = info.declaredLength, declared != offset { return false }
        if let etag = info.etag, let sent = head.headers["ETag"], sent != etag { return false }
        if let lastModified = info.lastModified, let sent = head.headers["Last-Modified"], sent != lastModified { return false }
        return true
    }

    static func describeRange(_ head: ResponseHead) -> String {
        head.headers["Content-Range"].map { "Content-Range \"\($0)\"" } ?? "no Content-Range"
    }

    /// ``HotPotatoError/Code/resumeMismatch``, saying what the server answered instead.
    func resumeMismatch(_ head: ResponseHead, offset: Int64, _ what: String) -> HotPotatoError {
        let partial = PartialDownload(destination: destination)
        return fileError(
            .resumeMismatch,
            "The server answered \(what) (validator \(head.headers["ETag"] ?? head.headers["Last-Modified"] ?? "none")), "
                + "which does not continue the \(offset) bytes of \(partial.dataURL.path); they were discarded, so the next "
                + "attempt starts over.",
            path: partial.dataURL.path)
    }

    /// Writes on at the end of the partial file, which must still hold `offset` bytes.
    func continuePartial(at offset: Int64, complete: Bool) throws {
        if carry != nil {
            try continueCarried(at: offset, complete: complete)
            return
        }
        guard let lease else {
            throw fileError(.fileSystemError, "The partial file is not held.", path: partialFileURL.path)
        }
        do {
            if resumedRanges == nil {
                try lease.appendAfter(offset)
            } else if (lease.currentSize() ?? 0) < (resumedRanges?.last?.upperBound ?? 0) {
                // Written at offsets, with holes: it must still hold every range recorded.
                throw POSIXError(.ESTALE)
            }
        } catch {
            discardsPartial = true
            throw fileError(
                .resumeMismatch, "The partial file \(partialFileURL.path) changed during the request; it was discarded.",
                path: partialFileURL.path, underlying: error)
        }
        writeOn(.partial, descriptor: lease.descriptor, temporaryURL: partialFileURL, at: offset, complete: complete)
    }

    /// Accepts a `206` only when it is provably what was asked for; see ``FileWriter``.
    func acceptPartialContent(_ head: ResponseHead, in directory: URL) throws {
        let contentRange = ContentRange(parsing: head.headers["Content-Range"])
        switch requested {
        case .rest(let offset, let info):
            guard head.contentEncodings.isEmpty else {
                discardsPartial = true
                throw resumeMismatch(
                    head, offset: offset,
                    "206 with Content-Encoding \(head.contentEncodings.joined(separator: ", ")): its offsets count encoded bytes")
            }
            guard let contentRange, contentRange.isRest(from: offset), let length = contentRange.length,
                  head.contentLength.map({ $0 == length }) ?? true, PartialDownload.head(head, matches: info)
            else {
                discardsPartial = true
                throw resumeMismatch(head, offset: offset, "206 with \(Self.describeRange(head))")
            }
            try continuePartial(at: offset, complete: false)
            rangeLength = length
            expectedFileSize = contentRange.completeLength
            // The limit is on the file: the bytes already held count too.
            bodyOffset = offset
            try checkDeclaredLength()
        case .callersOwn:
            // The caller asked for a part: the part is the content.
            try createTemporaryFile(in: directory)
        case .whole, nil:
            // Nothing was asked for (``ResponseDriver/rangeRequested`` refuses that 206 before it
            // gets here, for a Session's calls), or nobody knows: only a 206 of the whole resource
            // is the whole file.
            guard let contentRange, contentRange.isRest(from: 0), let length = contentRange.length,
                  head.contentLength.map({ $0 == length }) ?? true else {
                throw HotPotatoError(
                    .malformedResponse,
                    reason: "The server answered 206 Partial Content with \(Self.describeRange(head)) to a request for "
                        + "the whole resource; a part is not the file.",
                    head: head)
            }
            if carry != nil {
                try startCarriedOver(head, in: directory)
            } else if wantsPartial, lease != nil {
                try startPartialOver(head)
            } else {
                try createTemporaryFile(in: directory)
            }
            // A content-coded 206 of the whole (an answer to the `bytes=0-` of a download that may
            // use several connections) is taken as a 200 is: its range counts encoded bytes, the
            // body arrives decoded, so neither length says where the decoded file ends.
            if head.contentEncodings.isEmpty {
                rangeLength = length
                expectedFileSize = length
            }
        }
    }

    /// Starts the partial file over with this response (a `200`, or another full answer).
    func startPartialOver(_ head: ResponseHead) throws {
        guard let lease else { return }
        let partial = PartialDownload(destination: destination)
        do {
            // Emptied first, recorded second: a crash in between leaves an empty file, which is
            // never resumed, rather than old bytes under a new validator.
            try lease.truncate()
            try partial.saveInfo(PartialDownload.info(for: head, url: requestURL))
        } catch {
            throw fileError(
                .fileSystemError, "Starting the partial file \(partial.dataURL.path) over failed: \(error)",
                path: partial.dataURL.path, underlying: error)
        }
        output = .partial
        descriptor = lease.descriptor
        temporaryURL = partial.dataURL
        resumedFrom = 0
        bytesOnDisk = 0
    }

    /// For a `206`: exactly the range's bytes arrived, and the file holds the whole resource.
    func checkCompleteness() throws {
        if let rangeLength, bytesWritten < rangeLength {
            // A clean close before the range's end: a valid prefix, kept for the next attempt.
            throw HotPotatoError.truncatedBody(
                "The body ended after \(bytesWritten) of the \(rangeLength) bytes its Content-Range announced.",
                byteCount: bytesWritten, expected: rangeLength, head: head, path: temporaryURL?.path)
        }
        guard let expectedFileSize else { return }
        let size = (try? POSIXFile.status(descriptor)).map { Int64($0.st_size) }
        guard size == expectedFileSize else {
            discardsPartial = true
            throw HotPotatoError.lengthMismatch(
                .malformedResponse,
                "The file holds \(size.map(String.init) ?? "an unknown number of") bytes, not the \(expectedFileSize) "
                    + "the server announced; it was discarded.",
                expected: expectedFileSize, actual: size, head: head)
        }
    }
}
