import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The URLSession engine: one `URLSession` whose data delegate feeds each task's
/// ``TransferSink`` on a serial queue (a concurrent delegate queue would reorder chunks).
///
/// On Linux, URLSession delivers every chunk as soon as libcurl has it, with no backpressure
/// (`suspend()` does not pause a transfer in flight, and the response disposition is ignored).
/// Each task's ``URLSessionTransfer`` therefore bounds memory itself by spilling to disk, and
/// stopping a task never waits for URLSession.
///
/// URLSession follows no redirect itself: each transfer declines every one and sends the next
/// request of ``RedirectPolicy`` as a new task of this session (see
/// ``URLSessionTransfer/handleRedirect(_:completionHandler:)``), so one transfer may run several
/// tasks one after another. A session invalidated without cancelling therefore stays usable for
/// the redirects of the transfers in flight, and is invalidated once they have ended.
final class URLSessionEngine: NSObject, TransportEngine, @unchecked Sendable {
    private let configuration: Session.Configuration
    private let delegateQueue: OperationQueue
    /// Set once in `init`, never changed.
    private var session: URLSession!
    private let registry = Locked(Registry())
    /// Held while a task is made, and while the session is found invalidated: URLSession traps when
    /// a task is made on an invalidated session. Not the registry's lock: making a task waits for
    /// URLSession's work queue, which may be busy handing chunks over, and the delegate queue
    /// looks transfers up in the registry for every chunk — with one lock, the delegate queue
    /// stalled behind task creation and URLSession's backlog grew without bound. Taken before the
    /// registry's lock, never after.
    private let creation = NSLock()
    /// Every cancel of a task goes through it (see ``URLSessionTaskCanceller``).
    private let canceller = URLSessionTaskCanceller()
    /// Where tasks are made and resumed, on Linux (see ``launch(_:)``).
    let launchQueue = DispatchQueue(label: "HotPotato.URLSession.launch")
    /// The `httpAdditionalHeaders` of the caller's `URLSessionConfiguration`, added to each
    /// request rather than left to URLSession, which would add them to every redirect too,
    /// credentials included.
    private let additionalHeaders: [(name: String, value: String)]
    /// Whether a request may go the way ``Session/Configuration/proxy`` says (see
    /// ``URLSessionProxyRule``).
    let proxyRule: URLSessionProxyRule

    /// The transfers in flight, by the identifier of their current task, and the session's state.
    private struct Registry {
        var transfers: [Int: URLSessionTransfer] = [:]
        /// No new call may start; the transfers in flight may still follow redirects.
        var closed = false
        /// The `URLSession` is invalidated (or is being): no task may be made, or URLSession traps.
        var sessionInvalidated = false
        /// The session was invalidated with its transfers: those not started yet were cancelled.
        var transfersCancelled = false
        /// The transfers of calls started before the session closed, whose first task is not made
        /// yet (see ``launch(_:)``).
        var launching: [URLSessionTransfer] = []

        /// No transfer in flight or about to be.
        var isIdle: Bool { transfers.isEmpty && launching.isEmpty }

        mutating func forgetLaunching(_ transfer: URLSessionTransfer) {
            if let index = launching.firstIndex(where: { $0 === transfer }) { launching.remove(at: index) }
        }
    }

    init(configuration: Session.Configuration) {
        self.configuration = configuration
        #if canImport(FoundationNetworking)
        // Twice the high-water mark (in URLSession's 16 KiB chunks): past it the transfers' own
        // spilling has not kept the backlog down (see URLSessionDelegateQueue).
        let highWaterChunks = configuration.memoryHighWaterMark / (16 * 1024)
        delegateQueue = URLSessionDelegateQueue(
            label: "HotPotato.URLSession.delegate",
            backlogLimit: highWaterChunks > Int.max / 4 ? .max : max(64, 2 * highWaterChunks))
        #else
        delegateQueue = OperationQueue()
        delegateQueue.maxConcurrentOperationCount = 1
        delegateQueue.name = "HotPotato.URLSession.delegate"
        #endif
        let urlConfiguration = (configuration.urlSessionConfiguration.copy() as? URLSessionConfiguration) ?? .ephemeral
        additionalHeaders = (urlConfiguration.httpAdditionalHeaders ?? [:])
            .compactMap { key, value in (key as? String).flatMap { name in (value as? String).map { (name, $0) } } }
            .sorted { $0.name < $1.name }
        #if canImport(FoundationNetworking)
        proxyRule = URLSessionProxyRule(configured: configuration.proxy, enforced: configuration.proxyStorage != nil)
        #else
        proxyRule = URLSessionProxyRule(configured: configuration.proxy, applyingTo: urlConfiguration)
        #endif
        super.init()
        urlConfiguration.httpAdditionalHeaders = nil
        // Cookies are HotPotato's (Session.Configuration.cookieStore), the same on both engines:
        // URLSession neither stores nor sends any.
        urlConfiguration.httpShouldSetCookies = false
        urlConfiguration.httpCookieAcceptPolicy = .never
        urlConfiguration.httpCookieStorage = nil
        // Per host, as the curl engine: FoundationNetworking hands it to libcurl's
        // CURLMOPT_MAX_HOST_CONNECTIONS, and requests past it wait for that host only.
        urlConfiguration.httpMaximumConnectionsPerHost =
            configuration.maximumConnectionsPerHost > 0 ? configuration.maximumConnectionsPerHost : Int(Int32.max)
        #if canImport(FoundationNetworking)
        // Whole seconds for FoundationNetworking, which drops a fraction; the engine keeps the
        // exact limit (see IdleClock).
        urlConfiguration.timeoutIntervalForRequest = IdleClock.foundationTimeout(configuration.requestTimeout)
        #else
        urlConfiguration.timeoutIntervalForRequest = configuration.requestTimeout
        #endif
        urlConfiguration.timeoutIntervalForResource = configuration.resourceTimeout
        #if canImport(FoundationNetworking)
        // No URLCache on Linux. With one, a task looks itself up in the cache on a background
        // queue before it starts, and a `cancel()` that lands meanwhile can reach URLSession
        // after the task has completed and left its registry: a fatal error in
        // FoundationNetworking ("Trying to access a behaviour for a task that in not in the
        // registry"). Its cache would also keep a cacheable body in memory as it arrives.
        urlConfiguration.urlCache = nil
        #else
        if let minimum = configuration.minimumTLSVersion {
            urlConfiguration.tlsMinimumSupportedProtocolVersion = switch minimum {
            case .v1_0: .TLSv10
            case .v1_1: .TLSv11
            case .v1_2: .TLSv12
            case .v1_3: .TLSv13
            }
        }
        #endif
        session = URLSessionDescriptors.makeSession {
            URLSession(configuration: urlConfiguration, delegate: self, delegateQueue: delegateQueue)
        }
    }

    /// The header fields (lowercased) Foundation adds to a request that has none: a request that
    /// goes without one of them (``Request/withoutHeader(_:)``) cannot be sent as asked here.
    static let fieldsFoundationAdds: Set<String> = ["host", "user-agent", "accept", "accept-encoding", "accept-language", "connection"]

    func start(
        _ request: URLRequest, body: RequestBody?, redirects: RedirectPolicy, sink: any TransferSink
    ) -> @Sendable () -> Void {
        var request = request
        // As URLSession would: the request's own header of the same name wins.
        for (name, value) in additionalHeaders where request.value(forHTTPHeaderField: name) == nil
            && !redirects.omittedHeaders.contains(name.lowercased()) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        request = redirects.firstRequest(request)
        let kept = redirects.omittedHeaders.filter { Self.fieldsFoundationAdds.contains($0) && request.value(forHTTPHeaderField: $0) == nil }
        if let name = kept.sorted().first {
            sink.fail(HotPotatoError(
                .engineUnavailable,
                reason: "URLSession adds its own \(name) field and cannot be kept from sending it "
                    + "(Request.withoutHeader): use the libcurl engine."))
            return {}
        }
        if sink.receiveRateLimit != nil || configuration.receiveRateLimit != nil {
            sink.fail(HotPotatoError(
                .engineUnavailable,
                reason: "URLSession cannot limit the rate a transfer receives at (Request.limitRate, "
                    + "Session.Configuration.receiveRateLimit): use the libcurl engine."))
            return {}
        }
        let unhonoured = configuration.controlsOnlyCurlHonours(for: request.url)
        if !unhonoured.isEmpty {
            sink.fail(HotPotatoError(
                .engineUnavailable,
                reason: "URLSession cannot apply Session.Configuration's \(unhonoured.joined(separator: ", ")) "
                    + "(client certificates, public-key pins, Unix sockets, address overrides, local addresses, connect "
                    + "timeouts and, on Linux, a minimum TLS version are the libcurl engine's): use the libcurl engine."))
            return {}
        }
        do throws(HotPotatoError) {
            try proxyRule.check(request.url)
            _ = try proxyRule.routingProxyHeaders(request)
        } catch {
            sink.fail(error)
            return {}
        }
        #if !canImport(FoundationNetworking)
        if request.httpMethod == "GET", body != nil || request.httpBody?.isEmpty == false {
            sink.fail(HotPotatoError(.invalidRequest, reason: """
                URLSession cannot send a GET request with a body (it refuses it as "resource exceeds maximum size"): \
                use another method, or the curl engine.
                """))
            return {}
        }
        #endif
        let transfer = makeTransfer(request, body: body, redirects: redirects, sink: sink)
        // Admitted now, while the session is open: its task may be made later (see `launch`).
        let admitted = registry.withLock { registry -> Bool in
            guard !registry.closed else { return false }
            registry.launching.append(transfer)
            return true
        }
        guard admitted else {
            sink.fail(HotPotatoError(.invalidRequest, reason: "The session was invalidated; make a new Session."))
            return {}
        }
        launch(transfer)
        #if canImport(FoundationNetworking)
        // FoundationNetworking does not end a task at `timeoutIntervalForResource`: the engine
        // does. Only for a limit under a day, so that a pending deadline (which holds the
        // transfer weakly) lives no longer than that.
        let limit = configuration.resourceTimeout
        if limit < 86_400 {
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, limit)) { [weak transfer] in
                transfer?.exceededResourceTimeout(limit)
            }
        }
        #endif
        return { transfer.stop() }
    }

    func makeTransfer(
        _ request: URLRequest, body: RequestBody?, redirects: RedirectPolicy, sink: any TransferSink
    ) -> URLSessionTransfer {
        URLSessionTransfer(
            request: request, body: body, sink: sink,
            redirectPolicy: redirects, proxyRule: proxyRule,
            canceller: canceller,
            highWaterMark: configuration.memoryHighWaterMark,
            backlog: { [delegateQueue] in URLSessionEngine.queuedOperations(delegateQueue) },
            nextTask: { [weak self] transfer, replacing, request, body in
                self?.makeTask(for: transfer, replacing: replacing, request: request, body: body)
            },
            release: { [weak self] identifier in self?.release(identifier) })
    }

    /// Starts `transfer`'s first task, for the request and body it was made with.
    ///
    /// On Linux the task is made and resumed on ``launchQueue``, never on the caller's thread:
    /// both wait for FoundationNetworking's work queue — one queue for every URLSession of the
    /// process — which waits in turn, while a body stream's read waits for its producer (see
    /// ``BodyInputStream``). A caller on one of Swift's few cooperative threads would block it, and
    /// a producer that needs one would never run.
    func launch(_ transfer: URLSessionTransfer) {
        #if canImport(FoundationNetworking)
        launchQueue.async { [self] in launchNow(transfer) }
        #else
        launchNow(transfer)
        #endif
    }

    private func launchNow(_ transfer: URLSessionTransfer) {
        let (request, body) = transfer.state.withLock { state in
            (transfer.prepare(state.request, body: state.body, in: &state), state.body)
        }
        // URLSession traps when a task is made on an invalidated session; fail the call instead.
        guard transfer.start(makeTask(for: transfer, replacing: nil, request: request, body: body, launching: true)) else {
            // A call started before the session was invalidated with its transfers was cancelled
            // by it: that is its outcome, not a refusal.
            let cancelled = transfer.isStopped || registry.withLock { $0.transfersCancelled }
            transfer.sink.fail(cancelled
                ? HotPotatoError.requestCancelled
                : HotPotatoError(.invalidRequest, reason: "The session was invalidated; make a new Session."))
            return
        }
    }


    func invalidate(cancellingTransfers: Bool) {
        creation.lock()
        let (first, transfers, invalidateNow) = registry.withLock { registry -> (Bool, [URLSessionTransfer], Bool) in
            guard !registry.closed else { return (false, [], false) }
            registry.closed = true
            // Without cancelling, the transfers in flight may still need tasks for their redirects:
            // the last one to end invalidates the session (see `release`).
            let now = cancellingTransfers || registry.isIdle
            if now { registry.sessionInvalidated = true }
            registry.transfersCancelled = cancellingTransfers
            return (true, Array(registry.transfers.values) + registry.launching, now)
        }
        creation.unlock()
        guard first else { return }
        if cancellingTransfers {
            // Some transfers may be past URLSession already, still feeding a slow handler.
            for transfer in transfers { transfer.cancel() }
            // Not `invalidateAndCancel()`: its cancels would race the completions of tasks that
            // are finishing (see URLSessionTaskCanceller). The canceller cancels every task not
            // complete yet — the transfers' and those of declined redirects — and the session is
            // invalidated once they have all reported.
            DispatchQueue.global(qos: .utility).async { [canceller] in canceller.cancelAll() }
            session.finishTasksAndInvalidate()
        } else if invalidateNow {
            session.finishTasksAndInvalidate()
        }
    }

    /// Makes the task that sends `request` for `transfer` and files it under its identifier, in
    /// place of the task `replacing` (or, `launching`, as its first task); `nil` once the session
    /// is invalidated.
    private func makeTask(
        for transfer: URLSessionTransfer, replacing: Int?, request: URLRequest, body: RequestBody?, launching: Bool = false
    ) -> URLSessionTask? {
        creation.lock()
        defer { creation.unlock() }
        let open = registry.withLock { registry -> Bool in
            if launching { registry.forgetLaunching(transfer) }
            return !registry.sessionInvalidated
        }
        guard open else { return nil }
        // No body, `httpBody`, or the `httpBodyStream` the transfer prepared.
        var request = request
        // The libcurl engine's default, rather than the one Foundation would add; added here, as
        // each task goes out, so that the requests the redirect policy and monitors see are the
        // caller's, as on the libcurl engine.
        if request.value(forHTTPHeaderField: "User-Agent") == nil {
            request.setValue(RequestDescription.defaultUserAgent, forHTTPHeaderField: "User-Agent")
        }
        #if canImport(FoundationNetworking)
        request.timeoutInterval = IdleClock.foundationTimeout(request.timeoutInterval)
        #endif
        let task = session.dataTask(with: request)
        registry.withLock { registry in
            if let replacing { registry.transfers[replacing] = nil }
            registry.transfers[task.taskIdentifier] = transfer
        }
        canceller.register(task)
        return task
    }

    /// Forgets the transfer whose current task is `identifier`; invalidates the session when it
    /// was the last one of a session waiting for its transfers to end.
    private func release(_ identifier: Int) {
        // The creation lock only for a closed session's last transfer: the delegate queue calls
        // this, and must not wait for a task being made.
        let last = registry.withLock { registry -> Bool in
            registry.transfers[identifier] = nil
            return registry.closed && !registry.sessionInvalidated && registry.isIdle
        }
        if last { invalidateIfClosedAndIdle() }
    }

    /// Invalidates a closed session once no transfer is in flight or about to be.
    private func invalidateIfClosedAndIdle() {
        creation.lock()
        let invalidateNow = registry.withLock { registry -> Bool in
            guard registry.closed, !registry.sessionInvalidated, registry.isIdle else { return false }
            registry.sessionInvalidated = true
            return true
        }
        creation.unlock()
        if invalidateNow { session.finishTasksAndInvalidate() }
    }

    func transfer(for task: URLSessionTask) -> URLSessionTransfer? {
        registry.withLock { $0.transfers[task.taskIdentifier] }
    }

    /// The events waiting on the delegate queue: on Linux, mostly chunks URLSession has received
    /// and not yet handed over.
    private static func queuedOperations(_ queue: OperationQueue) -> Int {
        #if canImport(FoundationNetworking)
        return (queue as? URLSessionDelegateQueue)?.pendingEvents ?? 0
        #else
        return 0
        #endif
    }
}

extension URLSessionEngine: URLSessionDataDelegate {
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // The connection exists by now: no child process spawned from here on inherits it.
        URLSessionDescriptors.markConnections(of: dataTask, proxyPort: proxyRule.proxyPort(for: dataTask.currentRequest?.url))
        transfer(for: dataTask)?.didReceive(response)
        // Always allow: on Apple platforms `.cancel` would also cut off the bounded error body that a
        // rejection keeps; the transfer stops the task itself once it has what it needs.
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        transfer(for: dataTask)?.didReceive(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        canceller.didComplete(task)
        transfer(for: task)?.didComplete(error)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        guard let transfer = transfer(for: task) else {
            completionHandler(nil)
            return
        }
        transfer.handleRedirect(response, completionHandler: completionHandler)
    }
}
