import Foundation

/// A request body as libcurl reads it through its read and seek callbacks, on the engine's I/O
/// thread: a ``BodyReader`` read without ever waiting — a one-shot stream whose producer has
/// nothing yet answers ``BodyReadResult/wouldBlock`` and wakes the loop later. A redirect that
/// sends the body again makes a new one, which starts from the first byte; letting go of it closes
/// its reader.
final class CurlRequestBody {
    private let reader: any BodyReader
    /// Whether the reader has reached the body's end.
    private(set) var isAtEnd = false

    init(_ reader: any BodyReader) {
        self.reader = reader
    }

    /// A body of the bytes in memory.
    convenience init(data: Data) {
        self.init(SegmentedBodyReader([.bytes(data)]))
    }

    deinit {
        reader.close()
    }

    /// The length announced (`CURLOPT_INFILESIZE_LARGE`), or `nil` to send the body chunked.
    var length: Int64? { reader.length }

    /// The bytes handed to libcurl so far.
    var bytesRead: Int64 { reader.bytesRead }

    /// The next bytes, the end, a failure, or ``BodyReadResult/wouldBlock``, after which `wake`
    /// is called once the body can go on.
    func read(into buffer: UnsafeMutableRawBufferPointer, wake: @escaping @Sendable () -> Void) -> BodyReadResult {
        let result = reader.read(into: buffer, wake: wake)
        if case .end = result { isAtEnd = true }
        return result
    }

    /// The body's progress from libcurl's upload count, which for a chunked body counts the
    /// chunks' framing too: never more than the bytes handed over; complete once all is sent.
    func progress(uploaded: Int64) -> (progress: UploadProgress, isComplete: Bool) {
        let read = bytesRead
        let sent = min(uploaded, read)
        let complete = length.map { sent == $0 } ?? (isAtEnd && sent == read)
        return (UploadProgress(bytesSent: sent, expectedBytes: length), complete)
    }

    /// Moves to `position` for libcurl's seek callback: to the first byte (libcurl rewinds a body
    /// to send it again on a new connection), or where the body already is. `false` when the body
    /// cannot go there: a one-shot body once something was read from it.
    func seek(to position: Int64) -> Bool {
        if position == 0 {
            guard reader.rewind() else { return false }
            isAtEnd = false
            return true
        }
        return position == bytesRead
    }
}
