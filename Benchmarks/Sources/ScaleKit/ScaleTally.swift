import Foundation

/// What a scale child's tasks report, lock-protected: read by the driver's monitor thread while
/// the client's tasks write to it from wherever they run.
final class ScaleTally: @unchecked Sendable {
    struct Snapshot {
        var opened = 0
        var events = 0
        var failed = 0
        var ended = 0
        var answered = 0
        /// Seconds from the start to the last answer (fan-out) or to the last first event.
        var lastAnswer = 0.0
        var lastFirstEvent = 0.0
        /// Seconds from the start to the last answer or failure.
        var lastCompletion = 0.0
    }

    private let lock = NSLock()
    private let start: UInt64
    private var snapshot = Snapshot()
    /// Seconds from the start to each stream's first event; -1 until it came.
    private var firstEvents: [Double]
    private var firstErrors: [String: String] = [:]
    private var probes: [Int: Result<Double, ScaleClientError>] = [:]

    init(streams: Int, start: UInt64) {
        firstEvents = Array(repeating: -1, count: streams)
        self.start = start
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    func seconds(since origin: UInt64) -> Double { Double(Self.now() &- origin) / 1e9 }

    func event(stream index: Int) {
        lock.lock()
        defer { lock.unlock() }
        snapshot.events += 1
        if firstEvents[index] < 0 {
            let elapsed = seconds(since: start)
            firstEvents[index] = elapsed
            snapshot.opened += 1
            snapshot.lastFirstEvent = max(snapshot.lastFirstEvent, elapsed)
        }
    }

    /// A stream or a GET failed; the first error of each `kind` is kept, and printed at once (a
    /// process that crashes later still told it).
    func failed(_ kind: String, _ error: any Error) {
        lock.lock()
        snapshot.failed += 1
        snapshot.lastCompletion = seconds(since: start)
        let first = firstErrors[kind] == nil
        if first { firstErrors[kind] = String(describing: error) }
        lock.unlock()
        if first {
            ScaleOutput.note("\(kind)_error", "at \(String(format: "%.1f", seconds(since: start))) s: \(error)")
        }
    }

    /// A stream ended without an error (the server never ends one).
    func ended() {
        lock.lock()
        snapshot.ended += 1
        lock.unlock()
    }

    func answered() {
        lock.lock()
        defer { lock.unlock() }
        snapshot.answered += 1
        snapshot.lastAnswer = seconds(since: start)
        snapshot.lastCompletion = snapshot.lastAnswer
    }

    func probe(host: Int, _ result: Result<Double, ScaleClientError>) {
        lock.lock()
        probes[host] = result
        lock.unlock()
    }

    var current: Snapshot {
        lock.lock()
        defer { lock.unlock() }
        return snapshot
    }

    func probeResult(host: Int) -> Result<Double, ScaleClientError>? {
        lock.lock()
        defer { lock.unlock() }
        return probes[host]
    }

    /// The median and the largest time to first event, of the streams that delivered one.
    var firstEventTimes: (median: Double, maximum: Double) {
        lock.lock()
        let times = firstEvents.filter { $0 >= 0 }.sorted()
        lock.unlock()
        guard !times.isEmpty else { return (-1, -1) }
        return (times[times.count / 2], times[times.count - 1])
    }
}
