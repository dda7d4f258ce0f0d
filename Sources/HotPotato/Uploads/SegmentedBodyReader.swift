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
/// (the length was announced, and a byte past it would be read by the server as the start of
/// another request), one that has shrunk fails the call (``HotPotatoError/Code/bodyFileChanged``
/// with its `path`) rather than send fewer bytes than announced.
///
/// Every file is opened without blocking (`O_NONBLOCK`): a FIFO or a device is read only once it
/// has bytes or its end (`poll`), and until then the read answers ``BodyReadResult/wouldBlock``
/// and calls `wake` a little later (``notReadyRetry``) to be asked again — so a FIFO without a
/// writer, or a silent one, holds the body back without blocking a thread, and the caller's idle
/// timeout applies to it as to a response that does not come.
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
                case .bytes(let count):
                    filled += count
                    // A short read (a pipe, or the file's end): hand over what there is.
                    if count < space.count { return finish(filled) }
                case .segmentDone:
                    continue
                case .notReady:
                    if filled > 0 { return finish(filled) }
                    DispatchQueue.global().asyncAfter(deadline: .now() + Self.notReadyRetry, execute: wake)
                    return .wouldBlock
                case .failure(let error):
                    closeFile()
                    return .failure(error)
                }
            }
        }
        return filled > 0 ? finish(filled) : .end
    }

    /// How long after a FIFO (or device) had nothing to read it is looked at again.
    static let notReadyRetry: DispatchTimeInterval = .milliseconds(10)

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

    /// What one read of a file segment gave.
    private enum FileRead {
        /// This many bytes (never 0).
        case bytes(Int)
        /// The segment is done; the next one is current.
        case segmentDone
        /// A FIFO or a device with nothing to read yet (and no end).
        case notReady
        case failure(HotPotatoError)
    }

    /// Reads the current file segment into `space`.
    private func readFile(_ url: URL, length: Int64?, into space: UnsafeMutableRawBufferPointer) -> FileRead {
        if descriptor < 0 {
            switch openFile(url, length: length) {
            case .success(let opened): descriptor = opened
            case .failure(let error): return .failure(error)
            }
        }
        let wanted = length.map { min(Int64(space.count), $0 - offset) } ?? Int64(space.count)
        guard wanted > 0 else {
            nextSegment()
            return .segmentDone
        }
        // A FIFO or a device: read only once it has bytes or its end. (A FIFO whose writer has not
        // come yet reads as its end, without blocking; `poll` tells the two apart.)
        if length == nil, !Self.isReadable(descriptor) { return .notReady }
        let got = readDescriptor(descriptor, space.baseAddress, Int(wanted))
        if got < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK { return .notReady }
            return .failure(.unreadableBodyFile(url, underlying: POSIXFile.currentError()))
        }
        if got == 0 {
            if let length, offset < length { return .failure(.bodyFileShrank(url, offset: offset, length: length)) }
            nextSegment()
            return .segmentDone
        }
        advance(by: got, segmentLength: length)
        return .bytes(got)
    }

    /// Opens a file segment without blocking. A file measured as a regular file must still be
    /// one, at least as long as it was measured: replaced by a FIFO, or shorter, it fails now.
    private func openFile(_ url: URL, length: Int64?) -> Result<Int32, HotPotatoError> {
        let opened = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if opened < 0 { return .failure(.unreadableBodyFile(url, underlying: POSIXFile.currentError())) }
        guard let length else { return .success(opened) }
        var status = stat()
        guard fstat(opened, &status) == 0 else {
            let error = POSIXFile.currentError()
            _ = try? POSIXFile.close(opened)
            return .failure(.unreadableBodyFile(url, underlying: error))
        }
        let size = Int64(status.st_size)
        guard (status.st_mode & S_IFMT) == S_IFREG, size >= length else {
            _ = try? POSIXFile.close(opened)
            return .failure(.bodyFileShrank(url, offset: (status.st_mode & S_IFMT) == S_IFREG ? size : 0, length: length))
        }
        return .success(opened)
    }

    /// Whether reading `descriptor` now gives bytes or the end, rather than waiting: `poll`
    /// reports input, a hang-up (the last writer of a FIFO has gone) or an error.
    private static func isReadable(_ descriptor: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var result: Int32
        repeat {
            result = poll(&entry, 1, 0)
        } while result < 0 && errno == EINTR
        return result != 0
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
