import Foundation

// Encoding: the part headers, the body's segments, the boundary, escaping and content types.
extension MultipartFormData {
    /// `Data` parts up to this size are copied into the segments of their headers; larger ones are
    /// segments of their own, never copied.
    static let mergedPartLimit = 16 * 1024

    /// The body as segments: header and small parts in memory, each file measured by
    /// `fileSegment` (``RequestBody/fileSegment(_:)`` when the request is sent).
    /// - Throws: the form's ``problem``, or what `fileSegment` throws.
    func segments(
        fileSegment: (URL) throws(HotPotatoError) -> BodySegment = RequestBody.fileSegment
    ) throws(HotPotatoError) -> [BodySegment] {
        if let problem { throw problem }
        var segments: [BodySegment] = []
        var pending = Data()
        for (index, part) in parts.enumerated() {
            pending.append(contentsOf: (index == 0 ? "" : "\r\n").utf8)
            pending.append(headerBlock(for: part))
            switch part.content {
            case .data(let data) where data.count <= Self.mergedPartLimit:
                pending.append(data)
            case .data(let data):
                segments.append(.bytes(pending))
                segments.append(.bytes(data))
                pending = Data()
            case .file(let url):
                segments.append(.bytes(pending))
                segments.append(try fileSegment(url))
                pending = Data()
            }
        }
        pending.append(contentsOf: "\(parts.isEmpty ? "" : "\r\n")--\(boundary)--\r\n".utf8)
        segments.append(.bytes(pending))
        return segments
    }

    /// `--boundary`, the part's `Content-Disposition` and `Content-Type`, and the blank line.
    func headerBlock(for part: Part) -> Data {
        var text = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(Self.escaped(part.name))\""
        if let fileName = part.fileName { text += "; filename=\"\(Self.escaped(fileName))\"" }
        text += "\r\n"
        if let contentType = part.contentType { text += "Content-Type: \(contentType)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    /// A name or file name as the WHATWG HTML standard escapes it in a `multipart/form-data`
    /// header: `"` as `%22`, CR as `%0D`, LF as `%0A`.
    static func escaped(_ name: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(name.unicodeScalars.count)
        for scalar in name.unicodeScalars {
            switch scalar {
            case "\"": result += "%22"
            case "\r": result += "%0D"
            case "\n": result += "%0A"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// `HotPotato-` and 32 random hexadecimal digits (128 bits).
    static func randomBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        let high = generator.next() as UInt64
        let low = generator.next() as UInt64
        return "HotPotato-" + hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The content type of a file, guessed from its name's extension as curl guesses it for
    /// `-F name=@file`; `application/octet-stream` otherwise.
    static func contentType(forFileName name: String) -> String {
        let pathExtension = (name as NSString).pathExtension.lowercased()
        return knownTypes[pathExtension] ?? "application/octet-stream"
    }

    private static let knownTypes: [String: String] = [
        "gif": "image/gif", "jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "svg": "image/svg+xml",
        "webp": "image/webp", "txt": "text/plain", "htm": "text/html", "html": "text/html", "css": "text/css",
        "csv": "text/csv", "json": "application/json", "xml": "application/xml", "pdf": "application/pdf",
        "zip": "application/zip", "gz": "application/gzip",
    ]
}
