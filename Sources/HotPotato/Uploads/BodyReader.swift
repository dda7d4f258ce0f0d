import Foundation

/// What one read of a request body gave.
enum BodyReadResult {
    /// This many bytes were copied into the buffer (never 0).
    case bytes(Int)
    /// The body is complete.
    case end
    /// The next bytes are not there yet; `wake` will be called (see ``BodyReader``).
    case wouldBlock
    /// The body cannot be read further: the call fails with this error.
    case failure(HotPotatoError)
}

/// Reads a request body for an engine, one buffer at a time: the one interface through which both
/// engines read every body they stream (a file, a ``MultipartFormData``, an `AsyncSequence`, an
/// `InputStream`).
///
/// ## Call order
///
/// ``read(into:wake:)`` until it returns ``BodyReadResult/end`` or ``BodyReadResult/failure(_:)``,
/// then ``close()``, which must be called on every path (a failure, a cancel) and may be called
/// from any thread, more than once: it releases the body's files and ends a producer that is still
/// running. ``read(into:wake:)`` and ``rewind()`` are called by one thread at a time.
///
/// ## Blocking and non-blocking reads
///
/// `read` never waits for bytes that are not there yet. A replayable body (bytes and files) always
/// has its next bytes (a file read may wait for the disk, as any file read does). A one-shot
/// stream answers ``BodyReadResult/wouldBlock`` while its producer has not produced the next
/// element; it then calls `wake` once, from any thread — possibly before `read` has returned —
/// when reading again would make progress (bytes, the end or a failure) or the reader was closed.
///
/// - An engine thread that must never block (a libcurl multi thread) answers libcurl with
///   `CURL_READFUNC_PAUSE` and, from `wake`, hops to its own thread to unpause the transfer
///   (`curl_easy_pause` may only be called there) and read again.
/// - An engine thread that may block (the easy interface's worker, URLSession reading a body
///   stream) reads through ``BlockingBodyRead``, which waits for `wake` in short slices and asks
///   between them whether to give up (a cancelled call, an idle timeout).
///
/// ## Rewinding
///
/// ``rewind()`` goes back to the first byte, to send the body again (libcurl rewinds on a new
/// connection). A replayable body always can; a one-shot body only while nothing has been taken
/// from its source, when rewinding changes nothing.
protocol BodyReader: AnyObject, Sendable {
    /// The body's length when it is known before it is sent; `nil` sends it chunked.
    var length: Int64? { get }
    /// The bytes handed out since the first byte (or the last rewind).
    var bytesRead: Int64 { get }
    /// Copies the next bytes into `buffer` (which is never empty).
    func read(into buffer: UnsafeMutableRawBufferPointer, wake: @escaping @Sendable () -> Void) -> BodyReadResult
    /// Goes back to the first byte; `false` when the body cannot be sent again.
    func rewind() -> Bool
    /// Releases what the reader holds; later reads fail.
    func close()
}

/// Reads a ``BodyReader`` on a thread that may block: when the body has no bytes yet, waits for
/// its `wake` in slices of ``slice``, asking between them whether to give up.
struct BlockingBodyRead: Sendable {
    /// How long one wait lasts before the caller is asked whether to give up.
    static let slice: DispatchTimeInterval = .milliseconds(50)

    let reader: any BodyReader
    private let signal = DispatchSemaphore(value: 0)
    private let wake: @Sendable () -> Void

    init(_ reader: any BodyReader) {
        self.reader = reader
        let signal = signal
        wake = { signal.signal() }
    }

    /// The next bytes, the end or a failure — never ``BodyReadResult/wouldBlock`` — or `nil` when
    /// `shouldStop` said to give up while waiting.
    func read(into buffer: UnsafeMutableRawBufferPointer, shouldStop: () -> Bool) -> BodyReadResult? {
        while true {
            let result = reader.read(into: buffer, wake: wake)
            guard case .wouldBlock = result else { return result }
            // An extra signal (a wake after a close) only costs one more read.
            while signal.wait(timeout: .now() + Self.slice) == .timedOut {
                if shouldStop() { return nil }
            }
            if shouldStop() { return nil }
        }
    }
}
