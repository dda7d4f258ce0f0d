import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The partial state a resumable ``FileWriter`` keeps beside its destination, so that a download
/// interrupted by a failure, a cancellation, a crash or Ctrl-C can be continued:
///
/// - `.<name>.hotpotato-partial` — the body bytes received so far, always a prefix of the body
///   (written in order, never ahead);
/// - `.<name>.hotpotato-partial.json` — the URL it came from and the response's validator
///   (a strong `ETag`, else `Last-Modified`), written once the response is accepted and before
///   its first byte.
///
/// (For a name too long to add these suffixes to, `<name>` is shortened with a hash: see
/// ``AuxiliaryFileName``.)
///
/// Both are trusted only when they are private to the current user (see
/// ``POSIXFile/isPrivate(_:)``): a file planted by someone else in a shared directory, a symbolic
/// link or a hard link is discarded, never appended to or read. One writer at a time holds the
/// partial file, through an exclusive lock (``acquire()``).
struct PartialDownload {
    /// What is recorded about the response the partial bytes came from.
    struct Info: Codable, Equatable {
        var url: String?
        var etag: String?
        var lastModified: String?
        /// For a download over several connections: the file's size, and the ranges of it on
        /// disk as `[start, end)` pairs (the partial file has holes between them). `nil` for a
        /// partial file that is a prefix of the body.
        var length: Int64?
        var done: [[Int64]]?
        /// For a partial file that is a prefix of the body: the body's length as the response that
        /// began it declared it (a `200`'s `Content-Length`, a `206`'s complete length), when it
        /// did. A `416` that calls a shorter partial file whole contradicts it.
        var declaredLength: Int64?

        /// The value to send as `If-Range`, when there is one.
        var validator: String? { etag ?? lastModified }

        /// ``done`` as ranges, when the record has them and they are well formed.
        var doneRanges: [Range<Int64>]? {
            guard let done, let length else { return nil }
            var ranges: [Range<Int64>] = []
            for pair in done {
                guard pair.count == 2, pair[0] >= 0, pair[0] <= pair[1], pair[1] <= length else { return nil }
                ranges.append(pair[0]..<pair[1])
            }
            return ranges
        }
    }

    /// The partial file is being written by another download; nothing was changed.
    struct Busy: Error {}

    let dataURL: URL
    let infoURL: URL

    init(destination: URL) {
        let directory = destination.deletingLastPathComponent()
        dataURL = directory.appendingPathComponent(
            AuxiliaryFileName.name(for: destination.lastPathComponent, suffix: ".hotpotato-partial"))
        infoURL = directory.appendingPathComponent(
            AuxiliaryFileName.name(for: destination.lastPathComponent, suffix: ".hotpotato-partial.json"))
    }

    /// The size of the partial data file, when it is a regular file (never through a link).
    func dataSize() -> Int64? {
        guard let status = POSIXFile.linkStatus(dataURL.path), (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(status.st_size)
    }

    /// The recorded info, when it is there, private and readable.
    func loadInfo() -> Info? {
        guard let data = POSIXFile.readPrivate(infoURL.path, limit: 64 * 1024) else { return nil }
        return try? JSONDecoder().decode(Info.self, from: data)
    }

    /// Records `info`: written beside the record (`….json.new`, private, created afresh) and
    /// renamed over it, so that a reader — or a crash, or `kill -9` — finds the old record or the
    /// new one, never one cut short (a download over several connections saves it twice a
    /// second). Only the holder of the partial file's lock writes the record.
    func saveInfo(_ info: Info) throws {
        let data = try JSONEncoder().encode(info)
        let staging = infoURL.path + ".new"
        POSIXFile.remove(staging)
        let descriptor = open(staging, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXFile.currentError() }
        do {
            try data.withUnsafeBytes { try POSIXFile.writeAll(descriptor, $0) }
        } catch {
            _ = try? POSIXFile.close(descriptor)
            POSIXFile.remove(staging)
            throw error
        }
        do {
            try POSIXFile.close(descriptor)
            try POSIXFile.rename(staging, to: infoURL.path)
        } catch {
            POSIXFile.remove(staging)
            throw error
        }
    }

    /// Takes the partial file for this download: opens it (creating it empty, 0600, if there is
    /// none), locks it exclusively, and checks that the lock is on the file now at that name.
    /// Anything there that is not private (see ``POSIXFile/isPrivate(_:)``) is removed with its
    /// record first, and a fresh file made.
    ///
    /// - Returns: The lease, or `nil` when the name is held by something that cannot be removed
    ///   (another user's file in a shared directory): the download then cannot keep a partial.
    /// - Throws: ``Busy`` when another download holds the lock; a `POSIXError` when the
    ///   directory cannot be used.
    func acquire() throws -> PartialLease? {
        let path = dataURL.path
        for _ in 0..<8 {
            var descriptor: Int32
            do {
                guard let opened = try POSIXFile.openPrivate(path) else {
                    // Not ours to trust: remove it (and the record that went with it), start fresh.
                    guard unlink(path) == 0 || errno == ENOENT else { return nil }
                    POSIXFile.remove(infoURL.path)
                    continue
                }
                descriptor = opened.descriptor
            } catch {
                descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
                if descriptor < 0 {
                    if errno == EEXIST { continue }
                    throw POSIXFile.currentError()
                }
            }
            do {
                guard try Self.lock(descriptor) else { throw Busy() }
                // The name may have moved on between open and lock (placed, discarded, replaced).
                let locked = try POSIXFile.status(descriptor)
                guard let current = POSIXFile.linkStatus(path), POSIXFile.sameFile(locked, current),
                      POSIXFile.isPrivate(locked) else {
                    _ = try? POSIXFile.close(descriptor)
                    continue
                }
                return PartialLease(descriptor: descriptor, size: Int64(locked.st_size))
            } catch {
                _ = try? POSIXFile.close(descriptor)
                throw error
            }
        }
        return nil
    }

    /// Takes the partial file's lock, waiting up to a tenth of a second for it: a process forked
    /// meanwhile (by this process, to run another program) holds a copy of every descriptor, and
    /// of the lock with it, until it has started that program — a moment, not a download.
    private static func lock(_ descriptor: Int32) throws -> Bool {
        let deadline = DispatchTime.now().uptimeNanoseconds + 100_000_000
        while true {
            if try POSIXFile.tryLock(descriptor) { return true }
            if DispatchTime.now().uptimeNanoseconds >= deadline { return false }
            usleep(5_000)
        }
    }

    /// Removes the data file and the record.
    func discard() {
        POSIXFile.remove(dataURL.path)
        POSIXFile.remove(infoURL.path)
        POSIXFile.remove(infoURL.path + ".new")
    }

    /// The validator of `head` worth recording: a strong `ETag`, else `Last-Modified`; none for
    /// a content-encoded body, whose bytes as stored (decoded by URLSession) are not the bytes a
    /// `Range` counts, so that such a partial is never continued.
    static func info(for head: ResponseHead, url: String?) -> Info {
        var info = Info(url: url)
        guard head.contentEncodings.isEmpty else { return info }
        if let etag = head.headers["ETag"], !etag.hasPrefix("W/") {
            info.etag = etag
        } else if let lastModified = head.headers["Last-Modified"] {
            info.lastModified = lastModified
        }
        if head.status == 206 {
            info.declaredLength = ContentRange(parsing: head.headers["Content-Range"])?.completeLength
        } else {
            info.declaredLength = head.contentLength
        }
        return info
    }

    /// Whether `head` carries the validator recorded in `info`.
    static func head(_ head: ResponseHead, matches info: Info) -> Bool {
        if let etag = info.etag { return head.headers["ETag"] == etag }
        if let lastModified = info.lastModified { return head.headers["Last-Modified"] == lastModified }
        return false
    }
}
