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
///   ``byteCount``, ``keyPath``, ``encoding``, ``path``, ``underlying``: the specifics.
///
/// ```swift
/// do {
///     let user = try await session.get(url).as(User.self).content
/// } catch let error as HotPotatoError where error.code == .unacceptableStatus {
///     print(error.head?.status ?? 0, error.errorBody?.serverMessage ?? "no message")
/// }
/// ```
public struct HotPotatoError: Error, Sendable {
    /// What went wrong.
    public var code: Code
    /// The response head, when one was received before the error.
    public var head: ResponseHead?
    /// A bounded copy of the body of a rejected response (see ``Code/isRejection``).
    public var errorBody: ErrorBody?
    /// The data a conversion failed on: the raw bytes, or the decoded text.
    public var intermediate: IntermediateContent?
    /// The error that caused this one (a `DecodingError`, a `POSIXError`, a `URLError` …).
    public var underlying: (any Error)?
    /// The offset in the body, in bytes, where the problem was found.
    public var byteOffset: Int64?
    /// For a JSON syntax error: the line of ``byteOffset``, from 1.
    public var line: Int?
    /// For a JSON syntax error: the column of ``byteOffset``, in bytes, from 1.
    public var column: Int?
    /// For a streamed JSON sequence: the index (from 0) of the element that failed.
    public var elementIndex: Int?
    /// The limit that was exceeded or expected: a maximum body size, a declared length.
    public var limit: Int64?
    /// A byte count that goes with ``limit``: the length declared or received so far.
    public var byteCount: Int64?
    /// The JSON key path involved.
    public var keyPath: String?
    /// The text encoding or charset label involved.
    public var encoding: String?
    /// The file-system path involved.
    public var path: String?
    /// How many times the request was sent, when it ran under a ``RetryPolicy`` or a
    /// ``RequestInterceptor``: the error is the last attempt's (0 when an interceptor failed to
    /// adapt the first attempt, which was not sent). `nil` for a call made once without either.
    public var attempts: Int?
    /// A human-readable explanation of this particular failure. A URL's user name and password in
    /// it read `<redacted>` (see ``Redaction``), whoever wrote the text: HotPotato, libcurl,
    /// Foundation.
    public var reason: String {
        get { redactedReason }
        set { redactedReason = Redaction.redactingCredentials(in: newValue) }
    }
    private var redactedReason: String

    /// Creates an error. Handlers of your own may throw it to keep HotPotato's error model.
    public init(
        _ code: Code,
        reason: String,
        head: ResponseHead? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        redactedReason = Redaction.redactingCredentials(in: reason)
        self.head = head
        self.underlying = underlying
    }

    /// The server's message for a rejected response, from ``errorBody``; see
    /// ``ErrorBody/serverMessage``.
    public var serverMessage: String? { errorBody?.serverMessage }

    /// The status code of the response, when a head was received.
    public var status: Int? { head?.status }

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
