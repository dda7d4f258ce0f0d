import Foundation
import HotPotato

/// `--max-size` for the writers, which hold no body and so have no limit of their own: checked
/// against `Content-Length` at the head (before anything is written) and on every chunk.
struct SizeLimit {
    let maximum: Int64?
    private(set) var received: Int64 = 0

    init(_ maximum: Int64?) {
        self.maximum = maximum
    }

    /// Refuses a declared length over the limit; `offset` counts bytes already on disk (resuming).
    func check(_ head: ResponseHead, offset: Int64 = 0) throws {
        guard let maximum, let declared = head.contentLength, ByteCount.sum(declared, offset) > maximum else { return }
        let total = ByteCount.sum(declared, offset)
        throw Self.error(maximum, total, head, "The declared length of \(total) bytes")
    }

    mutating func count(_ chunk: Data, head: ResponseHead?, offset: Int64 = 0) throws {
        received = ByteCount.sum(received, Int64(chunk.count))
        guard let maximum, ByteCount.sum(received, offset) > maximum else { return }
        throw Self.error(maximum, ByteCount.sum(received, offset), head, "The body")
    }

    private static func error(_ maximum: Int64, _ count: Int64, _ head: ResponseHead?, _ what: String) -> HotPotatoError {
        var error = HotPotatoError(.bodyTooLarge, reason: "\(what) exceeds --max-size \(maximum) bytes.", head: head)
        error.limit = maximum
        error.byteCount = count
        return error
    }
}
