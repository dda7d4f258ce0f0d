import Foundation

/// The head of an HTTP response: status, headers, and where it came from.
///
/// A transport builds one when the status line and headers are complete (after redirects) and
/// hands it to a ``ContentHandler`` before any body byte. Every ``HotPotatoError`` raised after
/// that point carries it.
public struct ResponseHead: Sendable, Hashable {
    /// The HTTP status code, such as `200` or `404`.
    public var status: Int
    /// The response header fields; lookups are case-insensitive.
    public var headers: HTTPHeaders
    /// The URL the response came from (after redirects), when known.
    public var url: URL?
    /// The request method (`"GET"`, `"HEAD"` …), uppercased, when known.
    ///
    /// A `HEAD` response has no body whatever its headers say; see ``hasNoBody``.
    public var requestMethod: String?
    /// The version of HTTP the response came in, when the engine knows it: always with the curl
    /// engine, never with the URLSession engine (which does not say; see ``HTTPVersionPolicy``).
    public var httpVersion: HTTPVersion?

    /// Creates a response head.
    public init(
        status: Int, headers: HTTPHeaders = [:], url: URL? = nil, requestMethod: String? = nil,
        httpVersion: HTTPVersion? = nil
    ) {
        self.status = status
        self.headers = headers
        self.url = url
        self.requestMethod = requestMethod?.uppercased()
        self.httpVersion = httpVersion
    }

    /// The raw `Content-Type` header value, or `nil` when absent.
    public var contentTypeHeader: String? { headers["Content-Type"] }

    /// The parsed `Content-Type`, or `nil` when the header is absent or malformed.
    ///
    /// Use ``contentTypeHeader`` to tell an absent header from a malformed one.
    public var contentType: MediaType? { contentTypeHeader.flatMap { MediaType(parsing: $0) } }

    /// The declared body length from `Content-Length`, or `nil` when absent or invalid, or when
    /// the body is sent `chunked` (a `Transfer-Encoding` ending in `chunked` overrides
    /// `Content-Length`, RFC 9112 §6.3, and frames the body as libcurl and browsers read it).
    ///
    /// Parsed strictly, as RFC 9110 asks: ASCII digits only (no sign, space inside, exponent or
    /// fraction), a value that fits in `Int64`, and several identical values (a list, or repeated
    /// fields) count as one. Anything else gives `nil`, and ``hasMalformedContentLength`` tells
    /// that apart from an absent header. (libcurl alone would read `1e3` as 1 and skip a value
    /// too large for it, letting a truncated body pass as complete.)
    public var contentLength: Int64? {
        isChunked ? nil : contentLengthField
    }

    /// Whether the body is framed by chunks: the last of the `Transfer-Encoding` codings is
    /// `chunked` (HTTP/1.1).
    var isChunked: Bool {
        guard headers.contains("Transfer-Encoding") else { return false }
        let last = headers.values(for: "Transfer-Encoding").flatMap { $0.split(separator: ",") }.last
        return last.map { ASCII.lowercased(String(ASCII.trimmingWhitespace($0))) == "chunked" } ?? false
    }

    /// `Content-Length` parsed strictly, whatever `Transfer-Encoding` says.
    private var contentLengthField: Int64? {
        // Byte by byte, without Foundation's Unicode trimming: this runs several times a response.
        var first: Substring?
        for field in headers.fields where HTTPHeaders.namesMatch(field.name, "Content-Length") {
            var rest = Substring(field.value)
            while true {
                let comma = rest.utf8.firstIndex(of: UInt8(ascii: ","))
                let value = ASCII.trimmingWhitespace(comma.map { rest[..<$0] } ?? rest)
                if let first {
                    guard value == first else { return nil }
                } else {
                    first = value
                }
                guard let comma else { break }
                rest = rest[rest.utf8.index(after: comma)...]
            }
        }
        return first.flatMap { ASCII.decimalInt64($0) }
    }

    /// Whether the response has a `Content-Length` that does not parse (see ``contentLength``):
    /// its body's length is unknowable, so ``ResponseDriver`` fails it with
    /// ``HotPotatoError/Code/malformedResponse``.
    public var hasMalformedContentLength: Bool {
        headers.contains("Content-Length") && !isChunked && contentLengthField == nil
    }

    /// The `Content-Encoding` codings, lowercased (`["gzip"]`); empty when absent or `identity`.
    public var contentEncodings: [String] {
        guard headers.contains("Content-Encoding") else { return [] }
        return headers.values(for: "Content-Encoding")
            .flatMap { $0.split(separator: ",") }
            .map { ASCII.lowercased(String(ASCII.trimmingWhitespace($0))) }
            .filter { !$0.isEmpty && $0 != "identity" }
    }

    /// Whether this response has no body by definition, whatever its headers say: a response to
    /// `HEAD`, or a `1xx`, `204 No Content`, `205 Reset Content` or `304 Not Modified`.
    ///
    /// Handlers produce their "empty" content for such responses instead of failing.
    public var hasNoBody: Bool {
        requestMethod == "HEAD" || (100..<200).contains(status)
            || status == 204 || status == 205 || status == 304
    }

    /// How many body bytes the response declares, as the transports count them: `0` for a
    /// response that has no body by definition (see ``hasNoBody``), the ``contentLength`` when
    /// the body is not content-coded, and `nil` otherwise (no valid `Content-Length`, or a
    /// `Content-Encoding`, whose decoded body is not the length the header gives).
    ///
    /// ``ResponseDriver`` checks a body against it (a shorter one is
    /// ``HotPotatoError/Code/truncatedBody``), and progress reports it as the expected length.
    public var declaredBodyLength: Int64? {
        if hasNoBody { return 0 }
        return contentEncodings.isEmpty ? contentLength : nil
    }

    /// Whether the body is known to be empty: ``hasNoBody``, or `Content-Length: 0`.
    public var hasEmptyBody: Bool {
        hasNoBody || contentLength == 0
    }

    /// The status code's standard reason phrase from RFC 9110, such as `"Not Found"`, or
    /// `"Status 599"` for a code it does not define.
    public var reasonPhrase: String {
        StatusPhrases.phrase(for: status) ?? "Status \(status)"
    }
}

extension ResponseHead: CustomStringConvertible {
    /// The status line and headers, for logs: `HTTP/2 200 OK`, or `HTTP 200 OK` when the version
    /// is not known.
    public var description: String {
        var text = "\(httpVersion.map(String.init(describing:)) ?? "HTTP") \(status) \(reasonPhrase)"
        if !headers.isEmpty { text += "\n\(headers)" }
        return text
    }
}
