/// A handler whose acceptance of a response can be adjusted: the status codes and content types
/// it accepts.
///
/// Every ``SelectiveDiscarder`` (so every HotPotato handler) is one; a handler of your own can
/// conform to get the request API's `accepting(statusCodes:)` and `accepting(contentTypes:)`.
public protocol GatedContentHandler: ContentHandler {
    /// The status codes accepted; an empty set accepts every status.
    var acceptableStatusCodes: Set<Int> { get set }
    /// The media types accepted; an empty list accepts every type.
    var acceptableContentTypes: [MediaType] { get set }
}

extension SelectiveDiscarder: GatedContentHandler {}
