import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Request {
    /// Adds a header field (a field of the same name set earlier is kept; send both).
    public func header(_ name: String, _ value: String) -> Request {
        with { $0.spec.headers.add(name: name, value: value) }
    }

    /// Adds header fields.
    public func headers(_ headers: HTTPHeaders) -> Request {
        with { request in
            for field in headers { request.spec.headers.add(name: field.name, value: field.value) }
        }
    }

    /// Sends the request without the header field `name` (compared without case), as curl's
    /// `-H 'Name:'`: fields of that name set earlier in the chain are removed, and neither the
    /// session's ``Session/Configuration/headers`` nor the engine's own default of that name is
    /// sent — the libcurl engine's `User-Agent: HotPotato`, `Accept: */*`,
    /// `Accept-Encoding` (with it, the transparent decompression it asks for) and even `Host`.
    ///
    /// ```swift
    /// let text = try await session.get(url).withoutHeader("User-Agent").withoutHeader("Accept").asString().content
    /// ```
    ///
    /// A field of that name set later — by ``header(_:_:)`` further down the chain, an
    /// interceptor, or a download asking for ranges — is sent. A request cannot go without
    /// `Content-Length` or `Transfer-Encoding` (the engine frames the body with them): asking
    /// fails it with ``HotPotatoError/Code/invalidRequest``, as does a name that is not an
    /// RFC 9110 token. Without `Cookie`, the session's cookie store adds none to the request.
    ///
    /// The URLSession engine cannot keep out the fields Foundation adds itself (`Host`,
    /// `User-Agent`, `Accept`, `Accept-Encoding`, `Accept-Language`, `Connection`): a request
    /// going without one of those fails there with ``HotPotatoError/Code/engineUnavailable``
    /// rather than send it; any other name it honours.
    public func withoutHeader(_ name: String) -> Request {
        with { request in
            request.spec.headers.remove(name: name)
            request.spec.omittedHeaders.insert(name.lowercased())
        }
    }

    /// Sends HTTP Basic credentials (RFC 7617): `Authorization: Basic` and the Base64 of
    /// `user:password` in UTF-8, in place of any `Authorization` field set earlier.
    ///
    /// Like every credential header, it is dropped when a redirect leaves the request's origin.
    /// Basic credentials are readable by anyone who sees the request: send them over `https`.
    /// A user name with a colon (which the scheme cannot carry) fails the request with
    /// ``HotPotatoError/Code/invalidRequest`` when it runs.
    public func basicAuthentication(user: String, password: String) -> Request {
        with { request in
            guard !user.contains(":") else {
                request.spec.credentialsError = HotPotatoError(
                    .invalidRequest, reason: "A Basic authentication user name cannot contain a colon.")
                return
            }
            request.spec.credentialsError = nil
            let credentials = Data("\(user):\(password)".utf8).base64EncodedString()
            request.spec.headers.replaceOrAdd(name: "Authorization", value: "Basic \(credentials)")
        }
    }

    /// Appends a query item to the URL (`?name=value`); the value is percent-encoded.
    public func query(_ name: String, _ value: String?) -> Request {
        with { $0.spec.queryItems.append(URLQueryItem(name: name, value: value)) }
    }

    /// Appends query items to the URL.
    public func query(_ items: [URLQueryItem]) -> Request {
        with { $0.spec.queryItems += items }
    }

    /// Sends `data` as the body, with a `Content-Type` when given.
    public func body(_ data: Data, contentType: String? = nil) -> Request {
        with { request in
            request.spec.body = .data(data)
            if let contentType { request.spec.headers.replaceOrAdd(name: "Content-Type", value: contentType) }
        }
    }

    /// Sends `value` encoded as JSON, with `Content-Type: application/json`. If encoding fails,
    /// the request fails with ``HotPotatoError/Code/invalidRequest`` when it runs.
    public func body<Value: Encodable>(json value: Value, encoder: JSONEncoder = JSONEncoder()) -> Request {
        with { request in
            do {
                request.spec.body = .data(try encoder.encode(value))
            } catch {
                request.spec.body = .invalid(HotPotatoError(
                    .invalidRequest, reason: "Encoding the JSON body failed: \(error)", underlying: error))
            }
            request.spec.headers.replaceOrAdd(name: "Content-Type", value: "application/json")
        }
    }

    /// Sends the contents of a file as the body, streamed from disk. A file that cannot be read
    /// fails the request with ``HotPotatoError/Code/invalidRequest`` when it runs.
    ///
    /// A regular file is measured when the request is sent, and exactly that many bytes follow
    /// its `Content-Length`: one that grows meanwhile is cut there, one that shrinks fails the
    /// call at once with ``HotPotatoError/Code/bodyFileChanged``. A FIFO or a device is sent
    /// chunked as its bytes come; one that sends nothing for the idle timeout fails the call with
    /// ``HotPotatoError/Code/timedOut``. Any method sends the body, `GET` included; `HEAD` cannot
    /// (the call fails with ``HotPotatoError/Code/invalidRequest``). See <doc:Uploading>.
    public func body(fileAt url: URL, contentType: String? = nil) -> Request {
        with { request in
            request.spec.body = .file(url)
            if let contentType { request.spec.headers.replaceOrAdd(name: "Content-Type", value: contentType) }
        }
    }

    /// Seconds this request may wait for the next bytes before failing with
    /// ``HotPotatoError/Code/timedOut``; overrides ``Session/Configuration/requestTimeout``.
    public func timeout(_ seconds: TimeInterval) -> Request {
        with { $0.spec.timeout = seconds }
    }

    /// Receives at most `bytesPerSecond` bytes a second (curl's `--limit-rate`), within the
    /// session's ``Session/Configuration/receiveRateLimit`` if it has one. A download over
    /// several connections (``FileWriter``'s `connections:` and mirrors) keeps to it as a whole,
    /// its connections sharing it evenly. The libcurl engine
    /// stops reading the connection while the transfer is ahead of the rate (no busy-waiting;
    /// TCP holds the rest on the server). The URLSession engine cannot: the call fails with
    /// ``HotPotatoError/Code/engineUnavailable``. 0 or less: no limit of the request's own.
    public func limitRate(_ bytesPerSecond: Int64) -> Request {
        with { $0.options.receiveRateLimit = bytesPerSecond > 0 ? bytesPerSecond : nil }
    }

    /// How many bytes of a rejected response's body to keep for the error; overrides
    /// ``Session/Configuration/errorBodyLimit``.
    public func errorBodyLimit(_ bytes: Int) -> Request {
        with { $0.options.errorBodyLimit = bytes }
    }

    /// Calls `callback` with the body's progress, at most every
    /// ``Session/Configuration/progressInterval`` and once at the end.
    ///
    /// Each call adds a callback, as ``onHead(queue:_:)`` does: every one receives every update,
    /// each on its own queue.
    /// - Parameters:
    ///   - queue: The queue to call it on; by default a serial queue of the call's own.
    ///   - callback: Receives bytes received and expected.
    public func onProgress(queue: DispatchQueue? = nil, _ callback: @escaping @Sendable (TransferProgress) -> Void) -> Request {
        with { request in
            request.options.progressObservers.append(ProgressReporter.Observer(queue: queue, callback: callback))
        }
    }

    /// Calls `callback` with the head of the response — its status and headers — as soon as it
    /// arrives, before the handler sees it: for every response, accepted or not.
    ///
    /// On a redirect, only the final response's head is reported; a retried call reports each
    /// attempt's. Without a `queue`, the callback
    /// runs on the transfer's own thread, before the handler's ``ContentHandler/prepare(for:)``
    /// and before the call completes; the transfer waits for it, so keep it short. Each call adds
    /// a callback: they run in the order they were added.
    /// - Parameters:
    ///   - queue: The queue to call it on; by default none (see above).
    ///   - callback: Receives the response head.
    public func onHead(queue: DispatchQueue? = nil, _ callback: @escaping @Sendable (ResponseHead) -> Void) -> Request {
        with { request in
            let observe: @Sendable (ResponseHead) -> Void
            if let queue { observe = { head in queue.async { callback(head) } } } else { observe = callback }
            if let earlier = request.options.headCallback {
                request.options.headCallback = { head in earlier(head); observe(head) }
            } else {
                request.options.headCallback = observe
            }
        }
    }
}

extension Request {
    /// Accepts exactly these status codes (an empty set accepts all), instead of the handler's
    /// default (`200...299`).
    ///
    /// Applies to handlers that are ``GatedContentHandler``s, which every HotPotato handler is;
    /// it stays in effect when the chain changes the handler afterwards.
    public func accepting(statusCodes: Set<Int>) -> Request {
        with { $0.options.acceptedStatusCodes = statusCodes }
    }

    /// Accepts the status codes in a range, such as `200...399`.
    public func accepting(statusCodes: ClosedRange<Int>) -> Request {
        accepting(statusCodes: Set(statusCodes))
    }

    /// Accepts the status codes in a half-open range, such as `200..<400` (an empty range, as
    /// an empty set, accepts all).
    public func accepting(statusCodes: Range<Int>) -> Request {
        accepting(statusCodes: Set(statusCodes))
    }

    /// Accepts exactly these content types (an empty list accepts all), instead of the handler's
    /// default. Matching follows ``MediaType/matches(_:)``.
    public func accepting(contentTypes: [MediaType]) -> Request {
        with { $0.options.acceptedContentTypes = contentTypes }
    }

    /// Accepts any status code: the body is handled whatever the status.
    public func acceptingAnyStatus() -> Request {
        accepting(statusCodes: Set<Int>())
    }

    /// Accepts any content type, or none.
    public func acceptingAnyContentType() -> Request {
        accepting(contentTypes: [])
    }
}

extension Request {
    /// Retries this request as `policy` says, in place of the session's
    /// ``Session/Configuration/retryPolicy``; ``RetryPolicy/never`` turns retrying off.
    ///
    /// ```swift
    /// let items = try await session.get(url).retry(RetryPolicy(maximumAttempts: 5)).as([Item].self).content
    /// ```
    public func retry(_ policy: RetryPolicy) -> Request {
        with { $0.options.retryPolicy = policy }
    }

    /// Adds interceptors for this request, after the session's
    /// (``Session/Configuration/interceptors``): see ``RequestInterceptor``.
    public func intercepted(by interceptors: any RequestInterceptor...) -> Request {
        with { $0.options.interceptors += interceptors }
    }

    /// Follows redirects as `behavior` says, in place of the session's
    /// ``Session/Configuration/redirects``.
    public func redirects(_ behavior: RedirectBehavior) -> Request {
        with { $0.options.redirects = behavior }
    }
}
