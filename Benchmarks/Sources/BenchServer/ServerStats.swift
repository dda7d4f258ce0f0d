import NIOConcurrencyHelpers

/// What the server has seen, for `/stats` (a check on what the clients report: the event
/// streams the server holds open are the ones a client really opened).
final class ServerStats: Sendable {
    struct Counts: Sendable {
        var openStreams = 0
        var peakOpenStreams = 0
        var eventsSent = 0
        var connections = 0
        var peakConnections = 0
        var requests = 0
    }

    private let counts = NIOLockedValueBox(Counts())

    func connectionOpened() {
        counts.withLockedValue {
            $0.connections += 1
            $0.peakConnections = max($0.peakConnections, $0.connections)
        }
    }

    func connectionClosed() {
        counts.withLockedValue { $0.connections -= 1 }
    }

    func request() {
        counts.withLockedValue { $0.requests += 1 }
    }

    func streamOpened() {
        counts.withLockedValue {
            $0.openStreams += 1
            $0.peakOpenStreams = max($0.peakOpenStreams, $0.openStreams)
        }
    }

    func streamClosed() {
        counts.withLockedValue { $0.openStreams -= 1 }
    }

    func eventSent() {
        counts.withLockedValue { $0.eventsSent += 1 }
    }

    /// The counts as a JSON object; `reset` starts the peaks again from the current values.
    func json(reset: Bool) -> String {
        counts.withLockedValue { counts in
            let text = "{\"openStreams\":\(counts.openStreams),\"peakOpenStreams\":\(counts.peakOpenStreams),"
                + "\"eventsSent\":\(counts.eventsSent),\"connections\":\(counts.connections),"
                + "\"peakConnections\":\(counts.peakConnections),\"requests\":\(counts.requests)}"
            if reset {
                counts.peakOpenStreams = counts.openStreams
                counts.peakConnections = counts.connections
            }
            return text
        }
    }
}
