import Foundation

/// One file fetched over several connections (see "Several connections" in ``FileWriter``): the
/// download's own transfer (worker 0, the *first connection*, whose `Range: bytes=N-` response
/// runs to the end of the file) and up to `maximumConnections - 1` others, each asking for one
/// range with `If-Range`, all writing at their offsets in the one file.
///
/// It decides who fetches what (``SegmentPlan``: equal parts at first, then a connection that
/// finishes takes half of the slowest one's rest), starts the other requests through a
/// ``SegmentLauncher``, counts progress over the whole file, advances the checksum over the
/// part written without a gap, keeps a resumable download's record of the ranges on disk, and,
/// once the first connection's transfer has ended (``primaryEnded(_:settle:)``, which holds its
/// call's outcome until then), places the file or fails:
///
/// - a connection that fails (a reset, a timeout, a `5xx`) gives its rest back, and another
///   request takes it — up to a budget of failures, then the download fails with the last one;
/// - a connection turned away with `429` or `503` (a server's cap on connections per client)
///   lowers the number of connections to those running, and costs nothing from the budget;
/// - an answer of another version of the resource (another validator, `412`) fails the download
///   with ``HotPotatoError/Code/resumeMismatch`` and discards everything (no mixed versions);
/// - a `200` of the same version (the server ignores ranges) stops further connections; the
///   first connection, whose response runs on, takes the rest.
final class SegmentedDownload: @unchecked Sendable {
    /// No part is split smaller than this; a download with less than twice this to fetch uses one
    /// connection.
    static let minimumSplit: Int64 = 1 << 20
    /// The largest piece when the file's digest follows its prefix.
    static let orderedPiece: Int64 = 32 << 20

    let length: Int64
    /// The strong `ETag` every response must carry.
    let validator: String
    let maximumConnections: Int

    private let lock = NSLock()
    private var plan: SegmentPlan
    private let launcher: SegmentLauncher
    /// The file every worker writes (its writer's descriptor; each worker duplicates it).
    private let descriptor: Int32
    private let path: String?
    /// Until the download concludes; then `nil`.
    private var writer: FileWriter?
    /// Called with the digest's new prefix; and with the written ranges, for a resumable record.
    private let advanceDigest: (@Sendable (Int64) -> Void)?
    private let saveRecord: (@Sendable ([Range<Int64>]) -> Void)?
    private let recordLock = NSLock()
    /// Guarded by `recordLock`: the download concluded; the record is not written any more (a
    /// worker's late save would put back the record of a file already placed).
    private var recordClosed = false

    private enum State {
        case running
        case concluding(HotPotatoError?)
        case finished
    }

    // Guarded by `lock`.
    private var state = State.running
    private var helpers: [Int: (@Sendable () -> Void)?] = [:]
    private var handlers: [Int: SegmentHandler] = [:]
    private var sources: SegmentSources
    /// Each running part's source (0 for the first connection) and when it began.
    private var workerSources: [Int: (source: Int, began: UInt64)] = [0: (0, 0)]
    private var nextWorker = 1
    private var primaryRunning = true
    private var settlePrimary: (@Sendable (HotPotatoError?) -> Void)?
    private var rangesIgnored = false
    /// How many times a connection was asked to fetch the rest of the file from its start, the
    /// first one having ended before the server was found to ignore ranges.
    private var takeovers = 0
    static let maximumTakeovers = 3
    /// The resource changed: nothing downloaded is kept, not even for a resumable download.
    private var discardsEverything = false
    /// The cancel of the download started over after the resource changed, if it was.
    private var restartedCancel: (@Sendable () -> Void)?

    /// Whether the download failed because the resource changed while it ran (then the request
    /// starts over, once or twice: see ``SegmentLauncher/restart``).
    var resourceChanged: Bool { lock.withLock { discardsEverything } }

    /// How to start the request over, while it may be.
    var restart: (@Sendable (_ deliver: @escaping @Sendable (any Sendable) -> Void) -> @Sendable () -> Void)? {
        launcher.restart
    }

    /// The download was started over (after the resource changed): a cancel goes to it.
    func restarted(cancel: @escaping @Sendable () -> Void) {
        let cancelled = lock.withLock { () -> Bool in
            restartedCancel = cancel
            if case .concluding(let error) = state, error?.code == .cancelled { return true }
            return cancelRequested
        }
        if cancelled { cancel() }
    }
    private var cancelRequested = false
    /// How many connections run at once: ``maximumConnections``, lowered to those running when
    /// the server turns one away (see ``SegmentHandler/Verdict/busy``).
    private var connectionCap: Int
    private var failures = 0
    private var lastFailure: HotPotatoError?
    private var unsavedBytes: Int64 = 0
    private var lastSave: UInt64 = 0
    private var reportedPrefix: Int64 = 0
    private var measured = SegmentMeasurements()

    /// The failures of connections a download survives.
    var failureBudget: Int { 3 + 2 * maximumConnections }

    init(
        writer: FileWriter, length: Int64, validator: String, written: [Range<Int64>], maximumConnections: Int,
        mirrors: [URL] = [], launcher: SegmentLauncher, descriptor: Int32, path: String?,
        advanceDigest: (@Sendable (Int64) -> Void)?, saveRecord: (@Sendable ([Range<Int64>]) -> Void)?
    ) {
        self.writer = writer
        self.length = length
        self.validator = validator
        self.maximumConnections = max(1, maximumConnections)
        connectionCap = max(1, maximumConnections)
        self.launcher = launcher
        self.descriptor = descriptor
        self.path = path
        self.advanceDigest = advanceDigest
        self.saveRecord = saveRecord
        plan = SegmentPlan(length: length, written: written, minimumSplit: Self.minimumSplit)
        sources = SegmentSources(validator: validator, mirrors: mirrors)
        reportedPrefix = plan.contiguousPrefix
    }

    /// Starts: the first connection takes the part that begins at `offset` (where its response
    /// begins), and the others are asked for. Returns the first connection's writer.
    func start(primaryAt offset: Int64) throws -> SegmentWriter {
        let writer = try SegmentWriter(download: self, worker: 0, descriptor: descriptor, offset: offset, path: path)
        lock.withLock {
            // With a checksum, pieces of at most 32 MiB taken in order: the digest follows the
            // written prefix while the file downloads (with one part a connection, it could
            // start on most of the file only at the end).
            plan.divide(into: maximumConnections, largest: advanceDigest == nil ? .max : Self.orderedPiece)
            _ = plan.assign(0, startingAt: offset, now: Self.now)
            workerSources[0] = (0, Self.now)
            sources.firstConnectionStarted()
            launcher.progress.report(TransferProgress(bytesReceived: plan.bytesReceived, expectedBytes: length), force: true)
        }
        saveRecordNow()
        advance()
        return writer
    }

    // MARK: - Workers' calls

    /// The validator a worker's answer must carry: its source's, once pinned (`nil` for a mirror
    /// not heard from yet).
    func validator(of worker: Int) -> String? {
        lock.withLock { workerSources[worker].flatMap { sources.sources[$0.source].validator } }
    }

    /// A worker's `206` of the right range and size, with the strong `ETag` `validator`; its
    /// response ends before `end`. Returns its writer, or `nil` when its source's pinned
    /// validator is another (the version changed).
    func beginWorker(_ worker: Int, servedUpTo end: Int64, validator: String) throws -> SegmentWriter? {
        // `nil`: another version; `.some(nil)`: the same, but nothing left for this worker.
        let start: Int64?? = lock.withLock {
            guard let source = workerSources[worker]?.source, sources.pin(source, validator) else { return .none }
            plan.truncate(worker, to: end)
            return .some(plan.position(of: worker)?.claimed)
        }
        guard let start else { return nil }
        guard let start else { throw BodyComplete() }
        return try SegmentWriter(download: self, worker: worker, descriptor: descriptor, offset: start, path: path)
    }

    /// Claims up to `count` more bytes for `worker` (see ``SegmentPlan/claim(_:count:)``), and
    /// says, in the same step, whether the worker has then claimed every byte it will. Both under
    /// one lock: were they two steps, a part released in between could make a worker whose
    /// claim fell short look unfinished, and the bytes it was not granted would be dropped while
    /// its next bytes were written where those belonged.
    ///
    /// The progress is reported under the lock too: reported after it, a count taken by one
    /// worker could reach the reporter after a larger one taken later by another — or after the
    /// final report of the whole file — and progress would go backwards. (The reporter only
    /// takes its own lock and queues the callbacks: nothing it does waits on this lock.)
    func claim(_ worker: Int, count: Int) -> (granted: Int, finished: Bool) {
        lock.withLock {
            guard case .running = state else { return (0, true) }
            let granted = plan.claim(worker, count: count)
            launcher.progress.report(TransferProgress(bytesReceived: plan.bytesReceived, expectedBytes: length))
            return (granted, plan.isFinished(worker))
        }
    }

    func wrote(_ worker: Int, upTo offset: Int64) {
        let (prefix, save) = lock.withLock { () -> (Int64?, Bool) in
            let before = plan.bytesWritten
            plan.wrote(worker, upTo: offset)
            unsavedBytes += plan.bytesWritten - before
            // The record lags what is on disk by at most 8 MiB or half a second: a crash or
            // `kill -9` costs no more than that to fetch again.
            let now = Self.now
            let save = saveRecord != nil && (unsavedBytes >= 8 << 20 || (unsavedBytes > 0 && now &- lastSave >= 500_000_000))
            if save {
                unsavedBytes = 0
                lastSave = now
            }
            let prefix = plan.contiguousPrefix
            guard prefix > reportedPrefix else { return (nil, save) }
            reportedPrefix = prefix
            return (prefix, save)
        }
        if let prefix { advanceDigest?(prefix) }
        if save { saveRecordNow() }
    }

    // MARK: - Ends

    /// The first connection's transfer ended (`failure` `nil`: its part is written); `settle`
    /// completes its call once the whole download has concluded.
    func primaryEnded(_ failure: HotPotatoError?, settle: @escaping @Sendable (HotPotatoError?) -> Void) {
        lock.withLock {
            primaryRunning = false
            settlePrimary = settle
            let assignment = plan.active[0]
            if let assignment { measured.addBytes(assignment.written - assignment.start) }
            plan.release(0)
            if let (_, began) = workerSources.removeValue(forKey: 0) {
                sources.ended(0, bytes: failure == nil ? assignment.map { $0.written - $0.start } : nil, seconds: Double(Self.now &- began) / 1e9)
            }
            if let failure { noteFailure(failure, verdict: nil) }
        }
        advance()
    }

    /// What the engine measured of the first connection, as its part ended.
    func primaryMeasured(phases: TransferPhases?, connection: ConnectionFacts?) {
        lock.withLock { measured.recordPrimary(phases: phases, connection: connection) }
    }

    /// Every connection's measurements together (see ``SegmentMeasurements``).
    func measurements(total: TimeInterval) -> (phases: TransferPhases?, connection: ConnectionFacts?) {
        lock.withLock { measured.merged(total: total) }
    }

    /// Cancels the download: every connection stops, and it fails with
    /// ``HotPotatoError/Code/cancelled``.
    func cancel() {
        let (stops, restarted) = lock.withLock { () -> ([@Sendable () -> Void], (@Sendable () -> Void)?) in
            cancelRequested = true
            return (conclude(HotPotatoError.requestCancelled), restartedCancel)
        }
        stops.forEach { $0() }
        restarted?()
        advance()
    }

    private func workerEnded(_ worker: Int, _ failure: HotPotatoError?, _ timings: TransferTimings?) {
        let delay: Double = lock.withLock {
            measured.add(timings)
            helpers.removeValue(forKey: worker)
            let verdict = handlers.removeValue(forKey: worker)?.verdict
            let assignment = plan.active[worker]
            if let assignment { measured.addBytes(assignment.written - assignment.start) }
            plan.release(worker)
            guard let (source, began) = workerSources.removeValue(forKey: worker) else { return 0 }
            let seconds = Double(Self.now &- began) / 1e9
            sources.ended(source, bytes: failure == nil ? assignment.map { $0.written - $0.start } : nil, seconds: seconds)
            guard let failure else { return 0 }
            if source > 0 {
                // A mirror's failure: it is dropped for an answer that does not fit, or for a
                // second failure; the budget counts only failures of connections (a mirror that
                // turns a connection away for now counts as one).
                let fits = verdict == nil || verdict == SegmentHandler.Verdict.none || verdict == .accepted || verdict == .busy
                sources.failed(source, failure.reason, dropsAtOnce: !fits)
                if !fits { return 0 }
                countFailure(failure)
            } else {
                noteFailure(failure, verdict: verdict)
            }
            return min(0.05 * Double(1 << min(failures, 5)), 1)
        }
        saveRecordNow()
        if delay > 0 {
            DispatchQueue.global().asyncAfter(deadline: .now() + delay) { self.advance() }
        } else {
            advance()
        }
    }

    /// Under the lock: what a worker's failure means.
    private func noteFailure(_ failure: HotPotatoError, verdict: SegmentHandler.Verdict?) {
        guard case .running = state else { return }
        switch verdict {
        case .changed:
            var error = HotPotatoError(
                .resumeMismatch,
                reason: "The resource changed during the download (\(failure.reason)); what was downloaded was discarded, "
                    + "so that the next attempt starts over.",
                head: failure.head)
            error.path = path
            discardsEverything = true
            _ = conclude(error)
        case .rangesIgnored:
            rangesIgnored = true
            sources.ownURLServesParts = false
        case .busy:
            // The server turned a connection away (`429`, `503`: a cap on connections per
            // client, as nginx's `limit_conn`, or a busy moment): the download goes on with the
            // connections it has, and the part goes back to them. Only when none is left is it a
            // failure, and the next request waits as after one.
            let running = helpers.count + (primaryRunning ? 1 : 0)
            if running > 0 {
                connectionCap = min(connectionCap, running)
                return
            }
            countFailure(failure)
        default:
            if failure.code == .cancelled || failure.code == .writeFailed || failure.code == .fileSystemError
                || failure.code == .bodyTooLarge || failure.code == .malformedResponse && verdict == nil {
                _ = conclude(failure)
                return
            }
            countFailure(failure)
        }
    }

    /// Under the lock: one more failure of a connection; past the budget, the download fails
    /// with it.
    private func countFailure(_ failure: HotPotatoError) {
        failures += 1
        lastFailure = failure
        if failures > failureBudget { _ = conclude(failure) }
    }

    /// Under the lock: stops the download with `error` (`nil`: complete); returns the cancels to
    /// call once the lock is released.
    private func conclude(_ error: HotPotatoError?) -> [@Sendable () -> Void] {
        guard case .running = state else { return [] }
        state = .concluding(error)
        var stops = helpers.values.compactMap { $0 }
        if primaryRunning { stops.append(launcher.cancelPrimary) }
        return stops
    }

    /// Starts what there is room and work for, or concludes when nothing is left.
    private func advance() {
        var stops: [@Sendable () -> Void] = []
        var finale: (HotPotatoError?, @Sendable (HotPotatoError?) -> Void)?
        var launches: [(Int, Range<Int64>, URL?, String?)] = []
        var takeover: (Int, Range<Int64>)?
        lock.withLock {
            if case .running = state {
                let running = helpers.count + (primaryRunning ? 1 : 0)
                var room = connectionCap - running
                if !sources.anyServesParts { room = 0 }
                while room > 0, let range = plan.next(for: nextWorker, now: Self.now) {
                    guard let source = sources.choose() else {
                        plan.release(nextWorker)
                        break
                    }
                    workerSources[nextWorker] = (source, Self.now)
                    launches.append((nextWorker, range, sources.sources[source].url, sources.sources[source].validator))
                    helpers[nextWorker] = .some(nil)
                    nextWorker += 1
                    room -= 1
                }
                if launches.isEmpty, helpers.isEmpty, !primaryRunning {
                    if plan.isComplete {
                        state = .concluding(nil)
                    } else if rangesIgnored, takeovers < Self.maximumTakeovers, let offset = plan.firstMissingOffset {
                        // The server ignores ranges and the first connection has ended: one
                        // connection fetches the file again and writes what is missing.
                        takeovers += 1
                        let worker = nextWorker
                        nextWorker += 1
                        workerSources[worker] = (0, Self.now)
                        helpers[worker] = .some(nil)
                        takeover = (worker, plan.takeOver(worker, from: offset, now: Self.now))
                    } else {
                        var error = lastFailure ?? HotPotatoError(
                            .malformedResponse,
                            reason: "The server stopped serving ranges of the file; \(plan.missingBytes) bytes of it could "
                                + "not be fetched.")
                        let dropped = sources.droppedMirrors
                        if !dropped.isEmpty {
                            error.reason += " Mirrors dropped: " + dropped.map { "\(Redaction.redactingCredentials(inURL: $0.url.absoluteString)) (\($0.why))" }
                                .joined(separator: "; ") + "."
                        }
                        stops = conclude(error)
                    }
                }
            }
            if case .concluding(let error) = state, helpers.isEmpty, !primaryRunning, let settle = settlePrimary {
                state = .finished
                finale = (error, settle)
                // Let go of it: the closure holds this download (and through the launcher, the
                // request and its session), which would otherwise hold itself for ever.
                settlePrimary = nil
            }
        }
        stops.forEach { $0() }
        for (worker, range, url, validator) in launches { launch(worker, range, url: url, validator: validator) }
        if let (worker, range) = takeover { launch(worker, range, url: nil, validator: validator, takingOver: true) }
        if let (error, settle) = finale {
            DispatchQueue.global().async { self.finish(error, settle: settle) }
        }
    }

    private func launch(_ worker: Int, _ range: Range<Int64>, url: URL?, validator: String?, takingOver: Bool = false) {
        let handler = SegmentHandler(download: self, worker: worker, range: range, takingOver: takingOver)
        lock.withLock { handlers[worker] = handler }
        let asked = takingOver ? "bytes=\(range.lowerBound)-" : "bytes=\(range.lowerBound)-\(range.upperBound - 1)"
        var headers: [(name: String, value: String)] = [("Range", asked), ("Accept-Encoding", "identity")]
        // A mirror's first part asks without a validator: its answer pins one.
        if let validator { headers.append(("If-Range", validator)) }
        let stop = launcher.start(headers, handler, url) { [self] failure, timings in workerEnded(worker, failure, timings) }
        let stopNow = lock.withLock { () -> Bool in
            guard helpers[worker] != nil else { return false }
            helpers[worker] = stop
            if case .running = state { return false }
            return true
        }
        if stopNow { stop() }
    }

    /// Places the file, or cleans up, and completes the first connection's call.
    private func finish(_ error: HotPotatoError?, settle: @Sendable (HotPotatoError?) -> Void) {
        let (writer, discards) = lock.withLock { () -> (FileWriter?, Bool) in
            defer { self.writer = nil }
            return (self.writer, discardsEverything)
        }
        guard let writer else { return }
        if let error {
            if discards {
                closeRecord()
                writer.discardsPartial = true
            } else {
                saveRecordNow(closing: true)
            }
            writer.abandonSegments()
            settle(error)
            return
        }
        closeRecord()
        do {
            try writer.completeSegments()
            launcher.progress.report(TransferProgress(bytesReceived: length, expectedBytes: length), force: true)
            settle(nil)
        } catch {
            writer.abandonSegments()
            settle(error as? HotPotatoError ?? HotPotatoError(.writeFailed, reason: "\(error)"))
        }
    }

    private func saveRecordNow(closing: Bool = false) {
        guard let saveRecord else { return }
        recordLock.withLock {
            guard !recordClosed else { return }
            if closing { recordClosed = true }
            let written = lock.withLock { plan.written }
            saveRecord(written)
        }
    }

    /// No record is written after this.
    private func closeRecord() {
        recordLock.withLock { recordClosed = true }
    }

    private static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }
}
