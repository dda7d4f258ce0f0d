import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A resumable download's hold on its partial file: the open, exclusively locked descriptor
/// (see ``PartialDownload/acquire()``). The lock lasts until ``release()`` (or the lease goes
/// away), so a second download to the same destination fails at once instead of writing into the
/// same file.
final class PartialLease {
    /// The partial file, open for reading and writing.
    let descriptor: Int32
    /// Its size when the lease was taken.
    let sizeAtStart: Int64
    private var released = false

    init(descriptor: Int32, size: Int64) {
        self.descriptor = descriptor
        sizeAtStart = size
    }

    deinit {
        release()
    }

    /// The file's size now.
    func currentSize() -> Int64? {
        (try? POSIXFile.status(descriptor)).map { Int64($0.st_size) }
    }

    /// Empties the file, to start the download over.
    func truncate() throws {
        if ftruncate(descriptor, 0) != 0 { throw POSIXFile.currentError() }
        if lseek(descriptor, 0, SEEK_SET) < 0 { throw POSIXFile.currentError() }
    }

    /// Positions writes at the end, after checking that the file still holds `expectedSize` bytes.
    func appendAfter(_ expectedSize: Int64) throws {
        guard currentSize() == expectedSize else { throw POSIXError(.ESTALE) }
        if lseek(descriptor, 0, SEEK_END) < 0 { throw POSIXFile.currentError() }
    }

    /// Closes the descriptor, which releases the lock. Idempotent.
    func release() {
        guard !released else { return }
        released = true
        _ = try? POSIXFile.close(descriptor)
    }
}
