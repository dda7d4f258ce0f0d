import Foundation

/// Throttles progress updates and delivers them to a callback (on its queue) and to the call's
/// `AsyncStream`, never from the transfer's own thread.
final class ProgressReporter: Sendable {
    private struct State {
        var lastReport: UInt64 = 0
        var lastBytes: Int64 = -1
        var finished = false
    }

    private let interval: UInt64
    private let callback: (@Sendable (TransferProgress) -> Void)?
    private let queue: DispatchQueue?
    private let continuation: AsyncStream<TransferProgress>.Continuation
    private let state = Locked(State())

    /// The updates, for ``Call/progress``.
    let stream: AsyncStream<TransferProgress>

    init(interval: TimeInterval, queue: DispatchQueue?, callback: (@Sendable (TransferProgress) -> Void)?) {
        self.interval = UInt64(max(0, interval) * 1_000_000_000)
        self.callback = callback
        // A queue of the call's own only when there is a callback to call on it.
        self.queue = callback == nil ? nil : queue ?? DispatchQueue(label: "HotPotato.progress")
        (stream, continuation) = AsyncStream.makeStream(of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Reports progress if the interval has passed since the last report, or if `force` is set.
    func report(_ progress: TransferProgress, force: Bool = false) {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> Bool in
            guard !state.finished, progress.bytesReceived != state.lastBytes || force else { return false }
            guard force || now &- state.lastReport >= interval || state.lastBytes < 0 else { return false }
            state.lastReport = now
            state.lastBytes = progress.bytesReceived
            return true
        }
        guard due else { return }
        continuation.yield(progress)
        if let callback, let queue {
            queue.async { callback(progress) }
        }
    }

    /// Ends the stream; later reports are dropped.
    func finish() {
        let first = state.withLock { state -> Bool in
            defer { state.finished = true }
            return !state.finished
        }
        if first { continuation.finish() }
    }
}
