import Foundation

/// A request body that libcurl reads through its read callback: bytes in memory, or a file read
/// as it is sent. Seekable, so that libcurl can rewind it (to send it again on a new connection).
/// A redirect that sends the body again makes a new one, which starts from the first byte.
final class CurlRequestBody {
    private enum Source {
        case data(Data)
        case file(FileHandle)
    }

    private let source: Source
    private var offset = 0
    let length: Int64

    init(data: Data) {
        source = .data(data)
        length = Int64(data.count)
    }

    init(file url: URL) throws(HotPotatoError) {
        do {
            let handle = try FileHandle(forReadingFrom: url)
            let size = try handle.seekToEnd()
            try handle.seek(toOffset: 0)
            source = .file(handle)
            length = Int64(size)
        } catch {
            throw HotPotatoError.unreadableBodyFile(url, underlying: error)
        }
    }

    deinit {
        if case .file(let handle) = source { try? handle.close() }
    }

    /// Copies the next bytes into `buffer`; returns how many (0 at the end).
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        switch source {
        case .data(let data):
            let count = min(buffer.count, data.count - offset)
            guard count > 0 else { return 0 }
            data.withUnsafeBytes { bytes in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
            }
            offset += count
            return count
        case .file(let handle):
            let chunk = try handle.read(upToCount: buffer.count) ?? Data()
            chunk.withUnsafeBytes { buffer.copyMemory(from: $0) }
            offset += chunk.count
            return chunk.count
        }
    }

    func seek(to position: Int64) throws {
        switch source {
        case .data(let data):
            guard position >= 0, position <= Int64(data.count) else { throw POSIXError(.EINVAL) }
        case .file(let handle):
            try handle.seek(toOffset: UInt64(position))
        }
        offset = Int(position)
    }
}
