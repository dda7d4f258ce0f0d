import Foundation
import HotPotato

/// The body to standard output as it arrives: HotPotato's `StreamWriter`, subclassed to report
/// the head (`-v`) and to keep to `--max-size`.
final class OutputStreamWriter: StreamWriter {
    private var limit: SizeLimit
    private let onHead: @Sendable (ResponseHead) -> Void

    init(maximumSize: Int64?, onHead: @escaping @Sendable (ResponseHead) -> Void) {
        limit = SizeLimit(maximumSize)
        self.onHead = onHead
        super.init(fileHandle: FileHandle.standardOutput)
    }

    override func prepare(for head: ResponseHead) throws {
        onHead(head)
        try limit.check(head)
        try super.prepare(for: head)
    }

    override func receive(_ chunk: Data) throws {
        try limit.count(chunk, head: head)
        try super.receive(chunk)
    }
}
