import Foundation

/// When a call started, and how long it took to reach its head and its end.
public struct TransferTimings: Sendable, Hashable {
    /// When the request was started.
    public var start: Date
    /// Seconds from the start to the response head (time to first byte), when a head arrived.
    public var head: TimeInterval?
    /// Seconds from the start to the end of the body (or the failure).
    public var total: TimeInterval

    /// Creates timings.
    public init(start: Date, head: TimeInterval?, total: TimeInterval) {
        self.start = start
        self.head = head
        self.total = total
    }
}
