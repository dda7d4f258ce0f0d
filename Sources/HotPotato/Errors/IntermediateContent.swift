import Foundation

/// The data a conversion failed on, handed back in ``HotPotatoError/intermediate`` so that
/// nothing the server sent is lost (hotpotato returned it the same way).
public enum IntermediateContent: Sendable, Hashable {
    /// The body's raw bytes.
    case bytes(Data)
    /// The body decoded as text, when the failure came after decoding (JSON sent in UTF-16, say).
    case text(String)

    /// The content as bytes: the raw bytes, or the text encoded as UTF-8.
    public var data: Data {
        switch self {
        case .bytes(let data): return data
        case .text(let text): return Data(text.utf8)
        }
    }

    /// The content as text: the decoded text, or the bytes read as UTF-8 with invalid sequences
    /// replaced by U+FFFD.
    public var text: String {
        switch self {
        case .bytes(let data): return String(decoding: data, as: UTF8.self)
        case .text(let text): return text
        }
    }
}
