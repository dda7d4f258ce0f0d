import Foundation

/// The common shapes of ``HotPotatoError``, each built in one expression with the fields its
/// ``HotPotatoError/Code`` documents, so that every place that reports one fills them alike.
extension HotPotatoError {
    /// ``Code/bodyTooLarge``: the body, or its declared length, is over a limit.
    /// - Parameters:
    ///   - limit: The limit exceeded (``limit``).
    ///   - byteCount: The length declared, or received so far (``byteCount``).
    ///   - byteOffset: Where in the body the limit was crossed, when it was (``byteOffset``).
    static func bodyTooLarge(
        _ reason: String, limit: Int64, byteCount: Int64, byteOffset: Int64? = nil, head: ResponseHead?
    ) -> HotPotatoError {
        var error = HotPotatoError(.bodyTooLarge, reason: reason, head: head)
        error.limit = limit
        error.byteCount = byteCount
        error.byteOffset = byteOffset
        return error
    }

    /// ``Code/truncatedBody``: the body ended after `byteCount` bytes, before the `expected`
    /// length (``limit``; `nil` when none was declared). ``byteCount`` and ``byteOffset`` are
    /// both `byteCount`: where the body ended.
    static func truncatedBody(
        _ reason: String, byteCount: Int64, expected: Int64?, head: ResponseHead?, path: String? = nil,
        underlying: (any Error)? = nil
    ) -> HotPotatoError {
        var error = HotPotatoError(.truncatedBody, reason: reason, head: head, underlying: underlying)
        error.limit = expected
        error.byteCount = byteCount
        error.byteOffset = byteCount
        error.path = path
        return error
    }

    /// An error (usually ``Code/malformedResponse``) about a length that is not the one
    /// announced: `expected` as ``limit``, `actual` as ``byteCount``.
    static func lengthMismatch(
        _ code: Code = .malformedResponse, _ reason: String, expected: Int64?, actual: Int64?, head: ResponseHead?
    ) -> HotPotatoError {
        var error = HotPotatoError(code, reason: reason, head: head)
        error.limit = expected
        error.byteCount = actual
        return error
    }

    /// An error about a file (``Code/fileSystemError``, ``Code/writeFailed``,
    /// ``Code/invalidRequest`` for a body file …), with its ``path`` and, for a write, the
    /// ``byteOffset`` it failed at.
    static func file(
        _ code: Code, _ reason: String, path: String?, byteOffset: Int64? = nil, head: ResponseHead? = nil,
        underlying: (any Error)? = nil
    ) -> HotPotatoError {
        var error = HotPotatoError(code, reason: reason, head: head, underlying: underlying)
        error.path = path
        error.byteOffset = byteOffset
        return error
    }

    /// ``Code/writeFailed`` for a destination that is not a file (a stream): ``byteOffset`` is
    /// how many bytes were written before the failure.
    static func writeFailed(
        _ reason: String, byteOffset: Int64, head: ResponseHead?, underlying: (any Error)?
    ) -> HotPotatoError {
        var error = HotPotatoError(.writeFailed, reason: reason, head: head, underlying: underlying)
        error.byteOffset = byteOffset
        return error
    }

    /// ``Code/invalidRequest`` for a request body file that cannot be read, with its ``path``.
    static func unreadableBodyFile(_ url: URL, underlying: (any Error)? = nil) -> HotPotatoError {
        .file(
            .invalidRequest, "The body file \(url.path) cannot be read" + (underlying.map { ": \($0)" } ?? "."),
            path: url.path, underlying: underlying)
    }

    /// ``Code/bodyFileChanged``: the body file at `url` ended after `offset` of the `length`
    /// bytes it had when it was measured (``limit``, ``byteCount``, ``path``).
    static func bodyFileShrank(_ url: URL, offset: Int64, length: Int64) -> HotPotatoError {
        var error = HotPotatoError.file(
            .bodyFileChanged,
            "The body file \(url.path) became shorter while it was sent: it ended after \(offset) of the \(length) bytes "
                + "announced as the Content-Length.",
            path: url.path)
        error.limit = length
        error.byteCount = offset
        return error
    }

    /// ``Code/bodyNotReplayable``: a one-shot request body would have to be sent again; `head` is
    /// the redirect that asked for it, when one did.
    static func bodyNotReplayable(_ reason: String, head: ResponseHead? = nil) -> HotPotatoError {
        HotPotatoError(.bodyNotReplayable, reason: reason, head: head)
    }

    /// ``Code/bufferingFailed``: body bytes held back for a slow consumer could not be set
    /// aside in a temporary file in `directory` (``path``); `limit` is the memory bound that
    /// could not be kept otherwise (``limit``).
    static func bufferingFailed(_ what: String, limit: Int64, directory: String, underlying: any Error) -> HotPotatoError {
        var error = HotPotatoError(
            .bufferingFailed, reason: "\(what) (in \(directory)): \(underlying)", underlying: underlying)
        error.limit = limit
        error.path = directory
        return error
    }

    /// ``Code/tooManyRedirects``: more than `limit` redirects (``limit``).
    static func tooManyRedirects(limit: Int, head: ResponseHead?) -> HotPotatoError {
        var error = HotPotatoError(
            .tooManyRedirects, reason: "The request was redirected more than \(limit) times.", head: head)
        error.limit = Int64(limit)
        return error
    }

    /// An error about the body's text encoding (``Code/unsupportedCharset``,
    /// ``Code/undecodableText``): the ``encoding``, where the text broke (``byteOffset``), and
    /// the raw body (``intermediate``).
    static func text(
        _ code: Code, _ reason: String, encoding: String, byteOffset: Int64? = nil, body: Data, head: ResponseHead?
    ) -> HotPotatoError {
        var error = HotPotatoError(code, reason: reason, head: head)
        error.encoding = encoding
        error.byteOffset = byteOffset
        error.intermediate = .bytes(body)
        return error
    }

    /// An error a conversion of the whole body raised (``Code/conversionFailed``,
    /// ``Code/decodingFailed`` …), with the data it failed on (``intermediate``) and the
    /// ``keyPath`` it read from.
    static func conversion(
        _ code: Code, _ reason: String, intermediate: IntermediateContent?, keyPath: String? = nil,
        head: ResponseHead?, underlying: (any Error)?
    ) -> HotPotatoError {
        var error = HotPotatoError(code, reason: reason, head: head, underlying: underlying)
        error.intermediate = intermediate
        error.keyPath = keyPath
        return error
    }

    /// The same error, marked as being about element `index` of a streamed sequence
    /// (``elementIndex``) read at `keyPath` (``keyPath``, when given).
    func atElement(_ index: Int, keyPath: String? = nil) -> HotPotatoError {
        var error = self
        error.elementIndex = index
        if let keyPath { error.keyPath = keyPath }
        return error
    }

    /// The same error, located at `byteOffset` (``byteOffset``), line and column in the body.
    func located(byteOffset: Int64, line: Int, column: Int) -> HotPotatoError {
        var error = self
        error.byteOffset = byteOffset
        error.line = line
        error.column = column
        return error
    }
}
