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
        guard let maximum, let declared = head.contentLength, declared + offset > maximum else { return }
        throw Self.error(maximum, declared + offset, head, "The declared length of \(declared + offset) bytes")
    }

    mutating func count(_ chunk: Data, head: ResponseHead?, offset: Int64 = 0) throws {
        received += Int64(chunk.count)
        guard let maximum, received + offset > maximum else { return }
        throw Self.error(maximum, received + offset, head, "The body")
    }

    private static func error(_ maximum: Int64, _ count: Int64, _ head: ResponseHead?, _ what: String) -> HotPotatoError {
        var error = HotPotatoError(.bodyTooLarge, reason: "\(what) exceeds --max-size \(maximum) bytes.", head: head)
        error.limit = maximum
        error.byteCount = count
        return error
    }
}
