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
    /// - Throws: when a file of `-d @file` or `-F name=<file`, which are read now, cannot be read
    ///   or sends nothing for the idle timeout (a FIFO without a writer); the other files are read
    ///   as they are sent, and their failure is the call's.
    func withBody<Handler>(_ request: Request<Handler>) throws(DataArgument.ReadFailure) -> Request<Handler> {
        let hasContentType = options.headers.contains { $0.name.lowercased() == "content-type" }
        let formType = hasContentType ? nil : "application/x-www-form-urlencoded"
        if !options.data.isEmpty {
            return request.body(try DataArgument.body(of: options.data, idleTimeout: idleTimeout), contentType: formType)
        }
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
                form.append(try DataArgument.read(path, idleTimeout: idleTimeout), name: part.name, contentType: part.contentType)
            }
        }
        return request.body(multipart: form)
    }

    /// How long a file read before the request (`-d @file`, `-F name=<file`) may send nothing:
    /// `--timeout`, as for the request itself.
    var idleTimeout: TimeInterval {
        options.timeout ?? Session.Configuration().requestTimeout
    }
}
