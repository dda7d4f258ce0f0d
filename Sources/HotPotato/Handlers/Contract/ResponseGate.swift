/// Which responses a handler accepts: the status codes and content types it handles.
///
/// Every HotPotato handler keeps one (``SelectiveDiscarder/gate``) and checks it once, at the
/// head, before any byte of the body is parsed or written:
///
/// - ``statusCodes``: the status must be one of them. Default `200...299`.
/// - ``contentTypes``: the `Content-Type` must match one of them (see
///   ``MediaType/matches(_:)``: case-insensitive, parameters ignored, `type/*`, `*/*`,
///   structured suffixes). Default: any. When the list is not empty, a missing or malformed
///   `Content-Type` is rejected too — except on a response with no body (`204`, `205`, `304`,
///   `HEAD`, `Content-Length: 0`), where there is no content to type.
///
/// An empty set or list accepts everything. A rejection is a ``HotPotatoError`` with code
/// ``HotPotatoError/Code/unacceptableStatus``, ``HotPotatoError/Code/unacceptableContentType``,
/// ``HotPotatoError/Code/missingContentType`` or ``HotPotatoError/Code/malformedContentType``;
/// the ``ResponseDriver`` then attaches a bounded copy of the body the server sent.
///
/// ```swift
/// let parser = JSONParser(gate: ResponseGate(statusCodes: [200, 404]))
/// let anything = Accumulator(gate: .any)
/// ```
public struct ResponseGate: Sendable, Hashable {
    /// The status codes accepted; an empty set accepts every status.
    public var statusCodes: Set<Int>
    /// The media types accepted; an empty list accepts every type (and no type).
    public var contentTypes: [MediaType]

    /// Creates a gate.
    /// - Parameters:
    ///   - statusCodes: Statuses to accept; empty accepts all. Default `200...299`.
    ///   - contentTypes: Media types to accept; empty (the default) accepts all.
    public init(statusCodes: Set<Int> = Set(200...299), contentTypes: [MediaType] = []) {
        self.statusCodes = statusCodes
        self.contentTypes = contentTypes
    }

    /// A successful status (`200...299`), any content type: the default of every handler but
    /// ``JSONParser``.
    public static let successful = ResponseGate()

    /// A successful status and a JSON content type (`application/json` or `application/*+json`,
    /// so `application/problem+json` counts): the default of ``JSONParser``.
    public static let json = ResponseGate(contentTypes: [.json, .anyJSON])

    /// `200` with `text/event-stream`, or `204 No Content`: the default of ``EventStreamParser``
    /// and ``ServerSentEventStream``. As `EventSource`, only `200` starts a stream (a `210` or a
    /// `299` is rejected like a `404`); a `204`, the server's way to say "stop", is accepted with
    /// no events, and never reconnected.
    public static let eventStream = ResponseGate(statusCodes: [200, 204], contentTypes: [.eventStream])

    /// Every status and every content type.
    public static let any = ResponseGate(statusCodes: [], contentTypes: [])

    /// Whether `status` is accepted.
    public func accepts(status: Int) -> Bool {
        statusCodes.isEmpty || statusCodes.contains(status)
    }

    /// Throws the rejection described above when `head`'s status or content type is not accepted.
    public func check(_ head: ResponseHead) throws(HotPotatoError) {
        if !accepts(status: head.status) {
            throw HotPotatoError(
                .unacceptableStatus,
                reason: "HTTP \(head.status) \(head.reasonPhrase) is not an acceptable status "
                    + "(accepted: \(StatusCodeDescription.describe(statusCodes))).",
                head: head)
        }
        guard !contentTypes.isEmpty, !head.hasEmptyBody else { return }
        let accepted = contentTypes.map(\.description).joined(separator: ", ")
        guard let header = head.contentTypeHeader else {
            throw HotPotatoError(
                .missingContentType,
                reason: "The response has no Content-Type (accepted: \(accepted)).", head: head)
        }
        guard let contentType = MediaType(parsing: header) else {
            throw HotPotatoError(
                .malformedContentType,
                reason: "The Content-Type \"\(header)\" is not a valid media type (accepted: \(accepted)).",
                head: head)
        }
        if !contentTypes.contains(where: { $0.matches(contentType) }) {
            throw HotPotatoError(
                .unacceptableContentType,
                reason: "The Content-Type \(contentType.essence) is not acceptable (accepted: \(accepted)).",
                head: head)
        }
    }
}
