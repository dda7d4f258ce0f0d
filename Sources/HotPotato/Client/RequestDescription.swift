import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Everything about a request but its handler: what the chained API builds and an engine sends.
struct RequestDescription: Sendable {
    /// The `User-Agent` both engines send for a request that has none of its own (nor one in the
    /// session's headers). Without it the URLSession engine would send Foundation's own (the
    /// process name and libcurl's version on Linux, CFNetwork's on Apple platforms).
    static let defaultUserAgent = "HotPotato"

    enum Body: Sendable {
        case none
        case data(Data)
        case file(URL)
        /// A form whose files are read as it is sent.
        case multipart(MultipartFormData)
        /// The elements of an `AsyncSequence` or the bytes of an `InputStream`, read once.
        case stream(OneShotBody)
        /// Encoding the body failed; the request fails with this when started.
        case invalid(HotPotatoError)
    }

    var method: HTTPMethod
    var url: URL?
    var urlText: String
    var headers: HTTPHeaders = [:]
    /// The names (lowercased) of the header fields the request goes without: neither the
    /// session's nor the engine's default of that name is sent (``Request/withoutHeader(_:)``).
    var omittedHeaders: Set<String> = []
    var queryItems: [URLQueryItem] = []
    var body: Body = .none
    var timeout: TimeInterval?
    /// Credentials the chain asked for that cannot be sent (a Basic user name with a colon); the
    /// request fails with it when started. The next credentials given replace it, as their
    /// `Authorization` field would replace the earlier one.
    var credentialsError: HotPotatoError?

    init(method: HTTPMethod, url: URL) {
        self.method = method
        self.url = url
        self.urlText = url.absoluteString
    }

    init(method: HTTPMethod, urlText: String) {
        self.method = method
        self.url = URL(string: urlText)
        self.urlText = urlText
    }

    /// Why a header field cannot be sent, or `nil` when it can: its name must be an RFC 9110
    /// token, and its value may hold no control character but a tab — a CR or LF would end the
    /// field (Foundation drops such a field without a word, so the request would go without it).
    static func problem(withField name: String, value: String) -> HotPotatoError? {
        if name.isEmpty || !name.utf8.allSatisfy(ASCII.isTokenByte) {
            return HotPotatoError(.invalidRequest, reason: "\(name.debugDescription) is not a valid header name (RFC 9110: letters, digits and !#$%&'*+-.^_`|~).")
        }
        if value.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            return HotPotatoError(.invalidRequest, reason: "The value of the header \(name) holds a control character (a line break, say), which would end or corrupt the field.")
        }
        return nil
    }

    /// The request as a `URLRequest`, with the session's defaults applied; or the reason it
    /// cannot be made.
    func makeURLRequest(defaults: Session.Configuration) throws(HotPotatoError) -> URLRequest {
        if let credentialsError { throw credentialsError }
        if case .invalid(let error) = body { throw error }
        if let methodRefusingTheBody { throw methodRefusingTheBody }
        guard let base = url, let scheme = base.scheme?.lowercased(), base.host != nil || scheme == "data" else {
            throw HotPotatoError(.invalidRequest, reason: "\"\(urlText)\" is not a valid absolute URL.")
        }
        guard ["http", "https", "data"].contains(scheme) else {
            throw HotPotatoError(.invalidRequest, reason: "The URL scheme \"\(scheme)\" is not supported; use http or https.")
        }
        var target = base
        if !queryItems.isEmpty {
            guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else {
                throw HotPotatoError(.invalidRequest, reason: "\"\(urlText)\" cannot take query items.")
            }
            components.queryItems = (components.queryItems ?? []) + queryItems
            guard let composed = components.url else {
                throw HotPotatoError(.invalidRequest, reason: "The query items do not form a valid URL.")
            }
            target = composed
        }
        for field in headers.fields {
            if let problem = Self.problem(withField: field.name, value: field.value) { throw problem }
        }
        for name in omittedHeaders.sorted() {
            if let problem = Self.problem(withField: name, value: "") { throw problem }
            if Self.framingHeaders.contains(name) {
                throw HotPotatoError(.invalidRequest, reason: "The request cannot go without its \(name): the engine frames the body with it.")
            }
        }
        for field in defaults.headers.fields where !headers.contains(field.name) && !omittedHeaders.contains(field.name.lowercased()) {
            if let problem = Self.problem(withField: field.name, value: field.value) { throw problem }
        }
        var request = URLRequest(url: target)
        request.httpMethod = method.rawValue
        request.timeoutInterval = timeout ?? defaults.requestTimeout
        for field in defaults.headers where !headers.contains(field.name) && !omittedHeaders.contains(field.name.lowercased())
            && !Self.framingHeaders.contains(field.name.lowercased()) {
            request.addValue(field.value, forHTTPHeaderField: field.name)
        }
        // The engine frames the body from its length (or sends it chunked): a `Content-Length` or
        // `Transfer-Encoding` of the caller's could announce another length than the bytes sent,
        // and the rest would be read by the server as another request.
        for field in headers where !Self.framingHeaders.contains(field.name.lowercased()) {
            request.addValue(field.value, forHTTPHeaderField: field.name)
        }
        if case .data(let data) = body {
            request.httpBody = data
        }
        return request
    }
}
