import Foundation

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
    /// ``Call/progress``, or ``Call/cancel()`` it.
    public func start() -> Call<Handler.Content> {
        let configuration = session.configuration
        let progress = ProgressReporter(interval: configuration.progressInterval, observers: options.progressObservers)
        let handler = makeHandler()
        if options.acceptedStatusCodes != nil || options.acceptedContentTypes != nil {
            applyGateOptions(to: handler)
        }
        let transfer = Transfer(
            handler: handler, errorBodyLimit: options.errorBodyLimit ?? configuration.errorBodyLimit,
            progress: progress, onHead: options.headCallback)
        let sink: any TransferSink = transfer
        let call = Call(completion: transfer.completion, progress: progress, cancel: { sink.cancel() })
        do {
            var urlRequest = try spec.makeURLRequest(defaults: configuration)
            try transfer.adapt(&urlRequest)
            if let url = urlRequest.url, url.scheme?.lowercased() == "data" {
                // Both engines answer data: URLs the same way, without a network.
                DataURL.deliver(url, method: spec.method, to: transfer)
                return call
            }
            let bodyFile = try spec.bodyFile()
            if session.transport.deliveriesMayBlock { transfer.allowBlockingDeliveries() }
            let stop = session.transport.start(urlRequest, bodyFile: bodyFile, sink: transfer)
            transfer.setStopEngine(stop)
        } catch {
            transfer.fail(error)
        }
        return call
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
