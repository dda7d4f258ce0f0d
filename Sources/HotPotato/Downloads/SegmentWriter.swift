import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes one worker's bytes of a segmented download at their offsets in the shared file
/// (`pwrite` on a descriptor of its own), as far as its assignment goes; small chunks are
/// gathered into writes of up to 256 KiB, as ``FileWriter`` gathers them.
///
/// Used by one worker's handler calls, one after another (the handler lock of its transfer);
/// ``close()`` comes after the last.
final class SegmentWriter {
    let download: SegmentedDownload
    let worker: Int
    private var descriptor: Int32
    private let path: String?
    /// The file offset of the next byte to arrive.
    private(set) var offset: Int64
    /// The file offset up to which bytes are on disk.
    private var flushedOffset: Int64
    private var buffer: UnsafeMutableRawBufferPointer?
    private var buffered = 0
    static let bufferCapacity = 256 * 1024

    /// A writer for `worker`, whose bytes begin at `offset`, on a duplicate of `descriptor`.
    init(download: SegmentedDownload, worker: Int, descriptor: Int32, offset: Int64, path: String?) throws {
        let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
        guard duplicate >= 0 else { throw POSIXFile.currentError() }
        self.download = download
        self.worker = worker
        self.descriptor = duplicate
        self.path = path
        self.offset = offset
        flushedOffset = offset
    }

    deinit {
        buffer?.deallocate()
        if descriptor >= 0 { _ = try? POSIXFile.close(descriptor) }
    }

    /// Writes what the assignment still wants of `bytes`; returns `false` once it wants no more
    /// (the worker's part is done: stop its transfer). Bytes are never skipped: a claim that
    /// falls short of `bytes` means the worker is finished, and the rest of them are not its own.
    func write(_ bytes: UnsafeRawBufferPointer) throws -> Bool {
        let (granted, finished) = download.claim(worker, count: bytes.count)
        assert(granted == bytes.count || finished, "a worker's claim fell short while it has more to claim")
        if granted > 0 {
            let part = UnsafeRawBufferPointer(rebasing: bytes[..<granted])
            if granted >= FileWriter.directWriteThreshold {
                try flush()
                try put(part)
            } else {
                let buffer = self.buffer ?? UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferCapacity, alignment: 16)
                self.buffer = buffer
                if buffered + granted > buffer.count { try flush() }
                UnsafeMutableRawBufferPointer(rebasing: buffer[buffered...]).copyMemory(from: part)
                buffered += granted
                offset += Int64(granted)
            }
        }
        if finished {
            try flush()
            return false
        }
        return true
    }

    /// Writes the gathered bytes, if any.
    func flush() throws {
        guard buffered > 0, let buffer else { return }
        let count = buffered
        buffered = 0
        do {
            try POSIXFile.writeAll(descriptor, UnsafeRawBufferPointer(rebasing: buffer[..<count]), at: flushedOffset)
        } catch {
            throw writeFailed(error)
        }
        flushedOffset += Int64(count)
        download.wrote(worker, upTo: flushedOffset)
    }

    /// Lets go of the buffer and the descriptor; gathered bytes not yet written are dropped (they
    /// are not counted as written, so another worker fetches them again).
    func close() {
        buffer?.deallocate()
        buffer = nil
        buffered = 0
        if descriptor >= 0 { _ = try? POSIXFile.close(descriptor) }
        descriptor = -1
    }

    private func put(_ bytes: UnsafeRawBufferPointer) throws {
        do {
            try POSIXFile.writeAll(descriptor, bytes, at: offset)
        } catch {
            throw writeFailed(error)
        }
        offset += Int64(bytes.count)
        flushedOffset = offset
        download.wrote(worker, upTo: flushedOffset)
    }

    private func writeFailed(_ error: any Error) -> HotPotatoError {
        .file(.writeFailed, "Writing to \(path ?? "the download's file") failed: \(error)", path: path, byteOffset: flushedOffset, underlying: error)
    }
}
