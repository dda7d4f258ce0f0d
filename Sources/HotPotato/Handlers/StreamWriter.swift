import Foundation

/// Writes each chunk of the body to an `OutputStream` or a `FileHandle` as it arrives, holding
/// none of it in memory. Its content is the number of bytes written.
///
/// The stream is touched only once the response is accepted: a rejected response writes nothing.
/// A stream that is not open yet is opened then and closed when the body ends or the transfer
/// fails; a stream you opened yourself, and a `FileHandle`, are left open for you to close.
///
/// A write that fails (the stream reports an error or takes no more bytes, the file handle throws)
/// stops the transfer with ``HotPotatoError/Code/writeFailed``, with the body offset of the chunk
/// in ``HotPotatoError/byteOffset`` and the cause in ``HotPotatoError/underlying``.
///
/// Written bytes cannot be taken back: a call under a ``RetryPolicy`` is retried only while no
/// byte was written (another attempt would write the body again after them).
///
/// Gating defaults: ``ResponseGate/successful``; no size limit.
open class StreamWriter: SelectiveDiscarder<Int64> {
    private enum Target {
        case stream(OutputStream)
        case fileHandle(FileHandle)
    }

    private let target: Target
    private var opened = false
    /// The number of body bytes written so far.
    public private(set) var bytesWritten: Int64 = 0

    /// Creates a writer to an `OutputStream`.
    /// - Parameters:
    ///   - stream: The stream. If it is not open, the writer opens it once the response is
    ///     accepted and closes it at the end.
    ///   - gate: The statuses and content types to accept. Default ``ResponseGate/successful``.
    ///   - maximumBodySize: The largest body written, in bytes. Default: no limit.
    public init(
        stream: OutputStream,
        gate: ResponseGate = .successful,
        maximumBodySize: Int64 = .max
    ) {
        target = .stream(stream)
        super.init(accepting: gate)
        self.maximumBodySize = max(0, maximumBodySize)
    }

    /// Creates a writer to a `FileHandle`, which it writes at its current offset and never closes.
    /// - Parameters:
    ///   - fileHandle: The file handle, open for writing.
    ///   - gate: The statuses and content types to accept. Default ``ResponseGate/successful``.
    ///   - maximumBodySize: The largest body written, in bytes. Default: no limit.
    public init(
        fileHandle: FileHandle,
        gate: ResponseGate = .successful,
        maximumBodySize: Int64 = .max
    ) {
        target = .fileHandle(fileHandle)
        super.init(accepting: gate)
        self.maximumBodySize = max(0, maximumBodySize)
    }

    /// Gates the response, then opens the stream if it is not open yet.
    open override func prepare(for head: ResponseHead) throws {
        try super.prepare(for: head)
        guard case .stream(let stream) = target else { return }
        if stream.streamStatus == .notOpen {
            stream.open()
            opened = true
        }
        if stream.streamStatus == .error || stream.streamStatus == .closed {
            throw writeFailure(reason: "The output stream could not be opened", underlying: stream.streamError)
        }
    }

    /// Whether ``receive(_:)`` may be lent chunks an engine still owns: `true` for a
    /// `StreamWriter` itself, which writes every chunk before it returns (see ``ChunkBorrowing``).
    open override var receivesBorrowedChunks: Bool { type(of: self) == StreamWriter.self }

    /// Writes the whole chunk, or throws ``HotPotatoError/Code/writeFailed`` (or
    /// ``HotPotatoError/Code/bodyTooLarge`` past ``SelectiveDiscarder/maximumBodySize``).
    open override func receive(_ chunk: Data) throws {
        try super.receive(chunk)
        switch target {
        case .fileHandle(let handle):
            do {
                try handle.write(contentsOf: chunk)
            } catch {
                throw writeFailure(reason: "Writing to the file handle failed", underlying: error)
            }
        case .stream(let stream):
            try chunk.withUnsafeBytes { (buffer: UnsafeRawBufferPointer) in
                guard let base = buffer.bindMemory(to: UInt8.self).baseAddress else { return }
                var offset = 0
                while offset < buffer.count {
                    let written = stream.write(base + offset, maxLength: buffer.count - offset)
                    guard written > 0 else {
                        throw writeFailure(
                            reason: written == 0
                                ? "The output stream accepts no more bytes"
                                : "Writing to the output stream failed",
                            underlying: stream.streamError)
                    }
                    offset += written
                }
            }
        }
        bytesWritten += Int64(chunk.count)
    }

    /// Closes a stream the writer opened, and returns the number of bytes written.
    open override func finish() throws -> Int64 {
        closeIfOpened()
        return bytesWritten
    }

    /// Closes a stream the writer opened. Bytes already written stay written.
    open override func cleanUp() {
        closeIfOpened()
    }

    private func closeIfOpened() {
        guard opened, case .stream(let stream) = target else { return }
        opened = false
        stream.close()
    }

    private func writeFailure(reason: String, underlying: (any Error)?) -> HotPotatoError {
        .writeFailed(
            reason + (underlying.map { ": \($0)" } ?? "") + ".", byteOffset: bytesWritten, head: head,
            underlying: underlying)
    }
}

/// Bytes written to a stream or a file handle cannot be taken back: once any were, a failed
/// attempt is not followed by another, which would write the body again after them (a pipe, a
/// terminal, standard output would get the first bytes twice).
extension StreamWriter: AttemptBoundHandler {
    var allowsAnotherAttempt: Bool { bytesWritten == 0 }
}
