import Foundation
import HotPotato

// The request body: -d, --data-file, -F (and --form-string) or -T.
extension GetCommand {
    /// The URL to send to: with `-T FILE`, a URL whose path ends with `/` gets the file's name
    /// appended, as curl does.
    static func uploadTarget(_ url: URL, file: String?) -> URL {
        // `URL.path` drops a trailing slash; the components keep it.
        guard let file, file != "-", var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
              components.path.isEmpty || components.path.hasSuffix("/") else { return url }
        components.path = (components.path.isEmpty ? "/" : components.path) + URL(fileURLWithPath: file).lastPathComponent
        return components.url ?? url
    }

    /// Whether the body is read from a file (or standard input), whose upload progress is shown.
    var sendsAFile: Bool {
        options.dataFile != nil || options.uploadFile != nil || options.form.contains { part in
            if case .file = part.content { return true }
            return false
        }
    }

    /// `request` with the body the options ask for. `-d` and `--data-file` are sent as
    /// `application/x-www-form-urlencoded` unless `-H` sets a `Content-Type`; `-T` as it is (`-` reads
    /// standard input, sent chunked); `-F` as a multipart form, its files streamed from disk.
    /// - Throws: when a file of `-F name=<file` cannot be read (the others are read as they are
    ///   sent, and their failure is the call's).
    func withBody<Handler>(_ request: Request<Handler>) throws(UsageError) -> Request<Handler> {
        let hasContentType = options.headers.contains { $0.name.lowercased() == "content-type" }
        let formType = hasContentType ? nil : "application/x-www-form-urlencoded"
        if let data = options.data { return request.body(data, contentType: formType) }
        if let file = options.dataFile { return request.body(fileAt: URL(fileURLWithPath: file), contentType: formType) }
        if let file = options.uploadFile {
            guard file == "-" else { return request.body(fileAt: URL(fileURLWithPath: file)) }
            return request.body(stream: InputStream(fileAtPath: "/dev/stdin") ?? InputStream(data: Data()))
        }
        guard !options.form.isEmpty else { return request }
        var form = MultipartFormData()
        for part in options.form {
            switch part.content {
            case .text(let value) where part.contentType == nil:
                form.append(value, name: part.name)
            case .text(let value):
                form.append(Data(value.utf8), name: part.name, contentType: part.contentType)
            case .file(let path):
                form.append(fileAt: URL(fileURLWithPath: path), name: part.name, fileName: part.fileName, contentType: part.contentType)
            case .fileContents(let path):
                guard let contents = FileManager.default.contents(atPath: path) else {
                    throw UsageError("\(path) (for -F \(part.name)=<\(path))")
                }
                form.append(contents, name: part.name, contentType: part.contentType)
            }
        }
        return request.body(multipart: form)
    }
}
