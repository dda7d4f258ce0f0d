import Foundation

/// One execution of a request, shared by every engine: it drives the handler through a
/// ``ResponseDriver``, reports progress, settles the ``Completion``, and makes cancellation
/// authoritative.
///
/// Handler calls happen under `handlerLock`, so an engine thread and a cancelling thread never
/// touch the handler at the same time. Cancellation settles the outcome as soon as the handler
/// call in progress (if any) returns: it never waits for the engine.
final class Transfer<Handler: ContentHandler>: TransferSink, @unchecked Sendable where Handler.Content: Sendable {
    let completion = Completion<Handler.Content>()
    let progress: ProgressReporter

    private let handlerLock = NSLock()
    /// Guarded by `handlerLock`.
    private let driver: ResponseDriver<Handler>
    /// Guarded by `handlerLock`.
    private var headTime: TimeInterval?
    /// Guarded by `handlerLock`: the body length progress reports as expected.
    private var expectedBytes: Int64?
    /// Guarded by `handlerLock`: the buffer borrowed chunks are copied into for handlers that may
    /// keep them.
    private var chunkBuffer = Data()
    private let borrowsChunks: Bool
    private let start = Date()
    private let startTime = DispatchTime.now().uptimeNanoseconds
    private let flags = Locked(Flags())

    private struct Flags {
        var finished = false
        var stopEngine: (@Sendable () -> Void)?
    }

    init(handler: Handler, errorBodyLimit: Int, progress: ProgressReporter) {
        driver = ResponseDriver(handler: handler, errorBodyLimit: errorBodyLimit)
        self.progress = progress
        borrowsChunks = (handler as? any BorrowingChunks)?.receivesBorrowedChunks ?? false
    }

    /// Sets how to stop the engine's transfer early (a rejection, a handler failure, a cancel).
    /// If the outcome is already settled, `stop` runs at once.
    func setStopEngine(_ stop: @escaping @Sendable () -> Void) {
        let finished = flags.withLock { flags -> Bool in
            if !flags.finished { flags.stopEngine = stop }
            return flags.finished
        }
        if finished { stop() }
    }

    var isFinished: Bool {
        flags.withLock { $0.finished }
    }

    func receive(head: ResponseHead) -> Bool {
        withHandler { driver in
            headTime = elapsed
            // A compressed body's declared length is not the length that arrives.
            expectedBytes = head.hasNoBody ? 0 : head.contentEncodings.isEmpty ? head.contentLength : nil
            let more = driver.receive(head: head)
            if more { reportProgress(driver, force: true) }
            return more
        } ?? false
    }

    func receive(_ chunk: Data) -> Bool {
        withHandler { driver in
            let more = driver.receive(chunk)
            if more { reportProgress(driver, force: false) }
            return more
        } ?? false
    }

    func receive(borrowing bytes: UnsafeRawBufferPointer) -> Bool {
        withHandler { driver in
            let more: Bool
            if borrowsChunks, let base = bytes.baseAddress {
                // HotPotato's own handlers never keep a chunk: lend them the engine's bytes.
                more = driver.receive(Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
            } else {
                // Copy into a buffer reused from chunk to chunk. A handler that keeps a chunk keeps
                // that storage alive, and the next copy then goes to a new one (copy-on-write).
                if chunkBuffer.count != bytes.count { chunkBuffer.count = bytes.count }
                chunkBuffer.withUnsafeMutableBytes { $0.copyMemory(from: bytes) }
                more = driver.receive(chunkBuffer)
            }
            if more { reportProgress(driver, force: false) }
            return more
        } ?? false
    }

    func end() {
        withHandler { driver in
            let result = driver.finish()
            if case .success = result { reportProgress(driver, force: true) }
        }
    }

    func fail(_ error: HotPotatoError) {
        withHandler { driver in _ = driver.fail(error) }
    }

    /// Cancels the call: settles it with ``HotPotatoError/Code/cancelled`` once the handler call
    /// in progress returns, cleans the handler up, and stops the engine.
    func cancel() {
        fail(HotPotatoError(.cancelled, reason: "The request was cancelled."))
    }

    // MARK: - Private

    private var elapsed: TimeInterval {
        Double(DispatchTime.now().uptimeNanoseconds &- startTime) / 1_000_000_000
    }

    /// Runs `body` with the driver under the handler lock, unless the outcome is settled; settles
    /// it when the driver has a result.
    @discardableResult
    private func withHandler<T>(_ body: (ResponseDriver<Handler>) -> T) -> T? {
        if isFinished { return nil }
        handlerLock.lock()
        defer { handlerLock.unlock() }
        if isFinished { return nil }
        let value = body(driver)
        if let result = driver.result { settle(result) }
        return value
    }

    /// Called under the handler lock.
    private func settle(_ result: Result<Handler.Content, HotPotatoError>) {
        let stop = flags.withLock { flags -> (@Sendable () -> Void)? in
            flags.finished = true
            defer { flags.stopEngine = nil }
            return flags.stopEngine
        }
        let timings = TransferTimings(start: start, head: headTime, total: elapsed)
        let outcome: Completion<Handler.Content>.Outcome
        switch result {
        case .success(let content):
            let head = driver.head ?? ResponseHead(status: 0)
            outcome = .success(Response(head: head, content: content, timings: timings))
        case .failure(let error):
            outcome = .failure(error)
        }
        progress.finish()
        completion.settle(outcome)
        stop?()
    }

    /// Called under the handler lock, once per chunk: no header parsing here.
    private func reportProgress(_ driver: ResponseDriver<Handler>, force: Bool) {
        progress.report(TransferProgress(bytesReceived: driver.bytesReceived, expectedBytes: expectedBytes), force: force)
    }
}
