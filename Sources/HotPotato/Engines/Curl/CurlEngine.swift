import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The libcurl engine: a bounded pool of worker threads, each running one transfer at a time,
/// on one of two paths (``CurlMultiplexer/multiplexes(_:body:configuration:)`` chooses):
///
/// - **Easy**: the worker performs the transfer with an easy handle of its own
///   (`curl_easy_perform`), handlers fed synchronously from libcurl's callbacks. A slow handler
///   blocks only its own transfer's callback — which is exactly the backpressure wanted. Easy
///   handles are kept after use and reset for the next request, so their connections and DNS
///   entries are reused (keep-alive). Plain `http`, proxied requests, and every request under
///   ``HTTPVersionPolicy/http1_1Only`` (or with a libcurl without HTTP/2) go this way.
/// - **Multiplexed**: `https` requests, when HTTP/2 is allowed and available, join the engine's
///   one multi handle (``CurlMultiplexer``), whose thread does the I/O of all of them, so that
///   concurrent requests to one origin share one HTTP/2 connection. The worker delivers the
///   transfer's events to its handler and may block in it; a stream whose handler falls behind
///   is paused rather than stall the others.
///
/// ``Session/Configuration/maximumConcurrentTransfers`` bounds both together: a multiplexed
/// transfer holds its worker too.
final class CurlEngine: TransportEngine, @unchecked Sendable {
    private let configuration: Session.Configuration
    private let multiplexer: CurlMultiplexer
    private let condition = NSCondition()

    // Guarded by `condition`.
    private var pending: [CurlTransfer] = []
    /// The transfers being performed, at most one per worker. An array rather than a dictionary
    /// keyed by `ObjectIdentifier`: the first dictionary of that type a process makes looks up
    /// `ObjectIdentifier`'s `Hashable` conformance, a scan of every conformance record loaded,
    /// which the first request waited for.
    private var running: [CurlTransfer] = []
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private var workers = 0
    private var waitingWorkers = 0
    private var invalidated = false

    /// How long an idle worker waits for work before it ends.
    private static let idleWorkerLifetime: TimeInterval = 15

    init(configuration: Session.Configuration) {
        self.configuration = configuration
        multiplexer = CurlMultiplexer(idleHandleLimit: configuration.maximumConcurrentTransfers)
    }

    func start(
        _ request: URLRequest, body: RequestBody?, redirects: RedirectPolicy, sink: any TransferSink
    ) -> @Sendable () -> Void {
        let request = redirects.firstRequest(request)
        let multiplexed = CurlMultiplexer.multiplexes(request, body: body, configuration: configuration)
        let transfer = CurlTransfer(
            request: request, body: body, sink: sink, configuration: configuration, redirects: redirects,
            multiplexed: multiplexed)
        condition.lock()
        if invalidated {
            condition.unlock()
            sink.fail(HotPotatoError(.invalidRequest, reason: "The session was invalidated; make a new Session."))
            return {}
        }
        pending.append(transfer)
        let spawn = pending.count > waitingWorkers && workers < max(1, configuration.maximumConcurrentTransfers)
        if spawn { workers += 1 }
        condition.signal()
        condition.unlock()
        if spawn { startWorker() }
        // Stopping an easy transfer needs no call into libcurl: every callback checks whether the
        // call is settled and aborts the transfer if it is; a transfer still waiting in line is
        // skipped. A multiplexed one may be paused, with no callback to come: the multi thread
        // removes it.
        guard multiplexed else { return {} }
        return { [multiplexer] in multiplexer.stop(transfer) }
    }

    /// Each transfer's events are delivered on a worker thread of the engine's own, which a
    /// handler may block: on the easy path it holds the transfer's callback, on the multiplexed
    /// path it pauses that transfer's stream alone.
    var deliveriesMayBlock: Bool { true }

    func invalidate(cancellingTransfers: Bool) {
        condition.lock()
        invalidated = true
        let cancelled = cancellingTransfers ? pending + running : []
        if cancellingTransfers { pending.removeAll() }
        let handles = idleHandles
        idleHandles.removeAll()
        condition.broadcast()
        condition.unlock()
        for transfer in cancelled { transfer.sink.cancel() }
        for handle in handles { hp_curl_easy_cleanup(handle) }
        multiplexer.invalidate()
    }

    private func startWorker() {
        let thread = Thread { [self] in work() }
        thread.name = "HotPotato.curl"
        thread.start()
    }

    private func work() {
        while let (transfer, reusedHandle) = nextTransfer() {
            if transfer.handoff != nil {
                let ending = multiplexer.run(transfer)
                finished(transfer, handle: nil)
                transfer.report(ending)
                continue
            }
            guard let handle = reusedHandle ?? hp_curl_easy_init_standalone() else {
                transfer.sink.fail(HotPotatoError(.transportFailed, reason: "libcurl could not create a handle."))
                finished(transfer, handle: nil)
                continue
            }
            let ending = transfer.perform(on: handle)
            hp_curl_easy_reset(handle)
            finished(transfer, handle: handle)
            transfer.report(ending)
        }
    }

    /// The next transfer to run and a handle to reuse, waiting for one if none is pending; `nil`
    /// when this worker should end.
    private func nextTransfer() -> (CurlTransfer, UnsafeMutableRawPointer?)? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            while let transfer = pending.first {
                pending.removeFirst()
                guard !transfer.sink.isFinished else { continue }
                running.append(transfer)
                // A multiplexed transfer gets its handle from the multi thread.
                return (transfer, transfer.handoff == nil ? idleHandles.popLast() : nil)
            }
            if invalidated {
                workers -= 1
                return nil
            }
            waitingWorkers += 1
            let signalled = condition.wait(until: Date().addingTimeInterval(Self.idleWorkerLifetime))
            waitingWorkers -= 1
            if !signalled && pending.isEmpty {
                workers -= 1
                return nil
            }
        }
    }

    private func finished(_ transfer: CurlTransfer, handle: UnsafeMutableRawPointer?) {
        condition.lock()
        if let index = running.firstIndex(where: { $0 === transfer }) {
            running.swapAt(index, running.count - 1)
            running.removeLast()
        }
        let keep = handle != nil && !invalidated && idleHandles.count < max(1, configuration.maximumConcurrentTransfers)
        if keep, let handle { idleHandles.append(handle) }
        condition.unlock()
        if !keep, let handle { hp_curl_easy_cleanup(handle) }
    }
}
