import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
import Synchronization

/// A request's idle timeout (``Session/Configuration/requestTimeout``, `Request.timeout(_:)`),
/// kept by the engine where FoundationNetworking cannot keep it: it counts `timeoutInterval` in
/// whole seconds, so 0.5 s fired at once, before a byte could arrive, and 1.5 s after 1 s.
/// FoundationNetworking is given the limit rounded up (see ``foundationTimeout(_:)``); a transfer
/// whose limit has a fraction keeps this clock and fails with ``HotPotatoError/Code/timedOut``
/// once nothing was received or sent for that long, as the libcurl engine does. While the
/// session's delegate queue holds callbacks not delivered yet, the transfer is not taken to be
/// idle; FoundationNetworking's own timer, at the limit rounded up, still ends a transfer that
/// is.
final class IdleClock: Sendable {
    let limit: TimeInterval
    private let limitNanoseconds: UInt64
    private let last: Atomic<UInt64>
    /// The task's bytes received and sent, as last seen by the watch.
    private let bytesSeen = Atomic<Int64>(0)

    /// A clock for `limit`, or `nil` when FoundationNetworking keeps it exactly (whole seconds).
    init?(limit: TimeInterval) {
        guard Self.isNeeded(for: limit) else { return nil }
        self.limit = limit
        limitNanoseconds = UInt64(limit * 1e9)
        last = Atomic(DispatchTime.now().uptimeNanoseconds)
    }

    /// Something was received or sent (or the handler has just taken a chunk).
    func touch() {
        last.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// When the limit runs out, if nothing more happens.
    var deadline: UInt64 { last.load(ordering: .relaxed) &+ limitNanoseconds }

    /// Notes the task's count of bytes moved; activity when it changed since last seen.
    func noteBytesMoved(_ count: Int64) {
        if bytesSeen.exchange(count, ordering: .relaxed) != count { touch() }
    }

    static func isNeeded(for limit: TimeInterval) -> Bool {
        limit.isFinite && limit > 0 && limit < 1e9 && limit.rounded(.up) != limit
    }

    /// The `timeoutInterval` given to FoundationNetworking for `limit`: whole seconds, rounded up
    /// (at least 1), so that its own timer never fires before the engine's.
    static func foundationTimeout(_ limit: TimeInterval) -> TimeInterval {
        isNeeded(for: limit) ? max(1, limit.rounded(.up)) : limit
    }
}

extension URLSessionTransfer {
    /// Notes that something was received or sent.
    @inline(__always) func noteActivity() { idleClock?.touch() }

    /// Fails the call with ``HotPotatoError/Code/timedOut`` once its ``IdleClock`` runs out,
    /// checking again at each deadline until the transfer ends.
    ///
    /// Activity is what reaches the delegate, and also what FoundationNetworking has received or
    /// sent before its callbacks are delivered (the task's byte counts), and callbacks queued on
    /// the delegate queue: on a busy machine they can wait there, and the bytes have come.
    func watchIdle() {
        guard let clock = idleClock else { return }
        DispatchQueue.global().asyncAfter(deadline: DispatchTime(uptimeNanoseconds: clock.deadline)) { [weak self] in
            guard let self, !self.sink.isFinished else { return }
            // Ended by URLSession (the rest may still be draining to a slow handler), or stopped.
            let (task, running) = state.withLock { ($0.task, $0.ending == nil && !$0.stopped) }
            guard running else { return }
            if let task { clock.noteBytesMoved(task.countOfBytesReceived &+ task.countOfBytesSent) }
            if backlog() > 0 { clock.touch() }
            guard DispatchTime.now().uptimeNanoseconds >= clock.deadline else { return watchIdle() }
            sink.fail(HotPotatoError(
                .timedOut, reason: "\(TransportFailureText.timedOut): Nothing was received or sent for \(Self.seconds(clock.limit)) s"))
            stop()
        }
    }
}
#else
extension URLSessionTransfer {
    /// Apple's URLSession keeps a fractional timeout itself.
    @inline(__always) func noteActivity() {}
    func watchIdle() {}
}
#endif
