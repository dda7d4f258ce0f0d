import Foundation
import HotPotato

/// `-o FILE`: HotPotato's `FileWriter`, subclassed to report the head (`-v`) and where the
/// response starts in the file (`--continue`), and to keep to `--max-size`.
final class OutputFileWriter: FileWriter {
    private var limit: SizeLimit
    private let onHead: @Sendable (ResponseHead) -> Void
    private let onStart: @Sendable (Int64) -> Void

    init(
        destination: URL, overwrite: Bool, resumable: Bool, maximumSize: Int64?,
        onHead: @escaping @Sendable (ResponseHead) -> Void, onStart: @escaping @Sendable (Int64) -> Void
    ) {
        limit = SizeLimit(maximumSize)
        self.onHead = onHead
        self.onStart = onStart
        super.init(destination: destination, existingFilePolicy: overwrite ? .replace : .fail, resumable: resumable)
    }

    override func prepare(for head: ResponseHead) throws {
        onHead(head)
        try super.prepare(for: head)
        try limit.check(head, offset: resumedFrom)
        onStart(resumedFrom)
    }

    override func receive(_ chunk: Data) throws {
        try limit.count(chunk, head: head, offset: resumedFrom)
        try super.receive(chunk)
    }
}
