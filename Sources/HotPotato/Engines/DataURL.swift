import Foundation

/// Answers `data:` URLs (RFC 2397) locally: `data:[<media type>][;base64],<data>`.
enum DataURL {
    static func deliver(_ url: URL, method: HTTPMethod, to sink: any TransferSink) {
        let text = url.absoluteString
        guard let comma = text.firstIndex(of: ","), text.lowercased().hasPrefix("data:") else {
            sink.fail(HotPotatoError(.invalidRequest, reason: "\"\(text)\" is not a valid data: URL."))
            return
        }
        var mediaType = String(text[text.index(text.startIndex, offsetBy: 5)..<comma])
        let isBase64 = mediaType.lowercased().hasSuffix(";base64")
        if isBase64 { mediaType.removeLast(";base64".count) }
        if mediaType.isEmpty { mediaType = "text/plain;charset=US-ASCII" }
        let payload = String(text[text.index(after: comma)...])
        let decoded: Data?
        if isBase64 {
            decoded = (payload.removingPercentEncoding ?? payload).data(using: .utf8).flatMap {
                Data(base64Encoded: $0, options: .ignoreUnknownCharacters)
            }
        } else {
            decoded = percentDecodedBytes(payload)
        }
        guard let body = decoded else {
            sink.fail(HotPotatoError(.invalidRequest, reason: "The data: URL's payload cannot be decoded."))
            return
        }
        let head = ResponseHead(
            status: 200,
            headers: ["Content-Type": mediaType, "Content-Length": String(body.count)],
            url: url, requestMethod: method.rawValue)
        guard sink.receive(head: head) else { return }
        if !body.isEmpty && !head.hasNoBody {
            guard sink.receive(body) else { return }
        }
        sink.end()
    }

    /// Decodes `%XX` escapes into bytes, keeping everything else as its UTF-8 bytes.
    private static func percentDecodedBytes(_ text: String) -> Data? {
        var bytes = Data()
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(),
                      let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return bytes
    }
}
