import Foundation

/// The outcome of a successful call: the response head and the handler's typed content.
public struct Response<Content: Sendable>: Sendable {
    /// The response head: status, headers, final URL.
    public let head: ResponseHead
    /// What the handler produced: `Data`, `String`, ``JSON``, your `Decodable`, a file URL …
    public let content: Content
    /// When the call started and how long its parts took.
    public let timings: TransferTimings

    /// Creates a response.
    public init(head: ResponseHead, content: Content, timings: TransferTimings) {
        self.head = head
        self.content = content
        self.timings = timings
    }

    /// The HTTP status code.
    public var status: Int { head.status }
    /// The response headers; lookups are case-insensitive.
    public var headers: HTTPHeaders { head.headers }
    /// The URL the response came from, after redirects.
    public var url: URL? { head.url }
    /// The version of HTTP the response came in, when the engine knows it (see
    /// ``ResponseHead/httpVersion``).
    public var httpVersion: HTTPVersion? { head.httpVersion }
}
