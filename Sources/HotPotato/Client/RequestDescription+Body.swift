import Foundation

// The body as the engines send it.
extension RequestDescription {
    /// The request headers that frame a body; an engine sets them for a streamed body from its
    /// length (see ``framesItsOwnLength``).
    static let framingHeaders: Set<String> = ["content-length", "transfer-encoding"]

    /// Whether the body's framing is the engine's alone: a caller's `Content-Length` or
    /// `Transfer-Encoding` is dropped for a multipart form or a stream, whose length the engine
    /// announces (or sends chunked). With both, FoundationNetworking sends both headers, and
    /// libcurl a chunked body under a `Content-Length`.
    var framesItsOwnLength: Bool {
        switch body {
        case .multipart, .stream: return true
        case .none, .data, .file, .invalid: return false
        }
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
