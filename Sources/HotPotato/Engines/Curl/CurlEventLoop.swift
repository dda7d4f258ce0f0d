import CCurl
import Foundation

/// The libcurl engine's I/O thread: one multi handle that carries every transfer of a session —
/// `http` and `https`, HTTP/1.1 and HTTP/2, proxied or not, uploads — and waits on all their
/// sockets at once (epoll on Linux; see `hp_loop_run_once`).
///
/// **Who does what.** The I/O thread does the I/O and nothing else: it adds, pauses, resumes and
/// removes easy handles and lets libcurl read and write; libcurl's callbacks run there and queue
/// each transfer's events in its ``CurlHandoff``, which a ``DeliveryPool`` thread delivers to the
/// handler. The I/O thread never waits for a handler, a body producer or a lock held across one:
/// a transfer holds a thread only while its handler runs. Every call into libcurl for these
/// handles happens on the I/O thread; other threads leave requests in its inbox and wake it.
///
/// **Limits.** libcurl opens at most ``Session/Configuration/maximumConnectionsPerHost``
/// connections to one host (name and port); requests beyond them wait in libcurl for a connection
/// of that host only. HTTP/2 requests share a connection up to the server's
/// `MAX_CONCURRENT_STREAMS` (and ``maximumStreamsPerConnection``), and more connections are opened
/// beyond that, within the per-host limit.
///
/// **Idle transfers** cost no thread and no timer: the thread looks every
/// ``idleSweepInterval`` for transfers that have moved no byte for longer than their timeout.
///
/// **Lifetime.** The thread starts with the first transfer and ends, closing its connections,
/// once it has had none for ``idleLifetime`` seconds or the engine is invalidated.
final class CurlEventLoop: @unchecked Sendable {
    /// How long the thread waits for work, with no transfer, before it ends.
    static let idleLifetime: TimeInterval = 15
    /// How often idle transfers are looked for.
    static let idleSweepInterval: TimeInterval = 0.25
    /// The most HTTP/2 streams one connection carries, whatever the server allows.
    static let maximumStreamsPerConnection = 1000
    /// Easy handles kept, reset, for the next transfers.
    static let idleHandleLimit = 64
    /// The most turns batched body bytes wait before they go to a delivery thread, when the
    /// network never lets the thread wait (see ``CurlHandoff/offer(_:batching:)``).
    static let turnsBeforeFlush = 8

    /// The session's configuration, which its transfers read too.
    let configuration: Session.Configuration
    /// A download lane's loop (see ``CurlEngine``): its transfers' events are delivered on its
    /// own thread as they come (``CurlHandoff/deliversInline``).
    let deliversInline: Bool

    private let lock = AdaptiveLock()
    // Guarded by `lock`.
    private var arriving: [CurlTransfer] = []
    private var stopping: [CurlTransfer] = []
    private var resumingReceive: [CurlTransfer] = []
    private var resumingSend: [CurlTransfer] = []
    /// The loop, while its thread runs and can be woken.
    private var loop: OpaquePointer?
    private var threadRunning = false
    private var invalidated = false
    /// The session was invalidated with its transfers cancelled: the thread cancels those it has.
    private var cancelsAll = false
    /// Transfers added (or reserved) and not yet ended.
    private var transferCount = 0
    /// The I/O thread, while it runs: for tests that read its CPU time.
    private var thread: pthread_t?

    // Touched only on the I/O thread.
    /// The transfers whose handles are in the multi handle, by handle address: the loop holds
    /// them, so they outlive the callbacks' unretained pointers to them.
    private var active: [UInt: CurlTransfer] = [:]
    /// How many of ``active`` belong to a ``ReceiveRateGroup``: none, and only a session limit
    /// makes ``shareReceiveRate()`` look at the transfers.
    private var groupedTransfers = 0
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private var nextSweep: UInt64 = 0
    /// Handoffs holding batched body bytes, to flush before the thread waits for the network.
    private var batchedHandoffs: [CurlHandoff] = []
    /// Turns taken since the first of `batchedHandoffs` was batched.
    private var turnsWithBatches = 0
    /// A response whose handoff may deliver it here ended this turn: the batches are flushed at
    /// its end rather than after a last look at the network.
    private var batchesEnded = false

    init(configuration: Session.Configuration, deliversInline: Bool = false) {
        self.configuration = configuration
        self.deliversInline = deliversInline
    }

    // MARK: - Any thread

    /// Takes on a transfer to come if the loop carries none (and was not invalidated): `true`
    /// when the caller is to ``add(_:reserved:)`` it with `reserved`.
    func reserve() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard transferCount == 0, !invalidated else { return false }
        transferCount = 1
        return true
    }

    /// Hands `transfer` to the I/O thread, starting it if it is not running; `reserved` when a
    /// ``reserve()`` made room for it.
    func add(_ transfer: CurlTransfer, reserved: Bool = false) {
        let start = send { eventLoop -> Bool in
            if !reserved { eventLoop.transferCount += 1 }
            eventLoop.arriving.append(transfer)
            defer { eventLoop.threadRunning = true }
            return !eventLoop.threadRunning
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = threadName
            thread.start()
        }
    }

    /// Asks the I/O thread to stop `transfer` (remove its handle, which resets an HTTP/2 stream
    /// or closes an HTTP/1.1 connection); its ending is then queued. Does nothing once it ended.
    func stop(_ transfer: CurlTransfer) {
        guard !transfer.handoff.hasEnded else { return }
        send { $0.stopping.append(transfer) }
    }

    /// Asks the I/O thread to resume receiving for `transfer`, which its handoff had paused.
    func resumeReceiving(_ transfer: CurlTransfer) {
        send { $0.resumingReceive.append(transfer) }
    }

    /// Asks the I/O thread to read `transfer`'s request body again: its producer has the next
    /// bytes (or ended, or failed).
    func resumeSending(_ transfer: CurlTransfer) {
        send { $0.resumingSend.append(transfer) }
    }

    /// Ends the thread once it has no transfer left; with `cancellingTransfers`, cancels every
    /// transfer it has or is about to get first.
    func invalidate(cancellingTransfers: Bool) {
        let waiting = send { eventLoop -> [CurlTransfer] in
            eventLoop.invalidated = true
            if cancellingTransfers { eventLoop.cancelsAll = true }
            return cancellingTransfers ? eventLoop.arriving : []
        }
        for transfer in waiting { transfer.sink.cancel() }
    }

    /// Runs `change` under the lock, then wakes the I/O thread.
    @discardableResult
    private func send<T>(_ change: (CurlEventLoop) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        let value = change(self)
        if let loop { hp_loop_wake(loop) }
        return value
    }

    // MARK: - The I/O thread

    /// The thread's body. It marks itself stopped only once its loop is torn down: a transfer
    /// that arrives meanwhile is taken by another round here, never by a second thread that
    /// would share the handles and batches this one is still clearing.
    private func run() {
        // Foundation's `Thread.name` does not reach the system on Linux, where a thread keeps the
        // name of the one that started it.
        hp_name_current_thread(threadName)
        send { $0.thread = pthread_self() }
        while runLoop() {
            let more = send { eventLoop -> Bool in
                if eventLoop.arriving.isEmpty {
                    eventLoop.threadRunning = false
                    eventLoop.thread = nil
                }
                return !eventLoop.arriving.isEmpty
            }
            guard more else { return }
        }
    }

    /// The CPU time the I/O thread has used, in nanoseconds; `nil` when it is not running (or the
    /// system cannot tell). For tests: the thread must not spend CPU while its transfers wait.
    var threadCPUNanoseconds: UInt64? {
        #if os(Linux)
        lock.lock()
        defer { lock.unlock() }
        guard let thread else { return nil }
        var clock = clockid_t()
        var time = timespec()
        guard pthread_getcpuclockid(thread, &clock) == 0, clock_gettime(clock, &time) == 0 else { return nil }
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
        #else
        return nil
        #endif
    }

    /// The I/O thread's name, as `top -H`, a debugger or a crash report shows it (at most 15
    /// bytes: Linux's limit).
    var threadName: String { deliversInline ? "HotPotato.lane" : "HotPotato.curl" }

    /// Runs one loop until it has had no transfer for ``idleLifetime`` seconds or the engine is
    /// invalidated, then tears it down. `false` when no loop could be made (the transfers
    /// waiting for it have failed, and the thread is marked stopped).
    private func runLoop() -> Bool {
        guard let loop = hp_loop_create(), let multi = hp_loop_multi(loop) else {
            let stranded = send { eventLoop -> [CurlTransfer] in
                eventLoop.threadRunning = false
                eventLoop.thread = nil
                eventLoop.transferCount -= eventLoop.arriving.count
                defer { eventLoop.arriving.removeAll() }
                return eventLoop.arriving
            }
            let error = HotPotatoError(.transportFailed, reason: "libcurl could not create a multi handle.")
            for transfer in stranded { transfer.handoff.push(.ending(.failure(error))) }
            return false
        }
        configure(multi)
        lock.lock()
        self.loop = loop
        lock.unlock()
        var lastBusy = DispatchTime.now().uptimeNanoseconds
        while let requests = nextRequests(idleSince: lastBusy) {
            if requests.cancelsAll {
                for transfer in requests.adds { transfer.sink.cancel() }
                for transfer in active.values { transfer.sink.cancel() }
            }
            for transfer in requests.adds { add(transfer, to: multi) }
            for transfer in requests.receiving where isActive(transfer) { transfer.unpause(receiving: true) }
            for transfer in requests.sending where isActive(transfer) { transfer.unpause(receiving: false) }
            for transfer in requests.stops where isActive(transfer) {
                guard let handle = transfer.handle else { continue }
                remove(handle, from: multi)
                retire(transfer, ending: transfer.stopped(), handle: handle)
            }
            readFinished(multi)
            let now = DispatchTime.now().uptimeNanoseconds
            if !active.isEmpty { lastBusy = now }
            let sweeps = now >= nextSweep
            if sweeps { sweepIdle(multi, now: now) }
            if !requests.adds.isEmpty || sweeps { shareReceiveRate() }
            let untilSweep = Int((nextSweep &- now) / 1_000_000) + 1
            // With bytes batched, only a look: they go out before the thread waits.
            let wait = batchedHandoffs.isEmpty ? (active.isEmpty ? 1000 : min(untilSweep, 1000)) : 0
            let handled = hp_loop_run_once(loop, Int32(wait))
            readFinished(multi)
            if !batchedHandoffs.isEmpty {
                turnsWithBatches += 1
                if handled <= 0 || batchesEnded || turnsWithBatches >= Self.turnsBeforeFlush { flushBatches() }
            }
            batchesEnded = false
        }
        flushBatches()
        for handle in idleHandles { hp_curl_easy_cleanup(handle) }
        idleHandles.removeAll()
        hp_loop_destroy(loop)
        return true
    }

    /// Leaves `handoff`'s batched bytes to be sent on before the thread next waits for the
    /// network, or after ``turnsBeforeFlush`` turns if it never does. Called on the I/O thread.
    func flushBeforeWaiting(_ handoff: CurlHandoff) {
        if batchedHandoffs.isEmpty { turnsWithBatches = 0 }
        batchedHandoffs.append(handoff)
    }

    /// Queues a head or an ending of `transfer`, to be flushed before the thread next waits when
    /// its handoff may deliver a whole small response on this thread. Called on the I/O thread.
    func queue(_ event: CurlHandoff.Event, of transfer: CurlTransfer) {
        if transfer.handoff.push(event, batching: true) { flushBeforeWaiting(transfer.handoff) }
        // A whole response waits for nothing more: flushed at the end of this turn.
        if case .ending = event, transfer.handoff.deliversWholeResponses { batchesEnded = true }
    }

    private func flushBatches() {
        for handoff in batchedHandoffs { handoff.flush() }
        batchedHandoffs.removeAll(keepingCapacity: true)
    }

    private func configure(_ multi: UnsafeMutableRawPointer) {
        hp_curl_multi_setopt_long(multi, Int32(HP_CURLMOPT_PIPELINING), Int(HP_CURLPIPE_MULTIPLEX))
        let perHost = configuration.maximumConnectionsPerHost
        hp_curl_multi_setopt_long(multi, Int32(HP_CURLMOPT_MAX_HOST_CONNECTIONS), perHost > 0 ? perHost : 0)
        hp_curl_multi_setopt_long(multi, Int32(HP_CURLMOPT_MAX_CONCURRENT_STREAMS), Self.maximumStreamsPerConnection)
    }

    /// The requests left for the I/O thread, or `nil` when its loop should end: it has no
    /// transfer, and the engine was invalidated or nothing came for ``idleLifetime`` seconds.
    /// The loop can no longer be woken then; the thread still counts as running until ``run()``
    /// has torn the loop down.
    private func nextRequests(idleSince: UInt64) -> (
        adds: [CurlTransfer], receiving: [CurlTransfer], sending: [CurlTransfer], stops: [CurlTransfer], cancelsAll: Bool
    )? {
        lock.lock()
        defer { lock.unlock() }
        let idle = Double(DispatchTime.now().uptimeNanoseconds &- idleSince) / 1e9
        if arriving.isEmpty, active.isEmpty, invalidated || idle > configuration.ioThreadIdleLifetime {
            loop = nil
            return nil
        }
        defer {
            arriving.removeAll(keepingCapacity: true)
            resumingReceive.removeAll(keepingCapacity: true)
            resumingSend.removeAll(keepingCapacity: true)
            stopping.removeAll(keepingCapacity: true)
            cancelsAll = false
        }
        return (arriving, resumingReceive, resumingSend, stopping, cancelsAll)
    }

    private func isActive(_ transfer: CurlTransfer) -> Bool {
        guard let handle = transfer.handle else { return false }
        return active[UInt(bitPattern: handle)] === transfer
    }

    private func add(_ transfer: CurlTransfer, to multi: UnsafeMutableRawPointer) {
        guard !transfer.sink.isFinished else {
            end(transfer, .settled)
            return
        }
        guard let handle = idleHandles.popLast() ?? hp_curl_easy_init() else {
            end(transfer, .failure(HotPotatoError(.transportFailed, reason: "libcurl could not create a handle.")))
            return
        }
        do {
            try transfer.begin(on: handle)
        } catch {
            recycle(handle)
            end(transfer, .failure(error))
            return
        }
        join(transfer, handle: handle, multi: multi)
        // A short idle timeout is looked at more often than every quarter second.
        let interval = Self.sweepInterval(shortestLimit: transfer.idleLimit)
        let now = DispatchTime.now().uptimeNanoseconds
        if nextSweep > now &+ interval { nextSweep = now &+ interval }
    }

    /// How long after a sweep the next one comes: ``idleSweepInterval``, or a quarter of the
    /// shortest idle timeout of the transfers running when that is shorter (at least 10 ms), so
    /// that a timeout under a second is kept to within a quarter of itself.
    static func sweepInterval(shortestLimit: UInt64) -> UInt64 {
        min(UInt64(idleSweepInterval * 1e9), max(10_000_000, shortestLimit / 4))
    }

    /// Adds `transfer`'s easy handle to the multi handle; a handle libcurl refuses ends the
    /// transfer.
    private func join(_ transfer: CurlTransfer, handle: UnsafeMutableRawPointer, multi: UnsafeMutableRawPointer) {
        active[UInt(bitPattern: handle)] = transfer
        if transfer.sink.receiveRateGroup != nil { groupedTransfers += 1 }
        if hp_curl_multi_add_handle(multi, handle) != Int32(HP_CURLM_OK) {
            forget(handle)
            transfer.end()
            retire(transfer, ending: .failure(HotPotatoError(.transportFailed, reason: "libcurl could not add a transfer.")), handle: handle)
        }
    }

    private func remove(_ handle: UnsafeMutableRawPointer, from multi: UnsafeMutableRawPointer) {
        hp_curl_multi_remove_handle(multi, handle)
        forget(handle)
    }

    /// Takes the transfer of `handle` out of ``active``.
    private func forget(_ handle: UnsafeMutableRawPointer) {
        if let transfer = active.removeValue(forKey: UInt(bitPattern: handle)), transfer.sink.receiveRateGroup != nil {
            groupedTransfers -= 1
        }
    }

    /// Takes the finished transfers' results from libcurl.
    private func readFinished(_ multi: UnsafeMutableRawPointer) {
        var handle: UnsafeMutableRawPointer?
        var result: Int32 = 0
        while hp_curl_multi_next_done(multi, &handle, &result) == 1 {
            guard let handle, let transfer = active[UInt(bitPattern: handle)] else { continue }
            finished(transfer, handle: handle, result: result, multi: multi)
        }
    }

    /// After libcurl finished a request of `transfer`: the next hop of a redirect joins the multi
    /// handle again, on the same easy handle (its connection kept); otherwise the transfer is over.
    private func finished(_ transfer: CurlTransfer, handle: UnsafeMutableRawPointer, result: Int32, multi: UnsafeMutableRawPointer) {
        remove(handle, from: multi)
        if let ending = transfer.conclude(result) {
            retire(transfer, ending: ending, handle: handle)
            return
        }
        join(transfer, handle: handle, multi: multi)
        // The next hop's handle was reset to its group's whole limit: its share again, now.
        if transfer.sink.receiveRateGroup != nil || configuration.receiveRateLimit != nil { shareReceiveRate() }
    }

    /// Shares the session's ``Session/Configuration/receiveRateLimit`` evenly among the transfers
    /// in flight, and each ``ReceiveRateGroup``'s limit evenly among its transfers in flight; a
    /// transfer keeps to the lower of its two shares. Called when transfers are added and at each
    /// sweep, four times a second.
    private func shareReceiveRate() {
        let sessionLimit = configuration.receiveRateLimit.flatMap { $0 > 0 ? $0 : nil }
        guard !active.isEmpty, sessionLimit != nil || groupedTransfers > 0 else { return }
        let sessionShare = sessionLimit.map { max(1, $0 / Int64(active.count)) }
        var groupSizes: [ObjectIdentifier: Int] = [:]
        if groupedTransfers > 0 {
            for transfer in active.values {
                if let group = transfer.sink.receiveRateGroup { groupSizes[ObjectIdentifier(group), default: 0] += 1 }
            }
        }
        for transfer in active.values {
            let groupShare = transfer.sink.receiveRateGroup.map { $0.share(among: groupSizes[ObjectIdentifier($0)] ?? 1) }
            transfer.limitReceiveRate(to: [sessionShare, groupShare].compactMap { $0 }.min())
        }
    }

    /// Stops the transfers that have moved nothing for longer than their timeout (a transfer
    /// waiting for its handler is not idle).
    private func sweepIdle(_ multi: UnsafeMutableRawPointer, now: UInt64) {
        var expired: [CurlTransfer] = []
        var shortest = UInt64.max
        for transfer in active.values {
            if transfer.hasBeenIdle(at: now) { expired.append(transfer) }
            shortest = min(shortest, transfer.idleLimit)
        }
        nextSweep = now + Self.sweepInterval(shortestLimit: shortest)
        for transfer in expired {
            guard let handle = transfer.handle else { continue }
            remove(handle, from: multi)
            retire(transfer, ending: transfer.timedOut(), handle: handle)
        }
    }

    /// Keeps the handle of a transfer that is off the multi handle for another, and queues the
    /// ending for the delivering thread.
    private func retire(_ transfer: CurlTransfer, ending: TransferEnding, handle: UnsafeMutableRawPointer? = nil) {
        if let handle { recycle(handle) }
        end(transfer, ending)
    }

    /// Queues `transfer`'s ending: it is no longer the loop's.
    private func end(_ transfer: CurlTransfer, _ ending: TransferEnding) {
        lock.lock()
        transferCount -= 1
        lock.unlock()
        queue(.ending(ending), of: transfer)
    }

    private func recycle(_ handle: UnsafeMutableRawPointer) {
        hp_curl_easy_reset(handle)
        if idleHandles.count < Self.idleHandleLimit {
            idleHandles.append(handle)
        } else {
            hp_curl_easy_cleanup(handle)
        }
    }
}
