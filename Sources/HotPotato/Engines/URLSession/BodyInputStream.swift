import Foundation

/// A request body as FoundationNetworking reads it: an `InputStream` over a ``BodyReader``.
///
/// FoundationNetworking reads a body stream on its session's work queue, from libcurl's read
/// callback, and ends the body the first time the stream has no bytes available; so this stream
/// always has bytes available until its end, and a read waits (see ``BlockingBodyRead``) while a
/// one-shot producer makes its next element — until the call is settled, the transfer stopped, or
/// the idle timeout passes. A failed read returns -1 and keeps its reason in ``failure`` for the
/// transfer to report.
final class BodyInputStream: InputStream {
    private let reading: BlockingBodyRead?
    private let shouldStop: @Sendable () -> Bool
    private let idleTimeout: TimeInterval
    private let lock = NSLock()
    // Guarded by `lock`.
    private var status = Stream.Status.notOpen
    private var storedFailure: HotPotatoError?
    private var reachedEnd = false
    private var lastActivity = Date()

    /// - Parameters:
    ///   - reader: The body's reader, or why there is none (the stream then fails at once).
    ///   - idleTimeout: How long a read may wait for the producer.
    ///   - shouldStop: Whether to give up waiting (the call is settled or the task stopped).
    init(reader: Result<any BodyReader, HotPotatoError>, idleTimeout: TimeInterval, shouldStop: @escaping @Sendable () -> Bool) {
        switch reader {
        case .success(let reader):
            reading = BlockingBodyRead(reader)
        case .failure(let error):
            reading = nil
            storedFailure = error
        }
        self.idleTimeout = idleTimeout > 0 ? idleTimeout : .infinity
        self.shouldStop = shouldStop
        super.init(data: Data())
    }

    /// Why the body could not be read, if it could not.
    var failure: HotPotatoError? { lock.withLock { storedFailure } }

    /// Whether the body has been read to its end.
    var isAtEnd: Bool { lock.withLock { reachedEnd } }

    /// The bytes handed to FoundationNetworking so far.
    var bytesRead: Int64 { reading?.reader.bytesRead ?? 0 }

    /// Makes the next read fail with `error` (the body cannot go on).
    func fail(with error: HotPotatoError) {
        lock.withLock { if storedFailure == nil { storedFailure = error } }
    }

    /// Goes back to the body's first byte, when nothing was taken from it yet (see
    /// ``BodyReader/rewind()``).
    func rewind() -> Bool {
        guard reading?.reader.rewind() == true else { return false }
        lock.withLock {
            reachedEnd = false
            lastActivity = Date()
        }
        return true
    }

    /// Releases the reader (its files, its producer): the transfer is over.
    func closeReader() {
        reading?.reader.close()
    }

    override func open() {
        lock.withLock { if status == .notOpen { status = .open } }
    }

    override func close() {
        lock.withLock { status = .closed }
    }

    override var streamStatus: Stream.Status { lock.withLock { storedFailure != nil ? .error : status } }

    override var streamError: (any Error)? { failure }

    /// `true` until the end, and after a failure: FoundationNetworking ends the body (sends what it
    /// has as all of it) at the first `false`, while a read that fails makes it abort.
    override var hasBytesAvailable: Bool {
        lock.withLock { storedFailure != nil || (!reachedEnd && status == .open) }
    }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard let reading, failure == nil, length > 0 else { return -1 }
        let target = UnsafeMutableRawBufferPointer(start: buffer, count: length)
        var idle = false
        let result = reading.read(into: target) {
            idle = lock.withLock { -lastActivity.timeIntervalSinceNow > idleTimeout }
            return idle || shouldStop()
        }
        switch result {
        case .bytes(let count)?:
            lock.withLock { lastActivity = Date() }
            return count
        case .end?:
            lock.withLock { reachedEnd = true }
            return 0
        case .failure(let error)?:
            fail(with: error)
            return -1
        case .wouldBlock?, nil:
            if idle {
                fail(with: HotPotatoError(
                    .timedOut, reason: "The request timed out: the request body's stream produced nothing for "
                        + "\(URLSessionTransfer.seconds(idleTimeout)) s."))
            }
            return -1
        }
    }

    override func getBuffer(_ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length: UnsafeMutablePointer<Int>) -> Bool {
        false
    }
}
