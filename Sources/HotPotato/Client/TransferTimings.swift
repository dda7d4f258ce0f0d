import Foundation

/// When a call started, how long it took to reach its head and its end, and — where the engine
/// measures them — the phases of the request that answered and the connection it came over.
public struct TransferTimings: Sendable, Hashable {
    /// When the request was started.
    public var start: Date
    /// Seconds from the start to the response head (time to first byte), when a head arrived.
    public var head: TimeInterval?
    /// Seconds from the start to the end of the body (or the failure).
    public var total: TimeInterval
    /// The phases of the request that produced the response (DNS, connect, TLS, first byte,
    /// total), as curl's `-w` reports them; `nil` where the engine does not measure them (see
    /// ``TransferPhases``).
    public var phases: TransferPhases?
    /// The connection the response came over; `nil` where the engine does not say (see
    /// ``ConnectionFacts``).
    public var connection: ConnectionFacts?

    /// Creates timings.
    public init(start: Date, head: TimeInterval?, total: TimeInterval, phases: TransferPhases? = nil, connection: ConnectionFacts? = nil) {
        self.start = start
        self.head = head
        self.total = total
        self.phases = phases
        self.connection = connection
    }
}
