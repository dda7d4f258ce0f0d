import Foundation

/// What the engine measured of a download's connections, together: the first connection's phases
/// and address, the connections all of them made, and the body bytes they wrote — what a single
/// connection's ``TransferTimings`` would say of the whole download. Each connection is measured
/// as its head arrives (see ``TransferSink/measuresAtHead``): it is stopped where its part ends,
/// before its end would be measured. The bytes are those each part wrote, not those that came
/// over the wire (a part cut short by a re-split may have read a few more).
struct SegmentMeasurements {
    private var primaryPhases: TransferPhases?
    private var primaryConnection: ConnectionFacts?
    private var bytes: Int64 = 0
    private var otherConnections = 0
    private var measuredOthers = false

    mutating func recordPrimary(phases: TransferPhases?, connection: ConnectionFacts?) {
        primaryPhases = phases
        primaryConnection = connection
    }

    /// A part's connection wrote `bytes`.
    mutating func addBytes(_ bytes: Int64) {
        self.bytes += max(0, bytes)
    }

    /// One of the other connections ended, with what the engine measured of it.
    mutating func add(_ timings: TransferTimings?) {
        guard let connection = timings?.connection else { return }
        measuredOthers = true
        otherConnections += connection.connectionsMade ?? 0
    }

    /// The whole download's phases and connection facts, its time being `total`; `nil` when the
    /// engine measured none (the URLSession engine).
    func merged(total: TimeInterval) -> (phases: TransferPhases?, connection: ConnectionFacts?) {
        var phases = primaryPhases
        phases?.total = total
        guard primaryConnection != nil || measuredOthers else { return (phases, nil) }
        var connection = primaryConnection ?? ConnectionFacts()
        connection.connectionsMade = (primaryConnection?.connectionsMade ?? 0) + otherConnections
        connection.bodyBytesReceived = bytes
        return (phases, connection)
    }
}
