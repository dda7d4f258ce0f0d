import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A piece of a replayable request body: bytes in memory, or a file read as it is sent.
enum BodySegment: Sendable {
    case bytes(Data)
    /// A file and its length when it is a regular file (taken when the request is sent); `nil`
    /// for another kind of file, read to its end.
    case file(URL, length: Int64?)

    var length: Int64? {
        switch self {
        case .bytes(let data): return Int64(data.count)
        case .file(_, let length): return length
        }
    }

    /// The length of `segments` one after another, when each is known (and the sum fits).
    static func totalLength(_ segments: [BodySegment]) -> Int64? {
        var total: Int64 = 0
        for segment in segments {
            guard let length = segment.length else { return nil }
            let (sum, overflow) = total.addingReportingOverflow(length)
            if overflow { return nil }
            total = sum
        }
        return total
    }
}

/// Reads a replayable body — bytes and files one after another — straight into the engine's
/// buffer: a file is never read into memory, and only the one being read is open. Rewinding starts
/// again from the first segment.
///
/// A file of known length is read to exactly that length: one that has grown since is cut there
/// (the length was announced), one that has shrunk fails the call (``HotPotatoError/Code/invalidRequest``
/// with its `path`) rather than send fewer bytes than announced.
final class SegmentedBodyReader: BodyReader, @unchecked Sendable {
    let length: Int64?
    private let segments: [BodySegment]
    private let lock = NSLock()
    // Guarded by `lock`.
    private var index = 0
    private var offset: Int64 = 0
    private var descriptor: Int32 = -1
    private var handedOut: Int64 = 0
    private var closed = false

    init(_ segments: [BodySegment]) {
        self.segments = segments
        length = BodySegment.totalLength(segments)
    }

    deinit {
        if descriptor >= 0 { _ = try? POSIXFile.close(descriptor) }
    }

    var bytesRead: Int64 { lock.withLock { handedOut } }

    func read(into buffer: UnsafeMutableRawBufferPointer, wake: @escaping @Sendable () -> Void) -> BodyReadResult {
        lock.lock()
        defer { lock.unlock() }
        guard !closed else { return .failure(HotPotatoError(.cancelled, reason: "The request body was closed.")) }
        var filled = 0
        while filled < buffer.count, index < segments.count {
            let space = UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])
            switch segments[index] {
            case .bytes(let data):
                let count = min(space.count, data.count - Int(offset))
                data.withUnsafeBytes { bytes in
                    let start = Int(offset)
                    space.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[start..<start + count]))
                }
                filled += count
                advance(by: count, segmentLength: Int64(data.count))
            case .file(let url, let length):
                switch readFile(url, length: length, into: space) {
                case .success(let count):
                    filled += count
                    // A short read (a pipe, or the file's end): hand over what there is.
                    if count > 0 && count < space.count { return finish(filled) }
                case .failure(let error):
                    closeFile()
                    return .failure(error)
                }
            }
        }
        return filled > 0 ? finish(filled) : .end
    }

    func rewind() -> Bool {
        lock.withLock {
            guard !closed else { return false }
            closeFile()
            index = 0
            offset = 0
            handedOut = 0
            return true
        }
    }

    func close() {
        lock.withLock {
            closed = true
            closeFile()
        }
    }

    // MARK: - Private (under the lock)

    private func finish(_ count: Int) -> BodyReadResult {
        handedOut += Int64(count)
        return .bytes(count)
    }

    private func advance(by count: Int, segmentLength: Int64?) {
        offset += Int64(count)
        if let segmentLength, offset >= segmentLength { nextSegment() }
    }

    private func nextSegment() {
        closeFile()
        index += 1
        offset = 0
    }

    private func closeFile() {
        if descriptor >= 0 { _ = try? POSIXFile.close(descriptor) }
        descriptor = -1
    }

    /// Reads the current file segment into `space`: how many bytes (0 only once the segment is
    /// done, when the next one is current).
    private func readFile(_ url: URL, length: Int64?, into space: UnsafeMutableRawBufferPointer) -> Result<Int, HotPotatoError> {
        if descriptor < 0 {
            descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
            if descriptor < 0 { return .failure(.unreadableBodyFile(url, underlying: POSIXFile.currentError())) }
        }
        let wanted = length.map { min(Int64(space.count), $0 - offset) } ?? Int64(space.count)
        guard wanted > 0 else {
            nextSegment()
            return .success(0)
        }
        let got = readDescriptor(descriptor, space.baseAddress, Int(wanted))
        if got < 0 { return .failure(.unreadableBodyFile(url, underlying: POSIXFile.currentError())) }
        if got == 0 {
            if let length, offset < length {
                return .failure(.file(
                    .invalidRequest,
                    "The body file \(url.path) became shorter while it was sent: it ended after \(offset) of the "
                        + "\(length) bytes announced.",
                    path: url.path))
            }
            nextSegment()
            return .success(0)
        }
        advance(by: got, segmentLength: length)
        return .success(got)
    }
}

/// `read(2)`, retried after an interruption.
private func readDescriptor(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    var got: Int
    repeat {
        got = read(descriptor, buffer, count)
    } while got < 0 && errno == EINTR
    return got
}
