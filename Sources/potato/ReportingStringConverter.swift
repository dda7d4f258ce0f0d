import Foundation
import HotPotato

/// `--string`: HotPotato's `StringConverter`, subclassed to report the head (`-v`).
final class ReportingStringConverter: StringConverter<String> {
    private let onHead: @Sendable (ResponseHead) -> Void

    init(maximumSize: Int64, onHead: @escaping @Sendable (ResponseHead) -> Void) {
        self.onHead = onHead
        super.init(maximumBodySize: maximumSize)
    }

    override func prepare(for head: ResponseHead) throws {
        onHead(head)
        try super.prepare(for: head)
    }
}
