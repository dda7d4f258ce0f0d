import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Request {
    /// Sends the request and returns the response with its typed content.
    ///
    /// Cancelling the awaiting `Task` cancels the call: it completes promptly with
    /// ``HotPotatoError/Code/cancelled`` and the handler cleans up (no partial file).
    ///
    /// - Throws: ``HotPotatoError``, always.
    public func response() async throws(HotPotatoError) -> Response<Handler.Content> {
        try await start().response()
    }

    /// Sends the request and returns just the content.
    public var content: Handler.Content {
        get async throws(HotPotatoError) {
            try await response().content
        }
    }

    /// Sends the request and calls `completion` with the outcome on `queue`.
    ///
    /// - Returns: The call, to cancel it or follow its progress.
    @discardableResult
    public func response(
        queue: DispatchQueue,
        completion: @escaping @Sendable (Result<Response<Handler.Content>, HotPotatoError>) -> Void
    ) -> Call<Handler.Content> {
        let call = start()
        call.observe { outcome in queue.async { completion(outcome) } }
        return call
    }

    /// Sends the request and returns the call at once: await its ``Call/response()``, follow its
    /// ``Call/progress`` and ``Call/uploadProgress``, or ``Call/cancel()`` it.
    public func start() -> Call<Handler.Content> {
        let configuration = session.configuration
        let retryPolicy = options.retryPolicy ?? configuration.retryPolicy
        let attempts = retryPolicy.mayRetry || !configuration.interceptors.isEmpty || !options.interceptors.isEmpty
            || !configuration.eventMonitors.isEmpty
        // Monitors watch a call through its attempt loop; a call without one has none.
        let monitors = attempts ? EventMonitors(configuration.eventMonitors, method: spec.method, url: spec.url) : nil
        var observers = options.progressObservers
        if let monitorObserver = monitors?.progressObserver { observers.append(monitorObserver) }
        let progress = ProgressReporter(
            interval: configuration.progressInterval, observers: observers, uploadObservers: options.uploadProgressObservers)
        if attempts {
            // Attempts, adapted and retried, each with a handler of its own.
            let loop = AttemptLoop(
                request: self, retryPolicy: retryPolicy, interceptors: configuration.interceptors + options.interceptors,
                monitors: monitors, progress: progress)
            loop.begin()
            // An existential, as for the transfer below: a closure capturing the generic loop
            // would capture its handler's metatype.
            let cancellable: any CallCancelling = loop
            return Call(completion: loop.completion, progress: progress, cancel: { cancellable.cancel() })
        }
        // One attempt: no task, no await between the caller and the engine.
        let transfer = makeTransfer(progress: progress, onHead: options.headCallback, finishesProgress: true)
        let sink: any TransferSink = transfer
        let call = Call(completion: transfer.completion, progress: progress, cancel: { sink.cancel() })
        do {
            let urlRequest = try spec.makeURLRequest(defaults: configuration)
            try send(urlRequest, through: transfer, redirects: RedirectPolicy(options.redirects ?? configuration.redirects))
        } catch {
            transfer.fail(error)
        }
        return call
    }

    /// A transfer for one attempt, with a new handler and the chain's gate options applied.
    func makeTransfer(
        progress: ProgressReporter, onHead: (@Sendable (ResponseHead) -> Void)?, finishesProgress: Bool,
        prepare: ((Handler) -> Void)? = nil
    ) -> Transfer<Handler> {
        let handler = makeHandler()
        if options.acceptedStatusCodes != nil || options.acceptedContentTypes != nil {
            applyGateOptions(to: handler)
        }
        prepare?(handler)
        // The other connections of a download carry its group; a first request makes one.
        // A download's connections: at least one for each of its URLs.
        let connections = (handler as? FileWriter).map { max($0.connections, $0.mirrors.count + 1) } ?? 1
        let rateGroup = options.receiveRateGroup
            ?? options.receiveRateLimit.map { ReceiveRateGroup(limit: $0, expectedTransfers: connections) }
        let transfer = Transfer(
            handler: handler, errorBodyLimit: options.errorBodyLimit ?? session.configuration.errorBodyLimit,
            progress: progress, onHead: onHead, finishesProgress: finishesProgress,
            cookies: session.cookieBackend.map { CookieExchange(store: $0) }, receiveRateGroup: rateGroup,
            connectionOfItsOwn: options.connectionOfItsOwn)
        if let writer = handler as? FileWriter, writer.connections > 1 || writer.isResumable {
            // It may fetch the file over several connections: how to start the others, which
            // share the call's rate limit with this one.
            let launcher = segmentLauncher(progress: progress, rateGroup: rateGroup)
            // An existential: a closure capturing the generic transfer would capture its
            // handler's metatype.
            weak let sink: (any TransferSink)? = transfer
            launcher.cancelPrimary = { sink?.cancel() }
            if options.segmentRestarts < 2 {
                var again = self
                again.options.segmentRestarts += 1
                let starter: any StartingOver = again
                launcher.restart = { deliver in starter.startOver(deliver) }
            }
            writer.segmentLauncher = launcher
        }
        return transfer
    }

    /// How a ``FileWriter`` of this request starts its other connections: `GET`s like this
    /// one, within its rate limit (`rateGroup`, shared), each on a connection of its own, without
    /// its progress callbacks, head callback, gate options or retries (the
    /// download retries a connection's part itself).
    private func segmentLauncher(progress: ProgressReporter, rateGroup: ReceiveRateGroup?) -> SegmentLauncher {
        var base = replacingHandler { SelectiveDiscarder<Void>() }
        base.options.receiveRateGroup = rateGroup
        base.options.connectionOfItsOwn = true
        base.options.progressObservers = []
        base.options.uploadProgressObservers = []
        base.options.headCallback = nil
        base.options.acceptedStatusCodes = nil
        base.options.acceptedContentTypes = nil
        base.options.retryPolicy = .never
        base.options.errorBodyLimit = 0
        return base.launchingSegments(progress: progress)
    }

    /// Lets the handler adapt `urlRequest`, then sends it through the session's engine (or
    /// answers a `data:` URL) with `transfer` as the sink. `call` is what the attempt belongs to
    /// (the transfer itself for a call of one attempt): its attempts may claim a one-shot body in
    /// turn. The engine adds the session's cookies (``RedirectPolicy/firstRequest(_:)``), with the
    /// transfer's ``CookieExchange``. `adapted` sees the request as it goes out.
    func send(
        _ urlRequest: URLRequest, through transfer: Transfer<Handler>, redirects: RedirectPolicy, call: AnyObject? = nil,
        adapted: ((URLRequest) -> Void)? = nil
    ) throws(HotPotatoError) {
        var urlRequest = urlRequest
        try transfer.adapt(&urlRequest)
        adapted?(urlRequest)
        if let url = urlRequest.url, url.scheme?.lowercased() == "data" {
            // Both engines answer data: URLs the same way, without a network.
            DataURL.deliver(url, method: spec.method, to: transfer)
            return
        }
        let body = try spec.makeRequestBody(owner: call ?? transfer)
        var redirects = redirects
        redirects.cookies = transfer.cookies
        redirects.omittedHeaders = spec.omittedHeaders
        let stop = session.transport.start(urlRequest, body: body, redirects: redirects, sink: transfer)
        transfer.setStopEngine(stop)
    }

    /// Sets the gate options of the chain on the handler, if it has a gate
    /// (``GatedContentHandler``): every ``SelectiveDiscarder`` does.
    private func applyGateOptions(to handler: Handler) {
        if let gated = handler as? any GatedContentHandler {
            if let codes = options.acceptedStatusCodes { gated.gate.statusCodes = codes }
            if let types = options.acceptedContentTypes { gated.gate.contentTypes = types }
        }
    }
}

extension Request where Handler == SelectiveDiscarder<Void> {
    /// A launcher that starts this request, with a segment's headers and handler (outside the
    /// generic context, so that its closure captures no handler type).
    fileprivate func launchingSegments(progress: ProgressReporter) -> SegmentLauncher {
        let template = self
        return SegmentLauncher(progress: progress) { headers, handler, mirror, ended in
            let box = UncheckedSendable(handler)
            var request = template.replacingHandler { box.value }
            if let mirror {
                if let own = request.spec.url, !RedirectPolicy.sameOrigin(own, mirror) {
                    // Another origin: the request's credentials stay with the request's server.
                    for name in RedirectPolicy.credentialHeaders { request.spec.headers.remove(name: name) }
                    request.options.interceptors = []
                }
                request.spec.url = mirror
                request.spec.urlText = mirror.absoluteString
                request.spec.queryItems = []
            }
            for header in headers { request.spec.headers.replaceOrAdd(name: header.name, value: header.value) }
            let call = request.start()
            call.observe { outcome in
                switch outcome {
                case .failure(let error): ended(error, error.timings)
                case .success(let response): ended(nil, response.timings)
                }
            }
            return { call.cancel() }
        }
    }
}

/// A request that can be started over, its outcome handed on type-erased: what a download over
/// several connections does when the resource changed while it ran (an existential, so that the
/// closure holding it captures no handler type).
protocol StartingOver: Sendable {
    func startOver(_ deliver: @escaping @Sendable (any Sendable) -> Void) -> @Sendable () -> Void
}

extension Request: StartingOver {
    func startOver(_ deliver: @escaping @Sendable (any Sendable) -> Void) -> @Sendable () -> Void {
        let call = start()
        call.observe { deliver($0) }
        return { call.cancel() }
    }
}
