import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A replayable request body copied whole for the URLSession engine: FoundationNetworking announces
/// a `Content-Length` only for an `httpBody` or a file it uploads (a stream goes chunked, and with a
/// `Content-Length` header of ours it would send both), so a multipart form is copied into memory
/// when it is small (``inMemoryLimit``), else into a temporary file that is removed when the last
/// request sending it lets go of it (a crash can leave it in the temporary directory, named
/// `.hotpotato-upload-….tmp`).
final class UploadSpool: Sendable {
    /// The largest body of known length copied into memory rather than a file.
    static let inMemoryLimit: Int64 = 1 << 20
    /// How much is copied at a time.
    static let copySize = 256 * 1024

    let url: URL

    private init(url: URL) {
        self.url = url
    }

    deinit {
        POSIXFile.remove(url.path)
    }

    /// Whether the URLSession engine copies `body` before sending it: a replayable body that is
    /// not one regular file (which FoundationNetworking uploads itself).
    static func isNeeded(for body: RequestBody) -> Bool {
        body.isReplayable && body.wholeFile == nil
    }

    /// Whether `body` is copied into memory rather than into a file.
    static func fitsInMemory(_ body: RequestBody) -> Bool {
        body.length.map { $0 <= inMemoryLimit } ?? false
    }

    /// The bytes of a small body.
    static func bytes(of body: RequestBody) throws(HotPotatoError) -> Data {
        var data = Data()
        try copy(body, shouldStop: { false }) { bytes throws(HotPotatoError) in data.append(contentsOf: bytes) }
        return data
    }

    /// A body of one temporary file with the bytes of `body`, written now (this blocks: call it off
    /// the caller's thread); `shouldStop` is asked between writes.
    /// - Throws: what reading `body` throws, ``HotPotatoError/Code/fileSystemError`` when the file
    ///   cannot be written, ``HotPotatoError/Code/cancelled`` when `shouldStop` said so.
    static func file(of body: RequestBody, shouldStop: () -> Bool) throws(HotPotatoError) -> RequestBody {
        let directory = FileManager.default.temporaryDirectory.path
        let path = directory + "/.hotpotato-upload-\(UInt64.random(in: 0...UInt64.max)).tmp"
        let descriptor: Int32
        do {
            descriptor = try POSIXFile.createExclusive(path)
        } catch {
            throw .file(.fileSystemError, "Copying the request body to a temporary file failed: \(error)", path: path, underlying: error)
        }
        let spool = UploadSpool(url: URL(fileURLWithPath: path))
        defer { _ = try? POSIXFile.close(descriptor) }
        var written: Int64 = 0
        try copy(body, shouldStop: shouldStop) { bytes throws(HotPotatoError) in
            do {
                try POSIXFile.writeAll(descriptor, bytes)
            } catch {
                throw .file(.fileSystemError, "Copying the request body to a temporary file failed: \(error)", path: path, underlying: error)
            }
            written += Int64(bytes.count)
        }
        return RequestBody(segments: [.file(spool.url, length: written)], keeping: spool)
    }

    /// Reads `body` from its first byte to its end into `consume`, a buffer at a time.
    private static func copy(
        _ body: RequestBody, shouldStop: () -> Bool, into consume: (UnsafeRawBufferPointer) throws(HotPotatoError) -> Void
    ) throws(HotPotatoError) {
        let reader = try body.makeReader()
        defer { reader.close() }
        let reading = BlockingBodyRead(reader)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: copySize, alignment: 1)
        defer { buffer.deallocate() }
        while true {
            switch reading.read(into: buffer, shouldStop: shouldStop) {
            case .bytes(let count)?:
                try consume(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
                if shouldStop() { throw HotPotatoError(.cancelled, reason: "The request was cancelled.") }
            case .end?:
                return
            case .failure(let error)?:
                throw error
            case .wouldBlock?, nil:
                throw HotPotatoError(.cancelled, reason: "The request was cancelled.")
            }
        }
    }
}
