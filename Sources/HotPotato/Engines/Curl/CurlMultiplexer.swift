import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The curl engine's multiplexed path: one libcurl multi handle, driven by a thread of its own,
/// on which concurrent `https` requests to one origin share one HTTP/2 connection.
///
/// **Who does what.** The multi thread does the I/O and nothing else: it adds, resumes and
/// removes easy handles, runs `curl_multi_perform`, and waits in `curl_multi_poll`; libcurl's
/// callbacks run there and queue each transfer's events in its ``CurlHandoff``. Every call into
/// libcurl for these handles (`curl_easy_pause` included) happens on that thread; other threads
/// only leave requests in its inbox and wake it with `curl_multi_wakeup`. The events are
/// delivered to the sink by the engine's worker thread that picked the transfer up (see
/// ``run(_:)``), which a handler may block: the multi thread never waits for a handler, so a
/// slow or blocked handler holds back its own stream only. Its stream is paused once a
/// megabyte waits for it (see ``CurlHandoff``), and resumed when its worker catches up.
///
/// **Stopping.** A cancel, a rejection or a handler failure settles the call at once (see
/// ``Transfer``); the engine's stop closure then asks the multi thread to remove the handle,
/// which resets the HTTP/2 stream and leaves the connection to the others. The callbacks also
/// abort a transfer whose call is settled, as on the easy path.
///
/// **Lifetime.** The thread starts with the first multiplexed transfer and ends, closing its
/// connections, once it has had none for ``idleLifetime`` seconds or the engine is invalidated.
final class CurlMultiplexer: @unchecked Sendable {
    private let lock = NSLock()
    // Guarded by `lock`.
    private var arriving: [CurlTransfer] = []
    private var stopping: [CurlTransfer] = []
    private var resuming: [CurlTransfer] = []
    /// The multi handle, while its thread runs and can be woken.
    private var multi: UnsafeMutableRawPointer?
    private var threadRunning = false
    private var invalidated = false

    // Touched only on the multi thread.
    /// The transfers whose handles are in the multi handle; it holds them, and so they outlive
    /// the callbacks' unretained pointers to them.
    private var active: [CurlTransfer] = []
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private let idleHandleLimit: Int

    /// How long the multi thread waits for work, with no transfer, before it ends.
    static let idleLifetime: TimeInterval = 15

    init(idleHandleLimit: Int) {
        self.idleHandleLimit = max(1, idleHandleLimit)
    }

    /// Whether a request takes the multiplexed path: the configuration allows HTTP/2, the loaded
    /// libcurl has it and the multi functions, the URL is `https`, no proxy is configured for it,
    /// and its body never makes a read wait. The rest take the easy path, as plain `http` does
    /// (HTTP/1.1 gains nothing from the multi handle, and a worker reading its own socket is
    /// faster), and proxied requests do (their tunnel handling is the easy path's). The transfer
    /// keeps its path through its redirects.
    ///
    /// A body is read on the multi thread by the read callback, which must never wait there: a
    /// body in memory, a regular file or a form of them (read from disk) never does, but a one-shot
    /// stream (an `AsyncSequence` or an `InputStream`) waits for its producer, and a FIFO for its
    /// writer, so a request with one takes the easy path, where the worker thread is the
    /// transfer's own (see ``RequestBody/mayWait``).
    static func multiplexes(_ request: URLRequest, body: RequestBody?, configuration: Session.Configuration) -> Bool {
        guard configuration.httpVersionPolicy.allowsHTTP2, CurlLibrary.supportsHTTP2, CurlLibrary.supportsMultiplexing,
              body?.mayWait != true,
              let url = request.url, url.scheme?.lowercased() == "https" else { return false }
        do {
            return try configuration.proxy.selectedProxy(for: url) == nil
        } catch {
            // A proxy setting that cannot be used fails on the easy path, where its error is made.
            return false
        }
    }

    // MARK: - Any thread

    /// Asks the multi thread to stop `transfer` (remove its handle); it then queues the ending.
    /// Does nothing once the transfer has ended.
    func stop(_ transfer: CurlTransfer) {
        guard transfer.handoff?.hasEnded == false else { return }
        // Without a multi thread, no transfer is in the multi handle (one handed over starts it).
        send { multiplexer in
            if multiplexer.threadRunning { multiplexer.stopping.append(transfer) }
        }
    }

    /// Ends the multi thread once it has no transfer left.
    func invalidate() {
        send { $0.invalidated = true }
    }

    // MARK: - Worker thread

    /// Performs a multiplexed transfer: hands it to the multi thread, then delivers its events to
    /// the sink, in order, until its ending, which it returns (for the engine to report once the
    /// worker is counted free). The calling worker is the transfer's delivering thread: a
    /// handler may block it.
    func run(_ transfer: CurlTransfer) -> CurlTransfer.Ending {
        guard let handoff = transfer.handoff else { return .settled }
        let start = send { multiplexer -> Bool in
            multiplexer.arriving.append(transfer)
            defer { multiplexer.threadRunning = true }
            return !multiplexer.threadRunning
        }
        if start {
            let thread = Thread { [self] in work() }
            thread.name = "HotPotato.curl.multi"
            thread.start()
        }
        var stopped = false
        while true {
            let (event, resume) = handoff.next()
            if resume { send { $0.resuming.append(transfer) } }
            switch event {
            case .head(let head):
                if !stopped, !transfer.sink.receive(head: head) { stopped = true }
            case .body(let chunk):
                if !stopped, !transfer.sink.receive(chunk) { stopped = true }
            case .ending(let ending):
                return ending
            }
            if stopped { stop(transfer) }
        }
    }

    /// Runs `change` under the lock, then wakes the multi thread.
    @discardableResult
    private func send<T>(_ change: (CurlMultiplexer) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        let value = change(self)
        if let multi { hp_curl_multi_wakeup(multi) }
        return value
    }

    // MARK: - Multi thread

    private func work() {
        guard let multi = hp_curl_multi_init() else {
            let stranded = send { multiplexer -> [CurlTransfer] in
                multiplexer.threadRunning = false
                defer { multiplexer.arriving.removeAll() }
                return multiplexer.arriving
            }
            let error = HotPotatoError(.transportFailed, reason: "libcurl could not create a multi handle.")
            for transfer in stranded { transfer.handoff?.push(.ending(.failure(error))) }
            return
        }
        hp_curl_multi_setopt_long(multi, Int32(HP_CURLMOPT_PIPELINING), Int(HP_CURLPIPE_MULTIPLEX))
        lock.lock()
        self.multi = multi
        lock.unlock()
        var lastBusy = DispatchTime.now().uptimeNanoseconds
        while let (adds, resumes, stops) = nextRequests(idleSince: lastBusy) {
            for transfer in adds { add(transfer, to: multi) }
            for transfer in resumes where isActive(transfer) {
                if let handle = transfer.handle { hp_curl_easy_pause(handle, Int32(HP_CURLPAUSE_CONT)) }
            }
            for transfer in stops where isActive(transfer) {
                guard let handle = transfer.handle else { continue }
                hp_curl_multi_remove_handle(multi, handle)
                retire(transfer, ending: transfer.stopped(), handle: handle)
            }
            var running: Int32 = 0
            hp_curl_multi_perform(multi, &running)
            var handle: UnsafeMutableRawPointer?
            var result: Int32 = 0
            while hp_curl_multi_next_done(multi, &handle, &result) == 1 {
                if let handle, let transfer = active.first(where: { $0.handle == handle }) {
                    finished(transfer, handle: handle, result: result, multi: multi)
                }
            }
            if !active.isEmpty { lastBusy = DispatchTime.now().uptimeNanoseconds }
            hp_curl_multi_poll(multi, 1000)
        }
        for handle in idleHandles { hp_curl_easy_cleanup(handle) }
        idleHandles.removeAll()
        hp_curl_multi_cleanup(multi)
    }

    /// The requests left for the multi thread, or `nil` when it should end: it has no transfer,
    /// and the engine was invalidated or nothing came for ``idleLifetime`` seconds.
    private func nextRequests(idleSince: UInt64) -> (adds: [CurlTransfer], resumes: [CurlTransfer], stops: [CurlTransfer])? {
        lock.lock()
        defer { lock.unlock() }
        let idle = Double(DispatchTime.now().uptimeNanoseconds &- idleSince) / 1e9
        if arriving.isEmpty, active.isEmpty, invalidated || idle > Self.idleLifetime {
            multi = nil
            threadRunning = false
            return nil
        }
        defer {
            arriving.removeAll()
            resuming.removeAll()
            stopping.removeAll()
        }
        return (arriving, resuming, stopping)
    }

    private func isActive(_ transfer: CurlTransfer) -> Bool {
        active.contains { $0 === transfer }
    }

    private func add(_ transfer: CurlTransfer, to multi: UnsafeMutableRawPointer) {
        guard !transfer.sink.isFinished else {
            transfer.handoff?.push(.ending(.settled))
            return
        }
        guard let handle = idleHandles.popLast() ?? hp_curl_easy_init() else {
            let error = HotPotatoError(.transportFailed, reason: "libcurl could not create a handle.")
            transfer.handoff?.push(.ending(.failure(error)))
            return
        }
        do {
            try transfer.begin(on: handle)
        } catch {
            recycle(handle)
            transfer.handoff?.push(.ending(.failure(error)))
            return
        }
        active.append(transfer)
        if hp_curl_multi_add_handle(multi, handle) != Int32(HP_CURLM_OK) {
            transfer.end()
            retire(transfer, ending: .failure(HotPotatoError(.transportFailed, reason: "libcurl could not add a transfer to its multi handle.")), handle: handle)
        }
    }

    /// After libcurl finished a perform of `transfer`: the next hop of a redirect joins the multi
    /// handle again, on the same easy handle; otherwise the transfer is over.
    private func finished(_ transfer: CurlTransfer, handle: UnsafeMutableRawPointer, result: Int32, multi: UnsafeMutableRawPointer) {
        hp_curl_multi_remove_handle(multi, handle)
        if let ending = transfer.conclude(result) {
            retire(transfer, ending: ending, handle: handle)
        } else if hp_curl_multi_add_handle(multi, handle) != Int32(HP_CURLM_OK) {
            transfer.end()
            retire(transfer, ending: .failure(HotPotatoError(.transportFailed, reason: "libcurl could not add a transfer to its multi handle.")), handle: handle)
        }
    }

    /// Takes a transfer whose handle is out of the multi handle off the active list, keeps the
    /// handle for another, and queues the ending for the worker.
    private func retire(_ transfer: CurlTransfer, ending: CurlTransfer.Ending, handle: UnsafeMutableRawPointer? = nil) {
        if let index = active.firstIndex(where: { $0 === transfer }) {
            active.swapAt(index, active.count - 1)
            active.removeLast()
        }
        if let handle { recycle(handle) }
        transfer.handoff?.push(.ending(ending))
    }

    private func recycle(_ handle: UnsafeMutableRawPointer) {
        hp_curl_easy_reset(handle)
        if idleHandles.count < idleHandleLimit {
            idleHandles.append(handle)
        } else {
            hp_curl_easy_cleanup(handle)
        }
    }
}
