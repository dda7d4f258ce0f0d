import Foundation

// The body as the engines send it.
extension RequestDescription {
    /// The request headers that frame a body: never the caller's, always the engine's (see
    /// ``makeURLRequest(defaults:)``).
    static let framingHeaders: Set<String> = ["content-length", "transfer-encoding"]

    /// Whether there is a body to send: a `Data` body that is empty is none, as on both engines.
    var hasBody: Bool {
        switch body {
        case .none: return false
        case .data(let data): return !data.isEmpty
        case .file, .multipart, .stream, .invalid: return true
        }
    }

    /// Why a request with this method cannot send its body, if it cannot: a `HEAD` request's
    /// response has no body, and neither libcurl nor FoundationNetworking sends one with it (they
    /// would send the head alone), so a body given to one fails the call before anything is sent
    /// rather than be dropped. Every other method, `GET` included, sends its body.
    var methodRefusingTheBody: HotPotatoError? {
        guard method == .head, hasBody else { return nil }
        return HotPotatoError(
            .invalidRequest,
            reason: "A HEAD request cannot send a body (its response has none, and no engine sends one): "
                + "use another method, or remove the body.")
    }

    /// The body to stream for one attempt, made afresh each time: a file or a multipart form,
    /// whose files are checked and measured now, or the one-shot stream, claimed for the attempt.
    /// `nil` when there is none, or when it is `Data`, which travels as the `httpBody`.
    /// - Throws: ``HotPotatoError/Code/invalidRequest`` for a file that cannot be read (with its
    ///   `path`) or a form with a bad part; ``HotPotatoError/Code/bodyNotReplayable`` for a
    ///   one-shot body already read.
    /// `owner` is the call the attempt belongs to: its attempts may claim a one-shot body in turn.
    func makeRequestBody(owner: AnyObject) throws(HotPotatoError) -> RequestBody? {
        switch body {
        case .none, .data, .invalid:
            return nil
        case .file(let url):
            return RequestBody(segments: [try RequestBody.fileSegment(url)])
        case .multipart(let form):
            return RequestBody(segments: try form.segments())
        case .stream(let source):
            return try RequestBody(claiming: source, by: owner)
        }
    }

    /// The one-shot body, if the body is one.
    var oneShotBody: OneShotBody? {
        if case .stream(let source) = body { return source }
        return nil
    }
}
