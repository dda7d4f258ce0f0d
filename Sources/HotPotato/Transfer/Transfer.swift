import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One execution of a request, shared by every engine: it drives the handler through a
/// ``ResponseDriver``, reports progress, settles the ``Completion``, and makes cancellation
/// authoritative.
///
/// Handler calls happen under `handlerLock`, so an engine thread and a cancelling thread never
/// touch the handler at the same time. Cancellation settles the outcome as soon as the handler
/// call in progress (if any) returns: it never waits for the engine.
///
/// ## What runs under the lock, and who waits for it
///
/// Only the driver and the handler run under `handlerLock`. Resuming the caller (settling the
/// ``Completion``), progress updates and stopping the engine happen after it is released. And
/// only the engine's own thread ever waits for the lock: a cancel — which Swift runs in a task's
/// cancellation handler, holding that task's status lock, which resuming the task needs — never
/// blocks on it. When the lock is busy, the cancel is left pending, and whoever holds the lock
/// carries it out as soon as it lets go (see ``cancel()``).
final class Transfer<Handler: ContentHandler>: TransferSink, @unchecked Sendable where Handler.Content: Sendable {
    let completion = Completion<Handler.Content>()
    let progress: ProgressReporter

    private let handlerLock = NSLock()
    /// Guarded by `handlerLock`.
    private let driver: ResponseDriver<Handler>
    /// Guarded by `handlerLock`.
    private var headTime: TimeInterval?
    /// The outcome, once settled: written once, under `handlerLock`, by the thread that then
    /// hands it to the ``Completion`` (see ``deliver(_:)``).
    private var outcome: Completion<Handler.Content>.Outcome?
    /// Guarded by `handlerLock`: the body length progress reports as expected.
    private var expectedBytes: Int64?
    /// Guarded by `handlerLock`: the buffer borrowed chunks are copied into for handlers that may
    /// keep them.
    private var chunkBuffer = Data()
    /// What the handler can do, read once (see ``HandlerCapabilities``).
    private let capabilities: HandlerCapabilities
    /// ``HandlerCapabilities/runsOnlyLibraryCode``, and no head callback of the caller's.
    private let onlyLibraryCode: Bool
    /// A connection of a download over several: stopped where its part ends, before the end
    /// would report the engine's measurements (see ``TransferSink/measuresAtHead``).
    let measuresAtHead: Bool
    /// ``Request/onHead(queue:_:)``'s callback.
    private let onHead: (@Sendable (ResponseHead) -> Void)?
    /// The cookies of this transfer, when the session keeps any: the final head's are stored as it
    /// arrives (a redirect's are, by ``RedirectPolicy``).
    let cookies: CookieExchange?
    /// ``Request/limitRate(_:)``: the most bytes a second this transfer receives, with the other
    /// transfers of its group (the connections of one download).
    let receiveRateGroup: ReceiveRateGroup?
    /// One of a download's other connections (see ``TransferSink/wantsConnectionOfItsOwn``).
    let wantsConnectionOfItsOwn: Bool
    /// Whether settling the outcome ends the progress updates: not for one attempt of several,
    /// which share them.
    private let finishesProgress: Bool
    /// Guarded by `handlerLock`: the body offset the response starts at (a resumed download's
    /// bytes already on disk), so that progress counts the whole body.
    private var progressOffset: Int64 = 0
    private let start = Date()
    private let startTime = DispatchTime.now().uptimeNanoseconds
    private let flags = Locked(Flags())

    private struct Flags {
        var finished = false
        var stopEngine: (@Sendable () -> Void)?
        /// A failure (a cancel) that found the handler lock busy: the lock's holder carries it out
        /// once it has let go of the lock.
        var pendingFailure: HotPotatoError?
        /// A download over several connections whose first connection this transfer was: its
        /// outcome waits for the others (see ``SegmentedDownload``), and a cancel goes to it.
        var segments: SegmentedDownload?
        /// The engine's measurements of the request that answered (see ``record(phases:connection:)``).
        var phases: TransferPhases?
        var connection: ConnectionFacts?
    }

    private typealias Aftermath = TransferAftermath

    init(
        handler: Handler, errorBodyLimit: Int, progress: ProgressReporter,
        onHead: (@Sendable (ResponseHead) -> Void)? = nil, finishesProgress: Bool = true, cookies: CookieExchange? = nil,
        receiveRateGroup: ReceiveRateGroup? = nil, connectionOfItsOwn: Bool = false
    ) {
        self.receiveRateGroup = receiveRateGroup
        wantsConnectionOfItsOwn = connectionOfItsOwn
        driver = ResponseDriver(handler: handler, errorBodyLimit: errorBodyLimit)
        self.progress = progress
        self.onHead = onHead
        self.cookies = cookies
        self.finishesProgress = finishesProgress
        capabilities = HandlerCapabilities(of: handler)
        onlyLibraryCode = onHead == nil && capabilities.runsOnlyLibraryCode
        measuresAtHead = ((handler as? FileWriter)?.connections ?? 1) > 1 || handler is SegmentHandler
    }

    var runsOnlyLibraryCode: Bool {
        onlyLibraryCode
    }



    func deliverOnCaller(_ work: any DeliveryJob) -> Bool {
        onlyLibraryCode && completion.handOff(work)
    }

    /// Prepares the request through the driver (see ``ResponseDriver/adapt(_:)``). Called once,
    /// before the engine starts.
    func adapt(_ request: inout URLRequest) throws(HotPotatoError) {
        handlerLock.lock()
        defer { handlerLock.unlock() }
        try driver.adapt(&request)
    }

    /// Whether the handler takes the body in bulk: a file, a stream, nowhere, or through a
    /// streaming handler of the caller's.
    var prefersLargeChunks: Bool {
        capabilities.prefersLargeReads
    }

    /// Whether the body arrives a little at a time (see ``HandlerCapabilities/prefersSmallReads``).
    var prefersSmallReads: Bool {
        capabilities.prefersSmallReads
    }

    /// Whether the download may run in a lane of its own (see
    /// ``HandlerCapabilities/suitsDownloadLane``).
    var suitsDownloadLane: Bool {
        capabilities.suitsDownloadLane
    }

    /// Hands the handler, if it asks (``HoldableDeliveries``), the engine's way to hold this
    /// transfer's deliveries. Called by the engine before the first event.
    func allowHoldingDeliveries(_ hold: any DeliveryHold) {
        handlerLock.lock()
        capabilities.holding?.allowHoldingDeliveries(hold)
        handlerLock.unlock()
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

    /// Whether the handler lets the call make another attempt after this one failed (see
    /// ``AttemptBoundHandler``).
    var allowsAnotherAttempt: Bool {
        handlerLock.lock()
        defer { handlerLock.unlock() }
        return capabilities.attemptBound?.allowsAnotherAttempt ?? true
    }

    var isFinished: Bool {
        flags.withLock { $0.finished }
    }

    func record(phases: TransferPhases?, connection: ConnectionFacts?) {
        flags.withLock {
            $0.phases = phases
            $0.connection = connection
        }
    }

    func receive(head: ResponseHead) -> Bool {
        // Before anyone sees the response: a chained call that follows finds its cookies.
        cookies?.receive(head)
        // Outside the handler lock: it is the caller's code.
        if let onHead, !isFinished { onHead(head) }
        let more = withHandler { driver, aftermath in
            headTime = elapsed
            let more = driver.receive(head: head)
            progressOffset = capabilities.resuming?.resumedFrom ?? 0
            // Saturating: the declared length is the server's, and a resumed download's offset is
            // added to it (a Content-Length of 2^63 - 1 must not trap).
            expectedBytes = head.declaredBodyLength.map { declared in
                let (sum, overflow) = declared.addingReportingOverflow(progressOffset)
                return overflow ? .max : sum
            }
            if more, let progress = currentProgress(driver) { aftermath.report = (progress, true) }
            return more
        }
        return more == true && !isFinished
    }

    func receive(_ chunk: Data) -> Bool {
        let more = withHandler { driver, aftermath in
            let more = driver.receive(chunk)
            if more, let progress = currentProgress(driver) { aftermath.report = (progress, false) }
            return more
        }
        return more == true && !isFinished
    }

    func receive(borrowing bytes: UnsafeRawBufferPointer) -> Bool {
        let more = withHandler { driver, aftermath in
            let more: Bool
            if capabilities.borrowsChunks, let base = bytes.baseAddress {
                // HotPotato's own handlers never keep a chunk: lend them the engine's bytes.
                more = driver.receive(Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: bytes.count, deallocator: .none))
            } else {
                // Copy into a buffer reused from chunk to chunk. A handler that keeps a chunk keeps
                // that storage alive, and the next copy then goes to a new one (copy-on-write).
                if chunkBuffer.count != bytes.count { chunkBuffer.count = bytes.count }
                chunkBuffer.withUnsafeMutableBytes { $0.copyMemory(from: bytes) }
                more = driver.receive(chunkBuffer)
            }
            if more, let progress = currentProgress(driver) { aftermath.report = (progress, false) }
            return more
        }
        return more == true && !isFinished
    }

    func sent(_ progress: UploadProgress, isComplete: Bool) {
        // No handler involved: the reporter has a lock of its own.
        if !isFinished { self.progress.report(progress, force: isComplete) }
    }

    func end() {
        withHandler { driver, aftermath in
            let result = driver.finish()
            if case .success = result, let progress = currentProgress(driver) { aftermath.report = (progress, true) }
        }
    }

    func fail(_ error: HotPotatoError) {
        withHandler { driver, _ in _ = driver.fail(error) }
    }

    func bodyEndedEarly(_ cause: HotPotatoError, onlyIfShort: Bool) {
        withHandler { driver, _ in _ = driver.bodyEndedEarly(cause, onlyIfShort: onlyIfShort) }
    }

    /// Cancels the call: settles it with ``HotPotatoError/Code/cancelled`` once the handler call
    /// in progress returns, cleans the handler up, and stops the engine.
    ///
    /// Never waits: when a handler call is in progress, the cancel is left for the thread making
    /// it, which carries it out as soon as the call returns. No handler call begins after this
    /// returns; one that holds the lock already may still be about to.
    func cancel() {
        let queued = flags.withLock { flags -> Bool in
            if flags.finished, let segments = flags.segments {
                // The outcome waits for the download's other connections: cancel them.
                segments.cancel()
                return false
            }
            guard !flags.finished, flags.pendingFailure == nil else { return false }
            flags.pendingFailure = HotPotatoError.requestCancelled
            return true
        }
        if queued { failIfPending() }
    }

    // MARK: - Private

    private var elapsed: TimeInterval {
        Double(DispatchTime.now().uptimeNanoseconds &- startTime) / 1_000_000_000
    }

    /// Runs `body` with the driver under the handler lock, unless the outcome is settled or a
    /// cancel is pending (which it then carries out instead), and settles the outcome when the
    /// driver has a result; then, with the lock released, delivers what the call left to do and
    /// carries out a cancel that arrived meanwhile.
    @discardableResult
    private func withHandler<T>(_ body: (ResponseDriver<Handler>, inout Aftermath) -> T) -> T? {
        if isFinished { return nil }
        var aftermath = Aftermath()
        handlerLock.lock()
        var value: T?
        if let failure = takePendingFailure() {
            _ = driver.fail(failure)
            settleIfDone(&aftermath)
        } else if !isFinished {
            value = body(driver, &aftermath)
            settleIfDone(&aftermath)
        }
        handlerLock.unlock()
        deliver(aftermath)
        failIfPending()
        return value
    }

    /// Carries out a pending failure if the handler lock is free. When it is not, its holder will:
    /// every thread that releases the lock calls this afterwards, and the failure was pending
    /// before the lock was found busy.
    private func failIfPending() {
        while flags.withLock({ $0.pendingFailure != nil }), handlerLock.try() {
            var aftermath = Aftermath()
            if let failure = takePendingFailure() {
                _ = driver.fail(failure)
                settleIfDone(&aftermath)
            }
            handlerLock.unlock()
            deliver(aftermath)
        }
    }

    /// Called under the handler lock: the pending failure, if any and the outcome is not settled
    /// yet; clears it either way.
    private func takePendingFailure() -> HotPotatoError? {
        flags.withLock { flags -> HotPotatoError? in
            defer { flags.pendingFailure = nil }
            return flags.finished ? nil : flags.pendingFailure
        }
    }

    /// Called under the handler lock: marks the outcome settled once the driver has a result, so
    /// that no handler call follows, and leaves the rest to ``deliver(_:)``.
    private func settleIfDone(_ aftermath: inout Aftermath) {
        guard let result = driver.result else { return }
        // A split download's other connections, known to `cancel()` in the same step as the
        // outcome is settled: set a moment later, a cancel in between found the call finished
        // and no connections to stop, and was lost.
        let segments = (driver.handler as? FileWriter)?.segments
        let (stopEngine, phases, connection) = flags.withLock { flags in
            flags.finished = true
            flags.pendingFailure = nil
            flags.segments = segments
            defer { flags.stopEngine = nil }
            return (flags.stopEngine, flags.phases, flags.connection)
        }
        aftermath.stopEngine = stopEngine
        let outcome: Completion<Handler.Content>.Outcome
        switch result {
        case .success(let content):
            let head = driver.head ?? ResponseHead(status: 0)
            let timings = TransferTimings(start: start, head: headTime, total: elapsed, phases: phases, connection: connection)
            outcome = .success(Response(head: head, content: content, timings: timings))
        case .failure(var error):
            // What the engine measured of the attempt, for `-w` and the monitors: nothing when
            // nothing was sent (no phases, no head).
            if error.timings == nil, phases != nil || headTime != nil {
                error.timings = TransferTimings(start: start, head: headTime, total: elapsed, phases: phases, connection: connection)
            }
            outcome = .failure(error)
        }
        self.outcome = outcome
        aftermath.settles = true
        if let segments {
            aftermath.segments = segments
            // What the engine measured of this first connection (at its head: it is stopped
            // where its part ends), for the whole download's timings.
            segments.primaryMeasured(phases: phases, connection: connection)
        }
    }

    /// Called with the handler lock released: resumes the callers, updates progress and stops
    /// the engine, none of which may wait for anything the lock's holder could be waiting for.
    private func deliver(_ aftermath: Aftermath) {
        if let report = aftermath.report { progress.report(report.progress, force: report.force) }
        guard aftermath.settles, let outcome else { return }
        if let segments = aftermath.segments {
            // The first connection of several: the call completes when the whole file is placed.
            aftermath.stopEngine?()
            let failure: HotPotatoError?
            if case .failure(let error) = outcome { failure = error } else { failure = nil }
            // An existential: a closure capturing this generic transfer would capture its
            // handler's metatype.
            let settling: any SegmentSettling = DeferredSettlement(
                completion: completion, outcome: outcome, progress: finishesProgress ? progress : nil, startTime: startTime,
                segments: segments)
            segments.primaryEnded(failure) { concluded in
                // The resource changed while it ran: the request starts over (at most twice).
                if concluded != nil, segments.resourceChanged, let restart = segments.restart {
                    segments.restarted(cancel: restart { settling.settle(startedOver: $0) })
                } else {
                    settling.settle(concluded)
                }
            }
            return
        }
        if finishesProgress { progress.finish() }
        completion.settle(outcome)
        aftermath.stopEngine?()
    }

    /// Called under the handler lock, once per chunk: no header parsing here. `nil` for the first
    /// connection of a download over several: the download reports the whole file's progress
    /// itself, under its own lock, so that no connection's count overtakes another's.
    private func currentProgress(_ driver: ResponseDriver<Handler>) -> TransferProgress? {
        if (capabilities.resuming as? FileWriter)?.segments != nil { return nil }
        return TransferProgress(bytesReceived: progressOffset + driver.bytesReceived, expectedBytes: expectedBytes)
    }
}

/// What a handler call leaves to do once the handler lock is released: a progress update, and
/// the settling of the outcome with the engine's stop. Not generic (nor nested in ``Transfer``,
/// which would make it so): it is made for every handler call, and a generic one costs
/// run-time metadata look-ups each time.
private struct TransferAftermath {
    var report: (progress: TransferProgress, force: Bool)?
    /// Whether the call's outcome was settled: the ``Completion`` is to be told.
    var settles = false
    var stopEngine: (@Sendable () -> Void)?
    /// The first connection of a download over several ended: the outcome waits for the rest.
    var segments: SegmentedDownload?
}

/// Completes a call whose transfer was the first connection of a download over several, once the
/// download concludes (see ``SegmentedDownload/primaryEnded(_:settle:)``).
protocol SegmentSettling: Sendable {
    /// Settles the call: with the transfer's own outcome, or with `failure`.
    func settle(_ failure: HotPotatoError?)
    /// Settles the call with the outcome of the request started over.
    func settle(startedOver outcome: any Sendable)
}

private struct DeferredSettlement<Content: Sendable>: SegmentSettling {
    let completion: Completion<Content>
    let outcome: Completion<Content>.Outcome
    let progress: ProgressReporter?
    let startTime: UInt64
    let segments: SegmentedDownload

    func settle(_ failure: HotPotatoError?) {
        progress?.finish()
        // The whole download's time, not its first connection's, and every connection's
        // measurements together.
        let total = Double(DispatchTime.now().uptimeNanoseconds &- startTime) / 1_000_000_000
        let (phases, connection) = segments.measurements(total: total)
        func whole(_ timings: TransferTimings) -> TransferTimings {
            var timings = timings
            timings.total = total
            timings.phases = phases ?? timings.phases
            timings.connection = connection ?? timings.connection
            return timings
        }
        if var failure {
            failure.timings = failure.timings.map(whole)
            completion.settle(.failure(failure))
        } else if case .success(let response) = outcome {
            completion.settle(.success(Response(head: response.head, content: response.content, timings: whole(response.timings))))
        } else {
            completion.settle(outcome)
        }
    }

    func settle(startedOver outcome: any Sendable) {
        progress?.finish()
        if let outcome = outcome as? Completion<Content>.Outcome {
            completion.settle(outcome)
        } else {
            completion.settle(.failure(HotPotatoError(.handlerFailed, reason: "The download started over gave no file.")))
        }
    }
}
