import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An anonymous temporary file that holds body bytes a slow handler has not taken yet: appended
/// at one end, read at the other. It never has a name (`O_TMPFILE`) where the system allows, and
/// is otherwise unlinked as soon as it is created, so nothing is left behind even if the process
/// dies.
///
/// Not thread-safe by itself: callers serialise ``append(_:)`` and the offset bookkeeping, and may
/// read the region below ``writeOffset`` concurrently with an append, since appends never touch it.
final class SpillFile: @unchecked Sendable {
    private let descriptor: Int32
    private(set) var writeOffset: Int64 = 0
    private(set) var readOffset: Int64 = 0

    init() throws {
        let directory = FileManager.default.temporaryDirectory.path
        if let anonymous = try POSIXFile.openAnonymous(in: directory) {
            descriptor = anonymous
            return
        }
        var lastError: (any Error)?
        for _ in 0..<8 {
            let path = directory + "/.hotpotato-spill-\(UInt64.random(in: 0...UInt64.max)).tmp"
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 {
                unlink(path)
                descriptor = fd
                return
            }
            lastError = POSIXFile.currentError()
        }
        throw lastError ?? POSIXError(.EIO)
    }

    deinit {
        _ = try? POSIXFile.close(descriptor)
    }

    /// The bytes written but not read yet.
    var pending: Int64 { writeOffset - readOffset }

    func append(_ chunk: Data) throws {
        try chunk.withUnsafeBytes { buffer in
            guard var base = buffer.baseAddress else { return }
            var remaining = buffer.count
            var offset = writeOffset
            while remaining > 0 {
                let written = pwrite(descriptor, base, remaining, off_t(offset))
                if written < 0 {
                    if errno == EINTR { continue }
                    throw POSIXFile.currentError()
                }
                base += written
                remaining -= written
                offset += Int64(written)
            }
        }
        writeOffset += Int64(chunk.count)
    }

    /// Reads `count` bytes at `offset` (which must be below ``writeOffset``).
    func read(at offset: Int64, count: Int) throws -> Data {
        var data = Data(count: count)
        try data.withUnsafeMutableBytes { buffer in
            guard var base = buffer.baseAddress else { return }
            var remaining = count
            var position = offset
            while remaining > 0 {
                let got = pread(descriptor, base, remaining, off_t(position))
                if got < 0 {
                    if errno == EINTR { continue }
                    throw POSIXFile.currentError()
                }
                if got == 0 { throw POSIXError(.EIO) }
                base += got
                remaining -= got
                position += Int64(got)
            }
        }
        return data
    }

    /// Marks `count` bytes as read; once everything is read, the file is emptied.
    func consume(_ count: Int) {
        readOffset += Int64(count)
        if readOffset == writeOffset {
            readOffset = 0
            writeOffset = 0
            _ = ftruncate(descriptor, 0)
        }
    }
}
