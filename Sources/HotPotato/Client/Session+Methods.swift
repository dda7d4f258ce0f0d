import Foundation

extension Session {
    /// A request with any method. Its content is the body's `Data` until the chain says otherwise.
    public func request(_ method: HTTPMethod, _ url: URL) -> Request<Accumulator<Data>> {
        Request(session: self, spec: RequestDescription(method: method, url: url))
    }

    /// A request with any method to a URL given as text; a URL that does not parse fails with
    /// ``HotPotatoError/Code/invalidRequest`` when the request runs.
    public func request(_ method: HTTPMethod, _ url: String) -> Request<Accumulator<Data>> {
        Request(session: self, spec: RequestDescription(method: method, urlText: url))
    }

    /// A `GET` request.
    public func get(_ url: URL) -> Request<Accumulator<Data>> { request(.get, url) }
    /// A `GET` request to a URL given as text.
    public func get(_ url: String) -> Request<Accumulator<Data>> { request(.get, url) }
    /// A `POST` request; give it a body with `body(_:contentType:)`, `body(json:encoder:)` or
    /// `body(fileAt:contentType:)`.
    public func post(_ url: URL) -> Request<Accumulator<Data>> { request(.post, url) }
    /// A `POST` request to a URL given as text.
    public func post(_ url: String) -> Request<Accumulator<Data>> { request(.post, url) }
    /// A `PUT` request.
    public func put(_ url: URL) -> Request<Accumulator<Data>> { request(.put, url) }
    /// A `PUT` request to a URL given as text.
    public func put(_ url: String) -> Request<Accumulator<Data>> { request(.put, url) }
    /// A `PATCH` request.
    public func patch(_ url: URL) -> Request<Accumulator<Data>> { request(.patch, url) }
    /// A `PATCH` request to a URL given as text.
    public func patch(_ url: String) -> Request<Accumulator<Data>> { request(.patch, url) }
    /// A `DELETE` request.
    public func delete(_ url: URL) -> Request<Accumulator<Data>> { request(.delete, url) }
    /// A `DELETE` request to a URL given as text.
    public func delete(_ url: String) -> Request<Accumulator<Data>> { request(.delete, url) }
    /// A `HEAD` request: the response has no body, so every handler produces its empty content.
    public func head(_ url: URL) -> Request<Accumulator<Data>> { request(.head, url) }
    /// A `HEAD` request to a URL given as text.
    public func head(_ url: String) -> Request<Accumulator<Data>> { request(.head, url) }
}
