import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request being described in a chain, and the handler its body will go to.
///
/// A `Request` is a value: each chained call returns a new one, and nothing is sent until it runs
/// (``response()``, ``content``, ``start()`` or ``response(queue:completion:)``). Running it again
/// sends it again, with a fresh handler.
///
/// ```swift
/// let response = try await session.post("https://api.example.com/items")
///     .header("Authorization", "Bearer \(token)")
///     .body(json: newItem)
///     .accepting(statusCodes: [201])
///     .as(Item.self)
///     .response()
/// print(response.status, response.content.id)
/// ```
public struct Request<Handler: ContentHandler>: Sendable where Handler.Content: Sendable {
    let session: Session
    var spec: RequestDescription
    var options = RequestOptions()
    let makeHandler: @Sendable () -> Handler

    init(session: Session, spec: RequestDescription, options: RequestOptions = RequestOptions(), makeHandler: @escaping @Sendable () -> Handler) {
        self.session = session
        self.spec = spec
        self.options = options
        self.makeHandler = makeHandler
    }

    /// The request method.
    public var method: HTTPMethod { spec.method }
    /// The request URL (before query items are added), when it parses.
    public var url: URL? { spec.url }

    /// The same request with another handler; everything else is kept.
    func replacingHandler<Other: ContentHandler>(_ make: @escaping @Sendable () -> Other) -> Request<Other> {
        Request<Other>(session: session, spec: spec, options: options, makeHandler: make)
    }

    func with(_ change: (inout Request) -> Void) -> Request {
        var copy = self
        change(&copy)
        return copy
    }
}

extension Request where Handler == Accumulator<Data> {
    init(session: Session, spec: RequestDescription) {
        self.init(session: session, spec: spec, makeHandler: { Accumulator() })
    }
}

/// The options a request chain collects besides its description and handler.
struct RequestOptions: Sendable {
    var acceptedStatusCodes: Set<Int>?
    var acceptedContentTypes: [MediaType]?
    var errorBodyLimit: Int?
    /// The `onProgress` callbacks, in the order they were added, each with its queue (`nil`:
    /// the call's own).
    var progressObservers: [ProgressReporter.Observer<TransferProgress>] = []
    /// The `onUploadProgress` callbacks, likewise.
    var uploadProgressObservers: [ProgressReporter.Observer<UploadProgress>] = []
    var headCallback: (@Sendable (ResponseHead) -> Void)?
    /// ``Request/redirects(_:)``: in place of the session's.
    var redirects: RedirectBehavior?
    /// ``Request/retry(_:)``: in place of the session's.
    var retryPolicy: RetryPolicy?
    /// ``Request/intercepted(by:)``: after the session's.
    var interceptors: [any RequestInterceptor] = []
    /// ``Request/limitRate(_:)``: bytes a second.
    var receiveRateLimit: Int64?
    /// For the other connections of a download: each runs on a connection of its own, over
    /// HTTP/1.1 (see ``TransferSink/wantsConnectionOfItsOwn``).
    var connectionOfItsOwn = false
    /// For the other connections of a download: the limit they share with its first request
    /// (which makes the group from ``receiveRateLimit``).
    var receiveRateGroup: ReceiveRateGroup?
    /// How many times a download over several connections was started over because the resource
    /// changed while it ran (see ``SegmentLauncher/restart``).
    var segmentRestarts = 0
}
