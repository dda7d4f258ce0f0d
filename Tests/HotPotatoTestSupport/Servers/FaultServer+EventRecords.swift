import Foundation
@testable import HotPotato

/// What the fault server notes of the `/events` requests tagged `record=name`: how many came,
/// when, and with which header fields — to count a stream's connections and check what it sent.
extension FaultServer {
    /// One `/events` request, as it arrived.
    struct EventRequest: Sendable {
        /// Its header fields, names lowercased.
        let headers: [String: String]
        /// When its head had been read (monotonic seconds, as `EventStreamClock.system`).
        let arrival: TimeInterval
    }

    static let eventRecords = Locked([String: [EventRequest]]())

    static func recordEventRequest(_ name: String, headers: [String: String]) {
        let request = EventRequest(headers: headers, arrival: EventStreamClock.system.now())
        eventRecords.withLock { $0[name, default: []].append(request) }
    }

    /// The `/events` requests tagged `record=name` so far, oldest first.
    static func eventRequests(_ name: String) -> [EventRequest] {
        eventRecords.withLock { $0[name] ?? [] }
    }
}
