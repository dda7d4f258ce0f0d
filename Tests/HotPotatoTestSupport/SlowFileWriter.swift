import Foundation
@testable import HotPotato

/// A file writer that spends 200 µs on every 16 KiB it writes (about 3 s for 256 MiB), however the
/// bytes are grouped into chunks: a slow consumer, so that a download is reliably still running
/// when a test cancels it, and so that URLSession's backlog grows enough to spill.
final class SlowFileWriter: FileWriter {
    private let onChunk: (@Sendable () -> Void)?

    /// - Parameter onChunk: Called as each chunk arrives, before it is written.
    init(destination: URL, onChunk: (@Sendable () -> Void)? = nil) {
        self.onChunk = onChunk
        super.init(destination: destination)
    }

    override func receive(_ chunk: Data) throws {
        onChunk?()
        try super.receive(chunk)
        usleep(UInt32(200 * max(1, chunk.count / 16_384)))
    }
}
