import Foundation
import HotPotato

/// `--json`: HotPotato's `JSONParser`, subclassed to report the head (`-v`).
final class ReportingJSONParser: JSONParser<JSON> {
    private let onHead: @Sendable (ResponseHead) -> Void

    init(keyPath: String?, maximumSize: Int64, onHead: @escaping @Sendable (ResponseHead) -> Void) {
        self.onHead = onHead
        super.init(atKeyPath: keyPath, maximumBodySize: maximumSize)
    }

    override func prepare(for head: ResponseHead) throws {
        onHead(head)
        try super.prepare(for: head)
    }
}
