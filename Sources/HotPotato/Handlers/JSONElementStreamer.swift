import Foundation

/// The handler behind ``JSONElementStream``: gates the response and hands the body to the
/// stream's ``JSONStreamState``, which parses it as JSON Lines or as the elements of an array and
/// decodes each element as soon as it is complete. Its content is `Void`.
final class JSONElementStreamer<Element: Decodable & Sendable>: SelectiveDiscarder<Void> {
    private let state: JSONStreamState<Element>

    init(state: JSONStreamState<Element>, gate: ResponseGate) {
        self.state = state
        super.init(accepting: gate)
    }

    /// The parser copies what it keeps of a chunk, so an engine may lend chunks it owns.
    override var receivesBorrowedChunks: Bool { true }

    override func prepare(for head: ResponseHead) throws {
        try super.prepare(for: head)
        state.prepare(for: head)
    }

    override func receive(_ chunk: Data) throws {
        try state.receive(chunk)
    }

    override func finish() throws {
        try state.bodyDidEnd()
    }
}

extension JSONElementStreamer: BlockingDeliveries {
    /// The stream may then wait for its consumer instead of setting bytes aside.
    func allowBlockingDeliveries() {
        state.allowBlockingDeliveries()
    }
}
