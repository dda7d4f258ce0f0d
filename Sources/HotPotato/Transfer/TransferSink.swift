import Foundation

/// The events of one transfer, as an engine reports them. Engines call these one after another
/// (never concurrently) and stop the transfer as soon as a call returns `false` or
/// ``isFinished`` becomes true.
protocol TransferSink: AnyObject, Sendable {
    /// The response head; returns whether to read the body.
    func receive(head: ResponseHead) -> Bool
    /// The next body chunk; returns whether to keep reading.
    func receive(_ chunk: Data) -> Bool
    /// The next body chunk, in memory the engine owns and will reuse once the call returns;
    /// returns whether to keep reading.
    func receive(borrowing bytes: UnsafeRawBufferPointer) -> Bool
    /// How much of the request body has been sent; `isComplete` when it is all sent. Called from
    /// the engine's thread, possibly while a handler call is in progress on another.
    func sent(_ progress: UploadProgress, isComplete: Bool)
    /// The body ended normally.
    func end()
    /// The transfer failed.
    func fail(_ error: HotPotatoError)
    /// What the engine measured of the request that answered (the last of a redirect chain),
    /// before it reports the end: kept for the response's ``TransferTimings``.
    func record(phases: TransferPhases?, connection: ConnectionFacts?)
    /// The body ended before its end (`cause` is the engine's account of it); with
    /// `onlyIfShort`, the engine cannot tell, and it did only if fewer bytes than declared
    /// arrived. The driver decides the outcome (see ``ResponseDriver/bodyEndedEarly(_:onlyIfShort:)``).
    func bodyEndedEarly(_ cause: HotPotatoError, onlyIfShort: Bool)
    /// Cancels the transfer: the outcome becomes ``HotPotatoError/Code/cancelled`` unless it is
    /// already settled.
    func cancel()
    /// Whether the outcome is settled (cancelled, failed, or done); cheap to call per chunk.
    var isFinished: Bool { get }
    /// The engine lets the handler hold its deliveries with `hold` (see ``DeliveryHold``). Called
    /// by engines that can pause a transfer, before its first event.
    func allowHoldingDeliveries(_ hold: any DeliveryHold)
    /// Whether the handler takes the body in bulk (a file, a stream, discarded), so that large
    /// reads are worth their buffer.
    var prefersLargeChunks: Bool { get }
    /// Whether the body arrives a little at a time over a long life (an event stream), so that a
    /// small read buffer serves the transfer and costs less memory while it is open.
    var prefersSmallReads: Bool { get }
    /// Whether the transfer may run in a download lane of its own (libcurl engine): one of
    /// HotPotato's bulk handlers.
    var suitsDownloadLane: Bool { get }
    /// Whether every event of the transfer runs HotPotato's own code only — a built-in in-memory
    /// handler, no head callback — quickly and without blocking, so that an engine may deliver a
    /// small response that arrived whole on its own I/O thread instead of handing it to another.
    var runsOnlyLibraryCode: Bool { get }
    /// Hands `work` — the delivery of a whole response, which settles the outcome — to the
    /// caller awaiting it, to run on the caller's thread as it resumes; `false` when no caller
    /// awaits yet (the engine then runs `work` itself). Only for a sink that
    /// ``runsOnlyLibraryCode``.
    func deliverOnCaller(_ work: any DeliveryJob) -> Bool
    /// The most bytes a second the transfer receives (``Request/limitRate(_:)``), together with
    /// the other transfers of the same group; `nil` for no limit of its own.
    var receiveRateGroup: ReceiveRateGroup? { get }
    /// Whether the transfer must not share a connection with others at once: one of the other
    /// connections of a download (``FileWriter``'s `connections:`), which the user asked for as
    /// so many TCP connections — where each connection is capped, streams multiplexed on one
    /// HTTP/2 connection would gain nothing. The libcurl engine offers such a transfer HTTP/1.1
    /// only; the URLSession engine chooses for itself.
    var wantsConnectionOfItsOwn: Bool { get }
    /// Whether the engine reports its measurements (``record(phases:connection:)``) as the head
    /// arrives as well as at the end: the first connection of a download over several, which
    /// is stopped where its part ends, before the end would report them.
    var measuresAtHead: Bool { get }
}

extension TransferSink {
    /// Ignores the request body's progress: for sinks that do not report it.
    func sent(_ progress: UploadProgress, isComplete: Bool) {}

    /// Ignores the measurements: for sinks that do not report them.
    func record(phases: TransferPhases?, connection: ConnectionFacts?) {}

    /// Ignores the hold: for sinks whose handlers never hold.
    func allowHoldingDeliveries(_ hold: any DeliveryHold) {}

    /// Small reads, unless the sink says otherwise.
    var prefersLargeChunks: Bool { false }

    /// Ordinary reads, unless the sink says otherwise.
    var prefersSmallReads: Bool { false }

    /// No lane, unless the sink says otherwise.
    var suitsDownloadLane: Bool { false }

    /// The caller's code may run, unless the sink says otherwise.
    var runsOnlyLibraryCode: Bool { false }

    /// No limit, unless the sink says otherwise.
    var receiveRateGroup: ReceiveRateGroup? { nil }

    /// Any connection, unless the sink says otherwise.
    var wantsConnectionOfItsOwn: Bool { false }

    /// Measured at the end only, unless the sink says otherwise.
    var measuresAtHead: Bool { false }

    /// The limit of the transfer's group, if it has one (the whole group's, not its share).
    var receiveRateLimit: Int64? { receiveRateGroup?.limit }

    /// No caller to hand work to, unless the sink says otherwise.
    func deliverOnCaller(_ work: any DeliveryJob) -> Bool { false }
}
