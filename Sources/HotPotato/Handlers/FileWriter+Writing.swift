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

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        do {
            try POSIXFile.writeAll(descriptor, bytes)
        } catch {
            throw HotPotatoError.file(
                .writeFailed, "Writing to \(temporaryURL?.path ?? destination.path) failed: \(error)",
                path: temporaryURL?.path ?? destination.path, byteOffset: bytesOnDisk, head: head, underlying: error)
        }
        bytesOnDisk += Int64(bytes.count)
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
