import Foundation

/// A bounded copy of the body of a rejected response — the server's explanation of why.
///
/// When a handler refuses a response at its head (an unacceptable status or content type), the
/// driver keeps reading up to a limit (64 KiB by default) instead of throwing the body away, then
/// stops the transfer. The copy travels in ``HotPotatoError/errorBody``:
///
/// ```swift
/// catch let error as HotPotatoError {
///     if let body = error.errorBody {
///         print(body.serverMessage ?? body.text)
///         let problem = try? body.decode(Problem.self)
///     }
/// }
/// ```
public struct ErrorBody: Sendable, Hashable {
    /// The default number of bytes kept: 64 KiB.
    public static let defaultLimit = 64 * 1024

    /// The bytes kept, at most the limit.
    public let data: Data
    /// Whether the server sent more than was kept.
    public let isTruncated: Bool
    /// The response's `Content-Type`, when present and valid.
    public let contentType: MediaType?

    /// Creates an error body.
    public init(data: Data, isTruncated: Bool, contentType: MediaType?) {
        self.data = data
        self.isTruncated = isTruncated
        self.contentType = contentType
    }

    /// The body as text, decoded with its charset when HotPotato knows it, else as UTF-8; invalid
    /// bytes become U+FFFD. Never fails, so it is safe for logs and messages.
    public var text: String {
        if let charset = contentType?.charset,
           let encoding = TextEncodings.encoding(forCharset: charset),
           encoding != .utf8,
           let decoded = String(data: data, encoding: encoding) {
            return decoded
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The body parsed as JSON, or `nil` when it is not valid JSON (or was truncated mid-value).
    public var json: JSON? {
        try? JSONBackend.parse(data)
    }

    /// Decodes the body into a type of yours, such as an API's error document.
    ///
    /// - Throws: The decoder's `DecodingError` when the body does not match `type`.
    public func decode<T: Decodable>(_ type: T.Type, using decoder: JSONDecoder = JSONDecoder()) throws -> T {
        try decoder.decode(type, from: data)
    }

    /// The server's message, best effort: for a JSON body, the first string found at `error`,
    /// `message`, `detail`, `error_description`, `errors.0.message`, `title`, `error.message`
    /// or `errors.0` (in that order); otherwise short plain text, trimmed; for an HTML page its
    /// short `<title>` (a server's own error page: nginx's `400 No required SSL certificate was
    /// sent`); `nil` for an empty body or anything else with no obvious message.
    public var serverMessage: String? {
        ServerMessage.extract(from: self)
    }
}
