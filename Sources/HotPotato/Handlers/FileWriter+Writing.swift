import Foundation

/// Writing: small chunks gathered into larger writes, each write checked, and the errors about
/// the file built with its path.
extension FileWriter {
    /// Writes the gathered small chunks, if any.
    func flush() throws {
        guard coalescedCount > 0, let buffer = coalescing else { return }
        let count = coalescedCount
        coalescedCount = 0
        try write(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
    }

    /// The gathering buffer with room for `count` more bytes (fewer than
    /// ``directWriteThreshold``), after writing what it holds if it is full: 64 KiB until a MiB
    /// is on disk, then 256 KiB.
    func coalescingBuffer(adding count: Int) throws -> UnsafeMutableRawBufferPointer {
        if let buffer = coalescing {
            if coalescedCount + count <= buffer.count { return buffer }
            try flush()
            if buffer.count >= Self.coalescingCapacity || bytesOnDisk < Self.coalescingGrowthPoint { return buffer }
            buffer.deallocate()
            coalescing = nil
        }
        let capacity = bytesOnDisk < Self.coalescingGrowthPoint ? Self.initialCoalescingCapacity : Self.coalescingCapacity
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        coalescing = buffer
        return buffer
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        do {
            try POSIXFile.writeAll(descriptor, bytes)
        } catch {
            throw HotPotatoError.file(
                .writeFailed, "Writing to \(temporaryURL?.path ?? destination.path) failed: \(error)",
                path: temporaryURL?.path ?? destination.path, byteOffset: bytesOnDisk, head: head, underlying: error)
        }
        bytesOnDisk += Int64(bytes.count)
        digester?.advance(to: bytesOnDisk)
    }

    /// With a ``checksum``, waits for the file's digest and throws
    /// ``HotPotatoError/Code/checksumMismatch`` unless it matches; a resumable download's partial
    /// state is then discarded, so that the next attempt starts over.
    func verifyChecksum() throws {
        guard let checksum, let digester else { return }
        self.digester = nil
        switch digester.finish(size: bytesOnDisk) {
        case .success(let actual) where actual == checksum:
            return
        case .success(let actual):
            discardsPartial = true
            var error = fileError(
                .checksumMismatch,
                "The downloaded file's \(checksum.algorithm) is \(actual.hex), not \(checksum.hex): it was not placed.",
                path: destination.path)
            error.expectedChecksum = checksum
            error.actualChecksum = actual
            throw error
        case .failure(let error):
            throw error
        }
    }

    func releaseBuffer() {
        coalescing?.deallocate()
        coalescing = nil
        coalescedCount = 0
    }

    func fileError(
        _ code: HotPotatoError.Code, _ reason: String, path: String?, underlying: (any Error)? = nil
    ) -> HotPotatoError {
        .file(code, reason, path: path, head: head, underlying: underlying)
    }
}
