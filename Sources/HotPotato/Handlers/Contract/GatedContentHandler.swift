/// A handler whose acceptance of a response can be adjusted: its ``ResponseGate``.
///
/// Every ``SelectiveDiscarder`` (so every HotPotato handler) is one; a handler of your own can
/// conform to get the request API's `accepting(statusCodes:)` and `accepting(contentTypes:)`.
public protocol GatedContentHandler: ContentHandler {
    /// The status codes and content types accepted.
    var gate: ResponseGate { get set }
}

extension SelectiveDiscarder: GatedContentHandler {}
