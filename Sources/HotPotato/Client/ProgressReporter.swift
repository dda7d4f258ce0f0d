import Foundation

/// Throttles progress updates — the response body's (``TransferProgress``) and the request
/// body's (``UploadProgress``) — and delivers them to callbacks (on their queues) and to the
/// call's `AsyncStream`s, never from the transfer's own thread.
///
/// Each stream is made when first read, with the newest update so far (and already finished when
/// the call is): what a reader that had not read yet would find in a stream that keeps only the
/// newest update. Most calls are never followed, and making a stream costs a dozen allocations.
final class ProgressReporter: Sendable {
    private struct State {
        var finished = false
        var download = ProgressChannel<TransferProgress>()
        var upload = ProgressChannel<UploadProgress>()
    }

    /// A progress callback and the queue it is called on.
    struct Observer<Value: Sendable>: Sendable {
        /// `nil`: the call's own serial queue.
        var queue: DispatchQueue?
        var callback: @Sendable (Value) -> Void
    }

    private let interval: UInt64
    /// The callbacks, each with the queue it is called on.
    private let observers: [(queue: DispatchQueue, callback: @Sendable (TransferProgress) -> Void)]
    private let uploadObservers: [(queue: DispatchQueue, callback: @Sendable (UploadProgress) -> Void)]
    private let state = Locked(State())

    init(interval: TimeInterval, observers: [Observer<TransferProgress>] = [], uploadObservers: [Observer<UploadProgress>] = []) {
        self.interval = UInt64(max(0, interval) * 1_000_000_000)
        // A queue of the call's own only when a callback has no queue of its own.
        var own: DispatchQueue?
        func place<Value>(_ observer: Observer<Value>) -> (DispatchQueue, @Sendable (Value) -> Void) {
            if let queue = observer.queue { return (queue, observer.callback) }
            let queue = own ?? DispatchQueue(label: "HotPotato.progress")
            own = queue
            return (queue, observer.callback)
        }
        self.observers = observers.map(place)
        self.uploadObservers = uploadObservers.map(place)
    }

    /// The response body's updates, for ``Call/progress``: the same stream every time.
    var stream: AsyncStream<TransferProgress> {
        state.withLock { $0.download.makeStream(finished: $0.finished) }
    }

    /// The request body's updates, for ``Call/uploadProgress``: the same stream every time.
    var uploadStream: AsyncStream<UploadProgress> {
        state.withLock { $0.upload.makeStream(finished: $0.finished) }
    }

    /// Reports the response body's progress if the interval has passed since the last report, or
    /// if `force` is set.
    func report(_ progress: TransferProgress, force: Bool = false) {
        report(progress, force: force, channel: \.download, observers: observers)
    }

    /// Reports the request body's progress, as ``report(_:force:)-(TransferProgress,_)`` does the
    /// response body's.
    func report(_ progress: UploadProgress, force: Bool = false) {
        report(progress, force: force, channel: \.upload, observers: uploadObservers)
    }

    private func report<Value: ReportedProgress>(
        _ progress: Value, force: Bool, channel: WritableKeyPath<State, ProgressChannel<Value>>,
        observers: [(queue: DispatchQueue, callback: @Sendable (Value) -> Void)]
    ) {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state in
            !state.finished && state[keyPath: channel].admit(progress, force: force, now: now, interval: interval)
        }
        guard due else { return }
        for observer in observers {
            let callback = observer.callback
            observer.queue.async { callback(progress) }
        }
    }

    /// Ends the streams; later reports are dropped.
    func finish() {
        let (download, upload) = state.withLock { state in
            defer { state.finished = true }
            return state.finished ? (nil, nil) : (state.download.close(), state.upload.close())
        }
        download?.finish()
        upload?.finish()
    }
}
