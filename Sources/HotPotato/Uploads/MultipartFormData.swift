import Foundation

/// A `multipart/form-data` request body (RFC 7578) built from text fields, bytes and files, sent
/// with ``Request/body(multipart:)``.
///
/// ```swift
/// var form = MultipartFormData()
/// form.append("spud", name: "name")
/// form.append(fileAt: photoURL, name: "photo", contentType: "image/jpeg")
/// let reply = try await session.post(url).body(multipart: form).asJSON().content
/// ```
///
/// - **Files stream from disk.** A file part is read as the body is sent, a buffer at a time,
///   never into memory, so a form's memory footprint is the same whatever the size of its files.
///   Each file is checked and measured when the request is sent (a file that cannot be read fails
///   the call with ``HotPotatoError/Code/invalidRequest`` and its `path`, before anything is sent),
///   so the body has an exact `Content-Length` whenever every file is a regular file.
/// - **Replayable.** The form is a value and its files are read again for each sending: it is sent
///   again, from its first byte, on a redirect that keeps the body (`307`, `308`), on a retry, or
///   when the request runs again.
/// - **Escaped as browsers do.** Field names and file names follow the WHATWG HTML standard's
///   `multipart/form-data` encoding: `"` is sent as `%22`, CR as `%0D` and LF as `%0A`, so no name
///   can end its header line or start another; other characters, non-ASCII included, are sent as
///   UTF-8. A content type with a control character fails the call with
///   ``HotPotatoError/Code/invalidRequest`` when it runs.
/// - **A boundary of its own.** The ``boundary`` is random (128 bits), and checked not to occur in
///   any text field or `Data` part: when one contains it, another is drawn. File contents are not
///   read in advance; whoever wrote a file cannot guess the boundary.
///
/// A file that grows while it is sent is cut at the length it had when the request was sent; one
/// that shrinks fails the call with ``HotPotatoError/Code/bodyFileChanged``; a FIFO is sent as its
/// writer writes (and the form chunked). No copy of the form is made, on either engine; see
/// <doc:Uploading>.
public struct MultipartFormData: Sendable {
    /// The boundary that separates the parts.
    public private(set) var boundary: String
    /// The parts, in the order they were appended.
    private(set) var parts: [Part] = []
    /// The first problem found in what was appended: the request fails with it when it runs.
    private(set) var problem: HotPotatoError?

    /// One part: its name, file name, content type and content.
    struct Part: Sendable {
        enum Content: Sendable {
            case data(Data)
            case file(URL)
        }

        var name: String
        var fileName: String?
        var contentType: String?
        var content: Content
    }

    /// An empty form with a random boundary.
    public init() {
        boundary = Self.randomBoundary()
    }

    /// An empty form with the given boundary (for tests): it is still replaced when a part
    /// contains it.
    init(boundary: String) {
        self.boundary = boundary
    }

    /// The request's `Content-Type`: `multipart/form-data; boundary=…`, which
    /// ``Request/body(multipart:)`` sets.
    public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

    /// Whether the form has no parts (its body is then the closing boundary alone).
    public var isEmpty: Bool { parts.isEmpty }

    /// Appends a text field, sent as its UTF-8 bytes, without a `Content-Type` (as browsers send
    /// fields).
    public mutating func append(_ value: String, name: String) {
        append(Part(name: name, content: .data(Data(value.utf8))))
    }

    /// Appends bytes, as a file when `fileName` is given.
    /// - Parameters:
    ///   - data: The part's content.
    ///   - name: The field name.
    ///   - fileName: The file name to announce; `nil` sends the bytes as a plain field.
    ///   - contentType: The part's `Content-Type`; by default `application/octet-stream` with a
    ///     file name, none without.
    public mutating func append(_ data: Data, name: String, fileName: String? = nil, contentType: String? = nil) {
        let type = contentType ?? (fileName == nil ? nil : "application/octet-stream")
        append(Part(name: name, fileName: fileName, contentType: type, content: .data(data)))
    }

    /// Appends a file, streamed from disk when the body is sent.
    /// - Parameters:
    ///   - url: The file (a `file:` URL).
    ///   - name: The field name.
    ///   - fileName: The file name to announce; by default the URL's last path component.
    ///   - contentType: The part's `Content-Type`; by default one guessed from the file name's
    ///     extension (a few common types, as curl does), else `application/octet-stream`.
    public mutating func append(fileAt url: URL, name: String, fileName: String? = nil, contentType: String? = nil) {
        let announced = fileName ?? url.lastPathComponent
        let type = contentType ?? Self.contentType(forFileName: announced)
        append(Part(name: name, fileName: announced, contentType: type, content: .file(url)))
    }

    private mutating func append(_ part: Part) {
        if problem == nil, let type = part.contentType, type.unicodeScalars.contains(where: Self.isControl) {
            problem = HotPotatoError(
                .invalidRequest,
                reason: "The content type of the multipart part \"\(Self.escaped(part.name))\" contains a control character.")
        }
        parts.append(part)
        if case .data(let data) = part.content, Self.contains(data, boundary) {
            drawBoundaryMissingFromEveryPart()
        }
    }

    /// Draws boundaries until one occurs in no part in memory.
    private mutating func drawBoundaryMissingFromEveryPart() {
        repeat {
            boundary = Self.randomBoundary()
        } while parts.contains { part in
            if case .data(let data) = part.content { return Self.contains(data, boundary) }
            return false
        }
    }

    /// Whether `data` contains `boundary`.
    static func contains(_ data: Data, _ boundary: String) -> Bool {
        data.range(of: Data(boundary.utf8)) != nil
    }

    /// A control character other than a tab: never in a header value.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
    }
}
