import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A download that is not resumable, retried by its call: each attempt continues the bytes the
/// attempt before received, with `Range` and `If-Range`, in the same temporary file (see
/// ``AttemptCarry``). Nothing is kept beside the destination, and nothing outlives the call.
extension FileWriter: ResumingHandler {
    func keepPartialAcrossAttempts(in carry: AttemptCarry) {
        // A resumable download keeps its partial file anyway; one over several connections
        // carries on itself when a connection fails.
        guard !isResumable, connections == 1 else { return }
        self.carry = carry
    }

    /// ``adapt(_:)`` for a carried download: takes the file of the attempt before, and asks for
    /// the rest of it when its response had a validator and was for the same URL.
    func adaptCarried(_ request: inout URLRequest, callersRange: Bool) {
        guard let carry, !callersRange, (request.httpMethod ?? "GET").uppercased() == "GET" else {
            // A part of the caller's, or another method: nothing to continue.
            self.carry = nil
            return
        }
        if request.value(forHTTPHeaderField: "Accept-Encoding") == nil {
            request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        }
        requestURL = request.url.map { Redaction.redactingCredentials(inURL: $0.absoluteString) }
        carried = carry.take()
        guard let carried, let info = carried.info, info.url == requestURL, let validator = info.validator,
              let size = (try? POSIXFile.status(carried.descriptor)).map({ Int64($0.st_size) }), size > 0
        else { return }
        askForRest(&request, from: size, validator: validator, info: info)
    }

    /// Writes on at the end of the carried file, which must still hold `offset` bytes.
    func continueCarried(at offset: Int64, complete: Bool) throws {
        guard let file = carried else {
            throw fileError(.fileSystemError, "The bytes of the attempt before are not held.", path: destination.path)
        }
        carried = nil
        let size = (try? POSIXFile.status(file.descriptor)).map { Int64($0.st_size) }
        guard size == offset, lseek(file.descriptor, 0, SEEK_END) >= 0 else {
            AttemptCarry.close(file)
            discardsPartial = true
            throw fileError(
                .resumeMismatch, "The bytes kept from the attempt before changed; they were discarded.", path: destination.path)
        }
        carriedInfo = file.info
        var named: URL?
        if case .named(let url) = file.output { named = url }
        writeOn(file.output, descriptor: file.descriptor, temporaryURL: named, at: offset, complete: complete)
    }

    /// Starts the body over in a new temporary file (a `200`, or another full answer), and
    /// records the response's validator for the next attempt.
    func startCarriedOver(_ head: ResponseHead, in directory: URL) throws {
        if let file = carried {
            carried = nil
            AttemptCarry.close(file)
        }
        try createTemporaryFile(in: directory)
        carriedInfo = PartialDownload.info(for: head, url: requestURL)
        resumedFrom = 0
        bytesOnDisk = 0
    }

    /// ``cleanUp()`` for a carried download that did not place its file: hands the file on to the
    /// next attempt. Returns whether it did; when it did not (the bytes are not to be trusted, or
    /// could not be written), the usual clean-up removes them.
    func handOnCarried() -> Bool {
        guard let carry else { return false }
        if let file = carried {
            // Failed before a response decided what to do with it: unchanged, for the next.
            carried = nil
            carry.keep(file)
        }
        guard !isPlaced, !discardsPartial, let output, descriptor >= 0, (try? flush()) != nil else { return false }
        releaseBuffer()
        carry.keep(AttemptCarry.File(descriptor: descriptor, output: output, info: carriedInfo))
        descriptor = -1
        self.output = nil
        temporaryURL = nil
        return true
    }
}
