/// A progress value a ``ProgressReporter`` throttles: it reports a new value only when its byte
/// count changed.
protocol ReportedProgress: Sendable {
    var reportedBytes: Int64 { get }
}

extension TransferProgress: ReportedProgress {
    var reportedBytes: Int64 { bytesReceived }
}

extension UploadProgress: ReportedProgress {
    var reportedBytes: Int64 { bytesSent }
}

/// One kind of progress of a ``ProgressReporter`` — the response body's, or the request body's —
/// with its throttle and its `AsyncStream`, made when first read. Guarded by the reporter's lock.
struct ProgressChannel<Value: ReportedProgress> {
    private var lastReport: UInt64 = 0
    private var lastBytes: Int64 = -1
    /// The newest update reported, for a stream made afterwards.
    private var latest: Value?
    private var stream: AsyncStream<Value>?
    private var continuation: AsyncStream<Value>.Continuation?

    /// Whether `value` is due — its count changed and the interval has passed, or `force` — and
    /// if so records it and yields it to the stream (under the reporter's lock, so that a stream
    /// being made meanwhile gets each update once).
    mutating func admit(_ value: Value, force: Bool, now: UInt64, interval: UInt64) -> Bool {
        guard value.reportedBytes != lastBytes || force else { return false }
        guard force || now &- lastReport >= interval || lastBytes < 0 else { return false }
        lastReport = now
        lastBytes = value.reportedBytes
        latest = value
        continuation?.yield(value)
        return true
    }

    /// The stream: made at the first call, with the newest update so far, and already finished
    /// when the call is.
    mutating func makeStream(finished: Bool) -> AsyncStream<Value> {
        if let stream { return stream }
        let (stream, continuation) = AsyncStream.makeStream(of: Value.self, bufferingPolicy: .bufferingNewest(1))
        if let latest { continuation.yield(latest) }
        if finished {
            continuation.finish()
        } else {
            self.continuation = continuation
        }
        self.stream = stream
        return stream
    }

    /// Stops yielding; returns the continuation to finish outside the lock.
    mutating func close() -> AsyncStream<Value>.Continuation? {
        defer { continuation = nil }
        return continuation
    }
}
