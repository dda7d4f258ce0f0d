import Foundation

/// What a handler can do beyond ``ContentHandler``, read once, when its transfer is made, into
/// one value the transfer consults for every event — rather than a cast at each use.
///
/// A handler declares a capability by conforming to its protocol: the public ones
/// (``ChunkBorrowing``, ``RequestAdapting``, ``GatedContentHandler``) are open to a handler of
/// your own; the internal ones below are HotPotato's handlers' alone. The flags that are not
/// protocols (bulk reads, library code only) are read from the handler's class.
struct HandlerCapabilities {
    /// The handler may be lent the engine's bytes for the length of a call (``ChunkBorrowing``).
    let borrowsChunks: Bool
    /// The handler takes the body in bulk — a file, a stream, nowhere, or through a subclass of
    /// ``SelectiveDiscarder`` of the caller's (``SelectiveDiscarder/readsInBulk``) — so large
    /// reads are worth their buffer (512 KiB on the libcurl engine, against 16 KiB: a custom
    /// handler counting 16 parallel downloads went from 803 to 1 689 MiB/s). Not a handler that
    /// holds its deliveries (an element stream: open for long, mostly idle).
    let prefersLargeReads: Bool
    /// The body arrives a little at a time over a long life — an event stream — so a small read
    /// buffer serves it (2 KiB on the libcurl engine, against 16 KiB: 10 000 open event streams
    /// took 290 MiB rather than 311).
    let prefersSmallReads: Bool
    /// The handler is one of HotPotato's bulk handlers — a file, a stream, nowhere — whose
    /// download may run in a lane of its own (``Session/Configuration/downloadLanes``): a lane
    /// keeps its own connection, so a handler of the caller's, whose requests may count on
    /// sharing the session's connections, stays on the session's loop.
    let suitsDownloadLane: Bool
    /// The handler is exactly one of the classes behind `.asData()`, `.asString()`, `.asJSON()`
    /// and `.asJSONDocument()`: it runs HotPotato's code only, quickly, and a small response may
    /// be delivered on the engine's thread or the caller's.
    let runsOnlyLibraryCode: Bool
    /// The handler continues a body across the attempts of a call (``ResumingHandler``).
    let resuming: (any ResumingHandler)?
    /// The handler holds its deliveries rather than block a thread (``HoldableDeliveries``).
    let holding: (any HoldableDeliveries)?
    /// The handler may forbid another attempt after a failed one (``AttemptBoundHandler``).
    let attemptBound: (any AttemptBoundHandler)?

    init(of handler: some ContentHandler) {
        borrowsChunks = (handler as? any ChunkBorrowing)?.receivesBorrowedChunks ?? false
        holding = handler as? any HoldableDeliveries
        suitsDownloadLane = handler is FileWriter || handler is StreamWriter || handler is SegmentHandler
            || (handler is SelectiveDiscarder<Void> && holding == nil)
        prefersLargeReads = suitsDownloadLane || (holding == nil && (handler as? any BulkReading)?.readsInBulk == true)
        prefersSmallReads = holding?.arrivesSparsely ?? false
        resuming = handler as? any ResumingHandler
        attemptBound = handler as? any AttemptBoundHandler
        let type = ObjectIdentifier(Swift.type(of: handler))
        // Not a subclass, whose overrides are the caller's code, and not a `Decodable` type's
        // parser, whose `init(from:)` is.
        runsOnlyLibraryCode = type == ObjectIdentifier(Accumulator<Data>.self) || type == ObjectIdentifier(StringConverter<String>.self)
            || type == ObjectIdentifier(JSONParser<JSON>.self) || type == ObjectIdentifier(JSONParser<JSONDocument>.self)
    }
}

/// A handler that says whether its body goes through it in bulk (see
/// ``SelectiveDiscarder/readsInBulk``).
protocol BulkReading: AnyObject {
    var readsInBulk: Bool { get }
}

extension SelectiveDiscarder: BulkReading {}

/// A handler whose work a new attempt of its call could not start over: an element stream that
/// has parsed body bytes, whose consumer may hold elements already. The attempt loop retries a
/// failed attempt only while its handler allows it (see ``RetryPolicy``).
protocol AttemptBoundHandler: AnyObject {
    /// Whether a failed attempt may be followed by another, with a new handler of the same call.
    var allowsAnotherAttempt: Bool { get }
}

/// A handler that can continue a body across the attempts of one call (a retried download),
/// rather than start over: the attempt loop (`AttemptLoop`) gives each attempt's handler the
/// same ``AttemptCarry``, and progress counts from where each response starts.
protocol ResumingHandler: AnyObject {
    /// The body offset at which the current response continues what the handler already holds.
    var resumedFrom: Int64 { get }
    /// Keeps the partial body in `carry` between the attempts of a call, if the handler does not
    /// keep it anyway (a resumable download has a partial file of its own). Called before
    /// ``RequestAdapting/adapt(_:)``.
    func keepPartialAcrossAttempts(in carry: AttemptCarry)
}

/// A handler that can hold its transfer back (see ``DeliveryHold``) when the engine lets it —
/// rather than blocking the thread delivering its chunks, which another transfer may need, or
/// setting bytes aside.
protocol HoldableDeliveries: AnyObject {
    /// The engine lets this handler hold its deliveries with `hold`. Called before the first
    /// event of each attempt (a retried call gets a new one).
    func allowHoldingDeliveries(_ hold: any DeliveryHold)
    /// Whether the body arrives a little at a time over a long life (an event stream): the
    /// engine then gives the transfer a small read buffer.
    var arrivesSparsely: Bool { get }
}
