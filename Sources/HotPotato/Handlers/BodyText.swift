import Foundation

/// Chooses a body's text encoding and decodes it, with HotPotato's errors.
enum BodyText {
    /// The encoding for a body: `override`, else the `Content-Type` charset, else a byte-order
    /// mark, else UTF-8.
    ///
    /// - Throws: ``HotPotatoError/Code/unsupportedCharset`` for a charset label HotPotato does
    ///   not know.
    static func encoding(for body: Data, override: String.Encoding?, head: ResponseHead?) throws -> String.Encoding {
        if let override { return override }
        if let label = head?.contentType?.parameter("charset") {
            guard let named = TextEncodings.encoding(forCharset: label) else {
                throw HotPotatoError.text(
                    .unsupportedCharset, "The charset \"\(label)\" of the Content-Type is not one HotPotato can decode.",
                    encoding: label, body: body, head: head)
            }
            return named
        }
        return TextEncodings.byteOrderMark(of: body)?.encoding ?? .utf8
    }

    /// Decodes `body` strictly with the encoding ``encoding(for:override:head:)`` chooses.
    ///
    /// - Throws: ``HotPotatoError/Code/unsupportedCharset`` or
    ///   ``HotPotatoError/Code/undecodableText``, with the raw bytes as intermediate content.
    static func decode(_ body: Data, override: String.Encoding?, head: ResponseHead?) throws -> String {
        let encoding = try encoding(for: body, override: override, head: head)
        do {
            return try TextEncodings.decode(body, as: encoding)
        } catch {
            throw HotPotatoError.text(
                .undecodableText,
                "The body is not valid \(error.encodingName)"
                    + (error.byteOffset.map { " (first invalid byte at offset \($0))" } ?? "") + ".",
                encoding: error.encodingName, byteOffset: error.byteOffset.map(Int64.init), body: body, head: head)
        }
    }
}
