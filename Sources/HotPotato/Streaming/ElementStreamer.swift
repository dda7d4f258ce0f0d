import Foundation

/// The handler behind the element streams (``JSONElementStream``, ``ServerSentEventStream``):
/// gates the response and hands the body to the stream's ``ElementStreamState``, whose parser
/// turns it into elements as it arrives. Its content is `Void`.
final class ElementStreamer<Parser: ElementStreamParsing>: SelectiveDiscarder<Void> {
    private let state: ElementStreamState<Parser>

    init(state: ElementStreamState<Parser>, gate: ResponseGate) {
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

extension ElementStreamer: HoldableDeliveries {
    /// The stream then holds the transfer back while its consumer has no room, rather than set
    /// bytes aside.
    func allowHoldingDeliveries(_ hold: any DeliveryHold) {
        state.allowHoldingDeliveries(hold)
    }

    /// As the stream's format says (``ElementStreamParsing/arrivesSparsely``).
    var arrivesSparsely: Bool { Parser.arrivesSparsely }
}

extension ElementStreamer: AttemptBoundHandler {
    /// Only until the stream has received body bytes: the consumer may have taken elements, and
    /// another attempt would hand them over again.
    var allowsAnotherAttempt: Bool { !state.hasReceivedBody }
}
