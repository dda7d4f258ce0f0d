import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Computes the digest of a file while it is being written, on a thread of its own, reading back
/// what the writer has put on disk (from the page cache): the download's thread never waits for
/// the hashing, and a file that already held bytes (a resumed download) is hashed from its first
/// byte. The writer reports each new size with ``advance(to:)``; ``finish(size:)`` waits for
/// the rest and returns the digest.
///
/// Reading back rather than hashing each chunk as it is written keeps the digest off the
/// download's thread: SHA-256 runs at about the speed of a loopback download (1.4 GB/s here), so
/// hashing in line would halve it, and the digest would miss bytes already on disk.
final class FileDigester: @unchecked Sendable {
    /// How much is read at a time.
    static let blockSize = 1 << 20

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var available: Int64 = 0
    private var finished = false
    private var cancelled = false
    private var outcome: Result<Checksum, HotPotatoError>?

    /// Starts digesting the file open at `descriptor` (readable), whose first `size` bytes are
    /// written already; the descriptor is duplicated and may be closed once ``finish(size:)`` or
    /// ``cancel()`` returns. Throws when the algorithm has no implementation here or the
    /// descriptor cannot be duplicated.
    init(_ algorithm: Checksum.Algorithm, descriptor: Int32, size: Int64, path: String?) throws(HotPotatoError) {
        guard let digest = Digest(algorithm) else { throw Self.unavailable(algorithm) }
        let reader = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard reader >= 0 else {
            let error = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            throw HotPotatoError.file(
                .fileSystemError, "The file could not be opened for its checksum: \(error)", path: path, underlying: error)
        }
        available = size
        let box = UncheckedSendable(digest)
        let thread = Thread { [self] in run(box.value, reader: reader, path: path) }
        thread.name = "HotPotato.checksum"
        thread.start()
    }

    /// The error for an algorithm without an implementation here.
    static func unavailable(_ algorithm: Checksum.Algorithm) -> HotPotatoError {
        let why = Digest.unavailabilityReason ?? "this system's implementation does not offer it"
        return HotPotatoError(.checksumUnavailable, reason: "A \(algorithm.name) checksum cannot be computed here: \(why).")
    }

    /// The writer has `size` bytes on disk.
    func advance(to size: Int64) {
        condition.lock()
        available = size
        condition.signal()
        condition.unlock()
    }

    /// Waits until the file's first `size` bytes are digested; their checksum, or why not.
    func finish(size: Int64) -> Result<Checksum, HotPotatoError> {
        condition.lock()
        defer { condition.unlock() }
        available = size
        finished = true
        condition.signal()
        while outcome == nil { condition.wait() }
        return outcome!
    }

    /// Stops digesting; the thread lets go of its descriptor as soon as its current read ends.
    func cancel() {
        condition.lock()
        cancelled = true
        condition.signal()
        condition.unlock()
    }

    private func run(_ digest: Digest, reader: Int32, path: String?) {
        defer { _ = close(reader) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.blockSize, alignment: 64)
        defer { buffer.deallocate() }
        var digested: Int64 = 0
        while true {
            condition.lock()
            while !cancelled, !finished, digested >= available { condition.wait() }
            let target = available
            let done = finished
            if cancelled {
                outcome = outcome ?? .failure(HotPotatoError(.cancelled, reason: "The checksum was not needed any more."))
                condition.broadcast()
                condition.unlock()
                return
            }
            condition.unlock()
            while digested < target {
                let want = Int(min(Int64(buffer.count), target - digested))
                let got = pread(reader, buffer.baseAddress, want, off_t(digested))
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else {
                    let error = POSIXError(POSIXErrorCode(rawValue: got < 0 ? errno : EIO) ?? .EIO)
                    conclude(.failure(.file(
                        .fileSystemError, "Reading the file back for its checksum failed at byte \(digested): \(error)",
                        path: path, underlying: error)))
                    return
                }
                guard digest.update(UnsafeRawBufferPointer(rebasing: buffer[..<got])) else {
                    conclude(.failure(HotPotatoError(.checksumUnavailable, reason: "The checksum implementation failed.")))
                    return
                }
                digested += Int64(got)
            }
            if done {
                if let checksum = digest.finish() {
                    conclude(.success(checksum))
                } else {
                    conclude(.failure(HotPotatoError(.checksumUnavailable, reason: "The checksum implementation failed.")))
                }
                return
            }
        }
    }

    private func conclude(_ result: Result<Checksum, HotPotatoError>) {
        condition.lock()
        outcome = result
        condition.broadcast()
        condition.unlock()
    }
}
