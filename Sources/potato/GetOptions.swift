import Foundation
import HotPotato

/// What `potato get` was asked to do.
struct GetOptions {
    /// Where the body goes.
    enum Output: Equatable {
        /// Written to standard output as it arrives.
        case standardOutput
        /// Streamed to a file (`-o FILE`).
        case file(String)
        /// Several downloads, each to a file of its own (several URLs, `-i FILE`).
        case batch
        /// Pretty-printed JSON, or the value at a key path (`--json [KEYPATH]`).
        case json(keyPath: String?)
        /// Text decoded by its charset (`--string`).
        case string
        /// Server-Sent Events, one JSON line each (`--events`).
        case events
    }

    /// How progress is shown.
    enum ProgressStyle: String {
        case auto, bar, lines, none
    }

    var url = ""
    var output = Output.standardOutput
    var headers: [(name: String, value: String)] = []
    /// `-H 'Name:'` (and `-A ''`): fields the request goes without, its defaults' included, unless
    /// another `-H` gives the name a value (as curl).
    var omittedHeaders: [String] = []
    /// `-D FILE` (`--dump-header`): where each response's head is written (`-`: standard output).
    var dumpHeader: String?
    /// `-G` (`--get`): the `-d` pieces go in the URL's query, and the request is a `GET`.
    var sendsDataInQuery = false
    /// `--retry-all-errors`: `--retry` retries any status of 400 or more and any failure of the
    /// transfer, not only the transient ones.
    var retriesAllErrors = false
    /// `--proto LIST`: the protocols requests may use (curl's default: all).
    var allowedSchemes: Set<String> = ["http", "https"]
    /// `--proto-redir LIST`: the protocols redirects may go to (and `--proto`'s).
    var allowedRedirectSchemes: Set<String> = ["http", "https"]
    /// `-r RANGE` (`--range`): the byte ranges asked for, sent as `Range: bytes=RANGE`.
    var range: String?
    /// `--create-dirs`: `-o FILE`'s missing directories are made.
    var createsDirectories = false
    /// `--http1.1` (or `--http2`, the default).
    var httpVersionPolicy = HTTPVersionPolicy.automatic
    /// `-u user:password`: Basic credentials.
    var credentials: (user: String, password: String)?
    var method: String?
    /// `--max-redirs N`: the most redirects followed (the library's 10 otherwise).
    var maximumRedirects: Int?
    /// `-I`/`--head`: a `HEAD` request whose response head is printed on standard output.
    var printsHead = false
    /// `-d`, `--data-binary`, `--data-raw`: the pieces of the body, joined with `&`.
    var data: [DataArgument] = []
    var dataFile: String?
    /// `-F` and `--form-string`: the parts of a multipart form, in order.
    var form: [FormArgument] = []
    /// `-T FILE`: the file to upload (`-` for standard input).
    var uploadFile: String?
    var acceptedStatuses: Set<Int>?
    var acceptedTypes: [MediaType] = []
    var maximumSize: Int64?
    var resume = false
    /// `--limit-rate RATE`: the most bytes a second received.
    var rateLimit: Int64?
    /// `--connections N`: fetch FILE over up to N connections at once.
    var connections = 1
    /// `--mirror URL` (repeatable): other URLs of the same file to fetch parts from.
    var mirrors: [URL] = []
    /// Several URLs (`potato get URL URL …`): with `-O` or `--output-dir`, each to its own file.
    var batch: [BatchEntry] = []
    /// `-i FILE`, `--input-file FILE`: more downloads, one a line (`-` for standard input).
    var inputFile: String?
    /// `--output-dir DIR`: where `-O`'s files go (and `-i`'s names are relative to).
    var outputDirectory: String?
    /// `-O`, `--remote-name`: each file named after the last segment of its URL's path.
    var remoteName = false
    /// `--parallel N`: how many downloads of a batch run at once.
    var parallel = GetOptions.defaultParallel
    /// Four at a time by default: aria2 (`-j`) and wget2 (`--max-threads`) run five; a few fill a
    /// link without opening dozens of connections to one server (and `--connections`
    /// multiplies each).
    static let defaultParallel = 4

    /// Whether the body goes to files (`-o FILE`, or a batch's).
    var writesFiles: Bool {
        switch output {
        case .file, .batch: true
        default: false
        }
    }
    /// `--only-if-changed`: download FILE again only if it changed on the server.
    var onlyIfChanged = false
    /// `-R`, `--remote-time`: the placed file's modification time from `Last-Modified`.
    var remoteTime = false
    /// `--checksum ALGORITHM=HEX`: the digest the file must have to be placed.
    var checksum: Checksum?
    /// `-b FILE`: Netscape cookie files to read the cookies to send from (a missing one is skipped).
    var cookieFiles: [String] = []
    /// `-c FILE`: where to write the cookie jar at the end (`-` for standard output).
    var cookieJar: String?
    /// Warnings about the options (a deprecated spelling), printed before the request.
    var warnings: [String] = []
    var overwrite = false
    var verbose = false
    var quiet = false
    /// `-s/--silent` (curl's): `quiet`, and no message on standard error either, unless
    /// `-S/--show-error`; the exit status still says how it went.
    var silent = false
    /// `-S/--show-error` (curl's): with `-s`, errors are still printed.
    var showsErrors = false
    var progress = ProgressStyle.auto
    var timeout: TimeInterval?
    /// `--max-time SECONDS`: the most a transfer may take, however steadily bytes arrive.
    var maximumTime: TimeInterval?
    /// `--retry N`: how many times to retry a transient failure; `nil` for the default (5 with
    /// `-o`, none otherwise).
    var retries: Int?
    /// `--retry-delay SECONDS`: the wait before the first retry (doubling after each).
    var retryDelay: TimeInterval?
    /// `--retry-max-time SECONDS`: no retry starts later than this after the first request.
    var retryMaximumTime: TimeInterval?
    var engine: Session.Engine = .automatic
    /// `-x, --proxy URL`, checked by the parser (empty: no proxy at all); without it, the
    /// environment's, as curl (see `proxyConfiguration`).
    var proxy: String?
    /// `--noproxy LIST`: hosts reached directly, in place of the environment's `no_proxy`.
    var noProxy: String?
    /// `--cacert FILE`: a PEM file of certificate authorities to trust instead of the system's
    /// (`Session.Configuration.certificateAuthorities`, which only the curl engine honours).
    var certificateAuthorities: String?
    /// `--cert`, `--key`, `--pinnedpubkey`, `--unix-socket`, `--resolve`, `--interface`.
    var transport = TransportOptions()
    /// `-w`/`--write-out FORMAT`: printed on standard output once the transfer is over.
    var writeOut: WriteOut?
    /// `--proxy-header 'Name: value'`: header fields sent to the proxy only.
    var proxyHeaders: [(name: String, value: String)] = []

    /// The method: `-X`'s, else `PUT` with `-T`, `POST` with a body, `GET` otherwise (as curl).
    var effectiveMethod: String {
        if let method { return method }
        if uploadFile != nil { return "PUT" }
        if sendsDataInQuery { return "GET" }
        return !data.isEmpty || dataFile != nil || !form.isEmpty ? "POST" : "GET"
    }

    /// Adds `value` to the `Cookie` header (`-b name=value`, `-H 'Cookie: …'`): one header, its
    /// parts joined with `"; "`, as a Cookie header must be.
    mutating func addCookieHeader(_ value: String) {
        if let index = headers.firstIndex(where: { $0.name.lowercased() == "cookie" }) {
            headers[index].value += "; " + value
        } else {
            headers.append(("Cookie", value))
        }
    }
}

/// One download of a batch: a URL, and the name given to it in `-i FILE` (`URL<TAB>NAME`), if any.
struct BatchEntry: Equatable {
    var url: String
    var name: String?
}
