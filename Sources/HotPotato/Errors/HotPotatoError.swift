import Foundation

/// The one error type HotPotato throws.
///
/// Compare ``code`` to find out what happened; the other properties carry what you need to act
/// on it, and each ``Code`` documents which of them it sets:
///
/// - ``head``: the response status and headers, whenever a response head was received;
/// - ``errorBody``: for a rejected status or content type, a bounded copy of the body the
///   server sent, with its ``ErrorBody/serverMessage``;
/// - ``intermediate``: when a conversion failed after the body arrived, the raw bytes (or the
///   decoded text) it failed on;
/// - ``byteOffset`` (with ``line`` and ``column`` for JSON), ``elementIndex``, ``limit``,
///   ``byteCount``, ``keyPath``, ``encoding``, ``path``, ``expectedChecksum`` and
///   ``actualChecksum``, ``underlying``: the specifics.
///
/// ```swift
/// do {
///     let user = try await session.get(url).as(User.self).content
/// } catch let error as HotPotatoError where error.code == .unacceptableStatus {
///     print(error.head?.status ?? 0, error.errorBody?.serverMessage ?? "no message")
/// }
/// ```
public struct HotPotatoError: Error, Sendable {
    // Everything but the code lives in one shared, copy-on-write box: the error is two words
    // wide, not some four hundred bytes. Results, locks and async frames that may hold an error
    // (every call, every open event stream) carry those two words instead.
    private var details: Details
    /// What went wrong.
    public var code: Code
    /// The response head, when one was received before the error.
    public var head: ResponseHead? {
        get { details.head }
        set { uniqueDetails().head = newValue }
    }
    /// A bounded copy of the body of a rejected response (see ``Code/isRejection``).
    public var errorBody: ErrorBody? {
        get { details.errorBody }
        set { uniqueDetails().errorBody = newValue }
    }
    /// The data a conversion failed on: the raw bytes, or the decoded text.
    public var intermediate: IntermediateContent? {
        get { details.intermediate }
        set { uniqueDetails().intermediate = newValue }
    }
    /// The error that caused this one (a `DecodingError`, a `POSIXError`, a `URLError` …).
    public var underlying: (any Error)? {
        get { details.underlying }
        set { uniqueDetails().underlying = newValue }
    }
    /// The offset in the body, in bytes, where the problem was found.
    public var byteOffset: Int64? {
        get { details.byteOffset }
        set { uniqueDetails().byteOffset = newValue }
    }
    /// For a JSON syntax error: the line of ``byteOffset``, from 1.
    public var line: Int? {
        get { details.line }
        set { uniqueDetails().line = newValue }
    }
    /// For a JSON syntax error: the column of ``byteOffset``, in bytes, from 1.
    public var column: Int? {
        get { details.column }
        set { uniqueDetails().column = newValue }
    }
    /// For a streamed JSON sequence: the index (from 0) of the element that failed.
    public var elementIndex: Int? {
        get { details.elementIndex }
        set { uniqueDetails().elementIndex = newValue }
    }
    /// The limit that was exceeded or expected: a maximum body size, a declared length.
    public var limit: Int64? {
        get { details.limit }
        set { uniqueDetails().limit = newValue }
    }
    /// A byte count that goes with ``limit``: the length declared or received so far.
    public var byteCount: Int64? {
        get { details.byteCount }
        set { uniqueDetails().byteCount = newValue }
    }
    /// The JSON key path involved.
    public var keyPath: String? {
        get { details.keyPath }
        set { uniqueDetails().keyPath = newValue }
    }
    /// The text encoding or charset label involved.
    public var encoding: String? {
        get { details.encoding }
        set { uniqueDetails().encoding = newValue }
    }
    /// The file-system path involved.
    public var path: String? {
        get { details.path }
        set { uniqueDetails().path = newValue }
    }
    /// For ``Code/checksumMismatch``: the checksum the download was given.
    public var expectedChecksum: Checksum? {
        get { details.expectedChecksum }
        set { uniqueDetails().expectedChecksum = newValue }
    }
    /// For ``Code/checksumMismatch``: the downloaded bytes' checksum, of the same algorithm.
    public var actualChecksum: Checksum? {
        get { details.actualChecksum }
        set { uniqueDetails().actualChecksum = newValue }
    }
    /// How many times the request was sent, when it ran under a ``RetryPolicy`` or a
    /// ``RequestInterceptor``: the error is the last attempt's (0 when an interceptor failed to
    /// adapt the first attempt, which was not sent). `nil` for a call made once without either.
    public var attempts: Int? {
        get { details.attempts }
        set { uniqueDetails().attempts = newValue }
    }
    /// The failed attempt's measurements (see ``Response/timings``), when it got as far as
    /// sending the request and the engine measured it: a rejected status, a broken or cut-off
    /// body, a timeout, a lost connection (the URLSession engine has none for a connection lost
    /// before any response). `nil` for a failure before anything was sent, and for a download
    /// over several connections.
    public var timings: TransferTimings? {
        get { details.timings }
        set { uniqueDetails().timings = newValue }
    }
    /// A human-readable explanation of this particular failure. A URL's user name and password in
    /// it read `<redacted>` (see ``Redaction``), whoever wrote the text: HotPotato, libcurl,
    /// Foundation.
    public var reason: String {
        get { details.redactedReason }
        set { uniqueDetails().redactedReason = Redaction.redactingCredentials(in: newValue) }
    }

    /// Creates an error. Handlers of your own may throw it to keep HotPotato's error model.
    public init(
        _ code: Code,
        reason: String,
        head: ResponseHead? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        details = Details(reason: Redaction.redactingCredentials(in: reason), head: head, underlying: underlying)
    }

    /// The box, copied first when another error value shares it.
    private mutating func uniqueDetails() -> Details {
        if !isKnownUniquelyReferenced(&details) {
            details = details.copy()
        }
        return details
    }

    /// The fields of an error but its code. Changed only through ``uniqueDetails()``, that is
    /// only while one error value holds it: that is what makes it safe to send.
    private final class Details: @unchecked Sendable {
        var redactedReason: String
        var head: ResponseHead?
        var errorBody: ErrorBody?
        var intermediate: IntermediateContent?
        var underlying: (any Error)?
        var byteOffset: Int64?
        var line: Int?
        var column: Int?
        var elementIndex: Int?
        var limit: Int64?
        var byteCount: Int64?
        var keyPath: String?
        var encoding: String?
        var path: String?
        var attempts: Int?
        var expectedChecksum: Checksum?
        var actualChecksum: Checksum?
        var timings: TransferTimings?

        init(reason: String, head: ResponseHead?, underlying: (any Error)?) {
            redactedReason = reason
            self.head = head
            self.underlying = underlying
        }

        func copy() -> Details {
            let copy = Details(reason: redactedReason, head: head, underlying: underlying)
            copy.errorBody = errorBody
            copy.intermediate = intermediate
            copy.byteOffset = byteOffset
            copy.line = line
            copy.column = column
            copy.elementIndex = elementIndex
            copy.limit = limit
            copy.byteCount = byteCount
            copy.keyPath = keyPath
            copy.encoding = encoding
            copy.path = path
            copy.attempts = attempts
            copy.expectedChecksum = expectedChecksum
            copy.actualChecksum = actualChecksum
            copy.timings = timings
            return copy
        }
    }

    /// The server's message for a rejected response, from ``errorBody``; see
    /// ``ErrorBody/serverMessage``.
    public var serverMessage: String? { errorBody?.serverMessage }

    /// The status code of the response, when a head was received.
    public var status: Int? { head?.status }

    /// ``Code/cancelled``: the request was cancelled (by ``Call/cancel()``, the awaiting task, or
    /// the session's invalidation). The one error every cancelled call ends with.
    static var requestCancelled: HotPotatoError { HotPotatoError(.cancelled, reason: "The request was cancelled.") }

    /// ``Code/keyPathNotFound`` for `keyPath`, with ``keyPath`` set.
    static func keyPathNotFound(_ keyPath: String, head: ResponseHead? = nil) -> HotPotatoError {
        var error = HotPotatoError(.keyPathNotFound, reason: "The JSON has no value at the key path \"\(keyPath)\".", head: head)
        error.keyPath = keyPath
        return error
    }
}

extension HotPotatoError: CustomStringConvertible {
    /// The code, the reason, for a rejection the server's message, the number of attempts when
    /// there were more than one, and the underlying error, with every URL's credentials redacted.
    public var description: String {
        var text = "HotPotatoError.\(code): \(reason)"
        if let message = serverMessage {
            text += " — server says: \(message)"
        }
        if let attempts, attempts > 1 {
            text += " [after \(attempts) attempts]"
        }
        if let underlying, !(underlying is HotPotatoError) {
            // Foundation's errors print the URL they failed on, credentials and all.
            text += " (\(Redaction.redactingCredentials(in: String(describing: underlying))))"
        }
        return text
    }
}

extension HotPotatoError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}
