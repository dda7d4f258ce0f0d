import Foundation

/// Throttles progress updates and delivers them to a callback (on its queue) and to the call's
/// `AsyncStream`, never from the transfer's own thread.
///
/// The stream is made when ``stream`` is first read, with the newest update so far (and already
/// finished when the call is): what a reader that had not read yet would find in a stream that
/// keeps only the newest update. Most calls are never followed, and making a stream costs a
/// dozen allocations.
final class ProgressReporter: Sendable {
    private struct State {
        var lastReport: UInt64 = 0
        var lastBytes: Int64 = -1
        var finished = false
        /// The newest update reported, for a stream made afterwards.
        var latest: TransferProgress?
        var stream: AsyncStream<TransferProgress>?
        var continuation: AsyncStream<TransferProgress>.Continuation?
    }

    /// A progress callback and the queue it is called on.
    struct Observer: Sendable {
        /// `nil`: the call's own serial queue.
        var queue: DispatchQueue?
        var callback: @Sendable (TransferProgress) -> Void
    }

    private let interval: UInt64
    /// The callbacks, each with the queue it is called on.
    private let observers: [(queue: DispatchQueue, callback: @Sendable (TransferProgress) -> Void)]
    private let state = Locked(State())

    init(interval: TimeInterval, observers: [Observer] = []) {
        self.interval = UInt64(max(0, interval) * 1_000_000_000)
        // A queue of the call's own only when a callback has no queue of its own.
        var own: DispatchQueue?
        self.observers = observers.map { observer in
            if let queue = observer.queue { return (queue, observer.callback) }
            let queue = own ?? DispatchQueue(label: "HotPotato.progress")
            own = queue
            return (queue, observer.callback)
        }
    }

    /// The updates, for ``Call/progress``: the same stream every time.
    var stream: AsyncStream<TransferProgress> {
        state.withLock { state in
            if let stream = state.stream { return stream }
            let (stream, continuation) = AsyncStream.makeStream(
                of: TransferProgress.self, bufferingPolicy: .bufferingNewest(1))
            if let latest = state.latest { continuation.yield(latest) }
            if state.finished {
                continuation.finish()
            } else {
                state.continuation = continuation
            }
            state.stream = stream
            return stream
        }
    }

    /// Reports progress if the interval has passed since the last report, or if `force` is set.
    func report(_ progress: TransferProgress, force: Bool = false) {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> Bool in
            guard !state.finished, progress.bytesReceived != state.lastBytes || force else { return false }
            guard force || now &- state.lastReport >= interval || state.lastBytes < 0 else { return false }
            state.lastReport = now
            state.lastBytes = progress.bytesReceived
            state.latest = progress
            // Under the lock, so that a stream being made meanwhile gets each update once.
            state.continuation?.yield(progress)
            return true
        }
        guard due else { return }
        for observer in observers {
            let callback = observer.callback
            observer.queue.async { callback(progress) }
        }
    }

    /// Ends the stream; later reports are dropped.
    func finish() {
        let continuation = state.withLock { state -> AsyncStream<TransferProgress>.Continuation? in
            defer {
                state.finished = true
                state.continuation = nil
            }
            return state.finished ? nil : state.continuation
        }
        continuation?.finish()
    }
}
