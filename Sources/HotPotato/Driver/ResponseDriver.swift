import Foundation

/// Runs one response through a ``ContentHandler``: head → chunks → end, or failure.
///
/// Every transport (URLSession, libcurl) and every test drives handlers through this type, so
/// they all see the same call order, the same error model and the same guarantees:
///
/// - the handler's calls follow the contract of ``ContentHandler``, and ``ContentHandler/cleanUp()``
///   follows every failure;
/// - a response the handler rejects at its head (an unacceptable status or content type) is
///   never parsed or written: the driver keeps reading up to ``errorBodyLimit`` bytes of it into
///   the error's ``HotPotatoError/errorBody``, then asks the transport to stop;
/// - a body shorter than its `Content-Length` fails with
///   ``HotPotatoError/Code/truncatedBody``, and a `Content-Length` that is not one decimal number
///   (see ``ResponseHead/contentLength``) with ``HotPotatoError/Code/malformedResponse`` before
///   the handler sees the head;
/// - once the outcome is known, further chunks are ignored.
///
/// Each feeding method returns whether the transport should keep reading. When it returns
/// `false`, ``result`` holds the outcome: stop the transfer and report it.
///
/// ```swift
/// let driver = ResponseDriver(handler: Accumulator())
/// driver.receive(head: ResponseHead(status: 200))
/// driver.receive(Data("hello".utf8))
/// let data = try driver.finish().get()
/// ```
///
/// A driver is not thread-safe: make its calls one after another.
public final class ResponseDriver<Handler: ContentHandler> {
    /// The handler being driven.
    public let handler: Handler
    /// How many bytes of a rejected response's body are kept for ``HotPotatoError/errorBody``.
    public let errorBodyLimit: Int
    /// The response head, once received.
    public private(set) var head: ResponseHead?
    /// Body bytes received so far (including those of a rejected response).
    public private(set) var bytesReceived: Int64 = 0
    /// The outcome, once known.
    public private(set) var result: Result<Handler.Content, HotPotatoError>?
    /// Whether the request asked for a range (had a `Range` header). When `false`, a
    /// `206 Partial Content` fails with ``HotPotatoError/Code/malformedResponse`` before the
    /// handler sees it: a server may send one only to a range request (RFC 9110), and a part is
    /// not the resource. `nil` (the default: the driver does not know the request) lets the
    /// handler decide. ``Session`` sets it for every call.
    public var rangeRequested: Bool?

    private enum State {
        case awaitingHead
        case streaming
        case collectingErrorBody(HotPotatoError, Data)
        case done
    }

    private var state = State.awaitingHead

    /// Creates a driver for one response.
    /// - Parameters:
    ///   - handler: A fresh handler for this response.
    ///   - errorBodyLimit: How many bytes of a rejected body to keep; 64 KiB by default.
    public init(handler: Handler, errorBodyLimit: Int = ErrorBody.defaultLimit) {
        self.handler = handler
        self.errorBodyLimit = max(0, errorBodyLimit)
    }

    /// Whether the outcome is known.
    public var isComplete: Bool { result != nil }

    /// Feeds the response head. Returns whether the transport should read the body.
    @discardableResult
    public func receive(head: ResponseHead) -> Bool {
        guard case .awaitingHead = state else { return !isComplete }
        self.head = head
        if head.hasMalformedContentLength {
            let values = head.headers.values(for: "Content-Length").map { "\"\($0)\"" }.joined(separator: ", ")
            fail(with: attachHead(to: HotPotatoError(
                .malformedResponse,
                reason: "The response's Content-Length \(values) is not one decimal length of at most 2^63 - 1 bytes, so where its body ends "
                    + "cannot be known.")))
            return false
        }
        if head.status == 206, rangeRequested == false {
            fail(with: attachHead(to: HotPotatoError(
                .malformedResponse,
                reason: "The server answered 206 Partial Content (\(head.headers["Content-Range"].map { "Content-Range \($0)" } ?? "no Content-Range")) "
                    + "to a request for the whole resource; a part is not the content.")))
            return false
        }
        do {
            try handler.prepare(for: head)
            state = .streaming
            return true
        } catch let error as HotPotatoError where error.code.isRejection {
            state = .collectingErrorBody(attachHead(to: error), Data())
            if head.hasEmptyBody || errorBodyLimit == 0 {
                completeRejection(truncated: !head.hasEmptyBody)
                return false
            }
            return true
        } catch {
            fail(with: wrap(error))
            return false
        }
    }

    /// Feeds the next body chunk. Returns whether the transport should keep reading.
    ///
    /// Empty chunks are ignored; so is every chunk once the outcome is known.
    @discardableResult
    public func receive(_ chunk: Data) -> Bool {
        switch state {
        case .awaitingHead:
            fail(with: HotPotatoError(.transportFailed, reason: "Body bytes arrived before the response head."))
            return false
        case .done:
            return false
        case .streaming:
            guard !chunk.isEmpty else { return true }
            let offset = bytesReceived
            bytesReceived += Int64(chunk.count)
            do {
                try handler.receive(chunk)
                return true
            } catch is BodyComplete {
                // The handler has all it wants of the body (one part of a file fetched over
                // several connections): it finishes now, and the transport stops.
                finishHandler()
                return false
            } catch {
                var failure = wrap(error)
                if failure.byteOffset == nil { failure.byteOffset = offset }
                fail(with: failure)
                return false
            }
        case .collectingErrorBody(let rejection, var kept):
            bytesReceived += Int64(chunk.count)
            let room = errorBodyLimit - kept.count
            if chunk.count > room {
                kept.append(chunk.prefix(room))
                state = .collectingErrorBody(rejection, kept)
                completeRejection(truncated: true)
                return false
            }
            kept.append(chunk)
            state = .collectingErrorBody(rejection, kept)
            return true
        }
    }

    /// Reports that the body has ended, and returns the outcome.
    ///
    /// Checks the length against `Content-Length` (unless the body was content-decoded), then
    /// asks the handler for its content.
    @discardableResult
    public func finish() -> Result<Handler.Content, HotPotatoError> {
        if let result { return result }
        switch state {
        case .awaitingHead:
            fail(with: HotPotatoError(.transportFailed, reason: "The response ended without a head."))
        case .collectingErrorBody:
            // Against the declared length, which a content-coded body has none of: its header
            // counts the coded bytes, not the decoded ones kept.
            let declared = head?.declaredBodyLength ?? bytesReceived
            completeRejection(truncated: bytesReceived < declared)
        case .streaming:
            if let failure = truncation() {
                fail(with: failure)
            } else {
                finishHandler()
            }
        case .done:
            break
        }
        return result!
    }

    /// Reports that the transfer failed or was cancelled, and returns the outcome.
    ///
    /// The handler is cleaned up. If a rejected response's body was being kept, the rejection
    /// (with the part of the body kept so far) is the outcome, unless `error` is a cancellation.
    /// Errors that are not ``HotPotatoError`` become ``HotPotatoError/Code/transportFailed``;
    /// `CancellationError` becomes ``HotPotatoError/Code/cancelled``. A
    /// ``HotPotatoError/Code/connectionLost`` after the head gets the declared length
    /// (``ResponseHead/declaredBodyLength``) as its ``HotPotatoError/limit`` and ``bytesReceived``
    /// as its ``HotPotatoError/byteCount``.
    @discardableResult
    public func fail(_ error: any Error) -> Result<Handler.Content, HotPotatoError> {
        if let result { return result }
        var failure: HotPotatoError
        switch error {
        case let error as HotPotatoError: failure = attachHead(to: error)
        case is CancellationError:
            failure = attachHead(to: HotPotatoError.requestCancelled)
        default:
            failure = attachHead(to: HotPotatoError(
                .transportFailed, reason: "The transfer failed: \(error)", underlying: error))
        }
        if case .collectingErrorBody = state, failure.code != .cancelled {
            completeRejection(truncated: true)
        } else {
            if failure.byteOffset == nil, failure.code != .cancelled, head != nil {
                failure.byteOffset = bytesReceived
            }
            if failure.code == .connectionLost, failure.limit == nil, let declared = head?.declaredBodyLength {
                // A connection lost mid-body: how much of the declared length arrived.
                failure.limit = declared
                failure.byteCount = bytesReceived
            }
            fail(with: failure)
        }
        return result!
    }

    /// Reports that the transfer stopped before the body's end, and returns the outcome: the
    /// transports say only that the body ended early and why (`cause`); the driver decides what
    /// that means.
    ///
    /// While streaming (or before the head), the outcome is ``HotPotatoError/Code/truncatedBody``,
    /// with the declared length (``ResponseHead/declaredBodyLength``) as its
    /// ``HotPotatoError/limit`` and ``bytesReceived`` as its ``HotPotatoError/byteCount`` and
    /// ``HotPotatoError/byteOffset``. With `onlyIfShort`, the transport could not tell an early
    /// end from another failure: it is one only when fewer bytes than declared arrived, and
    /// otherwise `cause` is the outcome, as with ``fail(_:)``. A rejected response's body is
    /// kept as with ``fail(_:)``.
    @discardableResult
    func bodyEndedEarly(_ cause: HotPotatoError, onlyIfShort: Bool = false) -> Result<Handler.Content, HotPotatoError> {
        if let result { return result }
        switch state {
        case .awaitingHead, .streaming:
            let declared = head?.declaredBodyLength
            if onlyIfShort, declared.map({ bytesReceived < $0 }) != true { return fail(cause) }
            fail(with: truncatedBody(declared: declared, cause: cause))
            return result!
        case .collectingErrorBody, .done:
            return fail(cause)
        }
    }

    // MARK: - Private

    /// A clean end before the declared length: ``HotPotatoError/Code/truncatedBody``.
    private func truncation() -> HotPotatoError? {
        guard let declared = head?.declaredBodyLength, bytesReceived < declared else { return nil }
        return truncatedBody(declared: declared, cause: nil)
    }

    /// The one ``HotPotatoError/Code/truncatedBody`` the driver reports, for a body that ended
    /// after ``bytesReceived`` bytes, before the `declared` length if there is one; `cause` is the
    /// transport's account of an early end (its reason is quoted, its underlying error kept).
    private func truncatedBody(declared: Int64?, cause: HotPotatoError?) -> HotPotatoError {
        let reason: String
        if let cause {
            let of = declared.map { " of the \($0) bytes its Content-Length declared" } ?? ""
            reason = "The body ended after \(bytesReceived) bytes\(of): \(cause.reason)"
        } else {
            reason = "The body ended after \(bytesReceived) of the \(declared ?? 0) bytes its Content-Length declared."
        }
        return .truncatedBody(
            reason, byteCount: bytesReceived, expected: declared, head: head, underlying: cause?.underlying)
    }

    private func completeRejection(truncated: Bool) {
        guard case .collectingErrorBody(var rejection, let kept) = state else { return }
        rejection.errorBody = ErrorBody(data: kept, isTruncated: truncated, contentType: head?.contentType)
        fail(with: rejection)
    }

    /// Finishes the handler: its content is the result, or its error the failure.
    private func finishHandler() {
        do {
            let content = try handler.finish()
            state = .done
            result = .success(content)
        } catch {
            fail(with: wrap(error))
        }
    }

    private func fail(with error: HotPotatoError) {
        state = .done
        result = .failure(error)
        handler.cleanUp()
    }

    private func attachHead(to error: HotPotatoError) -> HotPotatoError {
        var error = error
        if error.head == nil { error.head = head }
        return error
    }

    private func wrap(_ error: any Error) -> HotPotatoError {
        if let error = error as? HotPotatoError { return attachHead(to: error) }
        if error is CancellationError {
            return attachHead(to: HotPotatoError.requestCancelled)
        }
        return attachHead(to: HotPotatoError(
            .handlerFailed, reason: "The content handler failed: \(error)", underlying: error))
    }
}

extension ResponseDriver {
    /// Drives `handler` through a whole response held in memory: the head, then each chunk, then
    /// the end. Returns the content or throws the ``HotPotatoError`` a transport would report.
    ///
    /// Tests use it to feed handlers exactly as the transports do. Inlinable, so that iterating
    /// `chunks` is specialised for the caller's sequence (unspecialised, each element cost an
    /// allocation).
    @inlinable
    public static func run(
        _ handler: Handler,
        head: ResponseHead,
        chunks: some Sequence<Data>,
        errorBodyLimit: Int = ErrorBody.defaultLimit
    ) throws(HotPotatoError) -> Handler.Content {
        let driver = ResponseDriver(handler: handler, errorBodyLimit: errorBodyLimit)
        if driver.receive(head: head) {
            for chunk in chunks {
                guard driver.receive(chunk) else { break }
            }
        }
        return try driver.finish().get()
    }
}
