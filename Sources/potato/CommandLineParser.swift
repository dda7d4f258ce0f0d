import Foundation
import HotPotato

/// potato's own small argument parser (the package has no dependencies).
///
/// Options take their value as the next argument (`-o FILE`, `--output FILE`), for long options
/// after `=` (`--output=FILE`), and for short ones attached (`-oFILE`). `--` ends the options.
enum CommandLineParser {
    /// What to run.
    enum Command {
        case help(String)
        case get(GetOptions)
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        guard let first = arguments.first else { return .help(HelpText.main) }
        switch first {
        case "-h", "--help", "help":
            if arguments.count > 1, arguments[1] == "get" { return .help(HelpText.get) }
            return .help(HelpText.main)
        case "get":
            let rest = Array(arguments.dropFirst())
            if rest.contains(where: { $0 == "-h" || $0 == "--help" }) { return .help(HelpText.get) }
            return .get(try parseGet(rest))
        default:
            throw UsageError("unknown command \"\(first)\"; potato knows \"get\"")
        }
    }

    static func parseGet(_ arguments: [String]) throws(UsageError) -> GetOptions {
        var arguments = arguments
        var options = GetOptions()
        var urls: [String] = []
        var json: String??
        var wantsString = false
        var wantsEvents = false
        var output: String?
        var index = 0
        var optionsEnded = false
        var userAgent: String?
        /// `-o -`: standard output, whatever --output-dir says.
        var standardOutputAsked = false

        func value(_ name: String, _ inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw UsageError("\(name) needs a value") }
            return arguments[index]
        }

        while index < arguments.count {
            let argument = arguments[index]
            // curl's bundles (`-fsSL`, `-sSLo FILE`): taken apart, then read one by one.
            if !optionsEnded, let pieces = try Self.unbundled(argument) {
                arguments.replaceSubrange(index...index, with: pieces)
                continue
            }
            defer { index += 1 }
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                urls.append(argument)
                continue
            }
            if argument == "--" {
                optionsEnded = true
                continue
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            } else if !argument.hasPrefix("--"), argument.count > 2, Self.shortOptionsWithValues.contains(String(argument.prefix(2))) {
                // curl's `-oFILE`, `-H'Name: value'`: a short option with its value attached.
                name = String(argument.prefix(2))
                inline = String(argument.dropFirst(2))
            }
            switch name {
            case "-o", "--output":
                let file = try value(name, inline)
                // curl's `-o -`: standard output, where the body goes without -o.
                output = file == "-" ? nil : file
                standardOutputAsked = file == "-"
            case "--json":
                if let inline {
                    json = .some(inline.isEmpty ? nil : inline)
                } else if index + 1 < arguments.count, isKeyPath(arguments[index + 1]) {
                    index += 1
                    json = .some(arguments[index])
                } else {
                    json = .some(nil)
                }
            case "--string": wantsString = true
            case "--events": wantsEvents = true
            case "-H", "--header":
                let text = try value(name, inline)
                // As curl: `Name:` with nothing after the colon keeps the field out of the request.
                if let omitted = try Self.omittedHeader(text, option: name) {
                    options.omittedHeaders.append(omitted)
                    break
                }
                let field = try header(text, option: name)
                if field.name.lowercased() == "cookie" {
                    options.addCookieHeader(field.value)
                } else {
                    options.headers.append(field)
                }
            case "-A", "--user-agent":
                let agent = try value(name, inline)
                // As curl: an empty name sends no `User-Agent` at all.
                guard !Self.holdsControlCharacter(agent) else {
                    throw UsageError("\(name) needs a name without control characters, such as \"spud/1.0\"")
                }
                userAgent = agent
            case "--proxy-header": options.proxyHeaders.append(try header(try value(name, inline), option: name))
            case "-b", "--cookie":
                let text = try value(name, inline)
                if text.contains("=") {
                    guard !Self.holdsControlCharacter(text) else {
                        throw UsageError("\(name) \(text.debugDescription) holds a control character (a line break?), which cannot go in a header")
                    }
                    options.addCookieHeader(text)
                } else {
                    guard !text.isEmpty, text != "-" else { throw UsageError("\(name) needs a file name or name=value") }
                    options.cookieFiles.append(text)
                }
            case "-c", "--cookie-jar":
                // A bare -c once meant --continue: followed by nothing, another option or a URL, it still does.
                if name == "-c", inline == nil, index + 1 >= arguments.count || arguments[index + 1].hasPrefix("-")
                    && arguments[index + 1] != "-" || arguments[index + 1].contains("://") {
                    options.resume = true
                    options.warnings.append("-c without a file name is deprecated as --continue: use -C (or --continue)")
                } else {
                    let file = try value(name, inline)
                    guard !file.isEmpty else { throw UsageError("\(name) needs a file name (or - for standard output)") }
                    options.cookieJar = file
                }
            case "-u", "--user":
                let text = try value(name, inline)
                guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
                    throw UsageError("\(name) needs \"user:password\"")
                }
                options.credentials = (String(text[..<colon]), String(text[text.index(after: colon)...]))
            case "-X", "--request":
                let method = try value(name, inline)
                guard !method.isEmpty, method.allSatisfy({ $0.isLetter || $0 == "-" }) else {
                    throw UsageError("\"\(method)\" is not an HTTP method")
                }
                options.method = method.uppercased()
            case "-d", "--data", "--data-ascii", "--data-binary", "--data-raw":
                options.data.append(DataArgument.parse(try value(name, inline), option: name))
            case "--data-file": options.dataFile = try value(name, inline)
            case "-F", "--form": options.form.append(try FormArgument.parse(try value(name, inline), option: name))
            case "--form-string": options.form.append(try FormArgument.literal(try value(name, inline)))
            case "-T", "--upload-file":
                let file = try value(name, inline)
                guard !file.isEmpty else { throw UsageError("\(name) needs a file (or - for standard input)") }
                options.uploadFile = file
            case "-L", "--location":
                // curl's "follow redirects": what potato does unless --max-redirs 0.
                break
            case "--max-redirs":
                let text = try value(name, inline)
                guard let count = Int(text), (-1...1000).contains(count) else {
                    throw UsageError("--max-redirs takes a number of redirects from 0 to 1000, or -1 (\"\(text)\" is not one)")
                }
                // curl's -1, "no limit": potato's most, 1000 (a loop still ends).
                options.maximumRedirects = count < 0 ? 1000 : count
            case "-I", "--head":
                options.method = "HEAD"
                options.printsHead = true
            case "--accept-status": options.acceptedStatuses = try statuses(try value(name, inline))
            case "--accept-type":
                let text = try value(name, inline)
                guard let type = MediaType(parsing: text) else { throw UsageError("\"\(text)\" is not a media type") }
                options.acceptedTypes.append(type)
            case "--max-size": options.maximumSize = try size(try value(name, inline))
            case "-C", "--continue":
                options.resume = true
                // curl's `-C -` ("find out where to continue"): what potato always does.
                if name == "-C", let inline {
                    guard inline == "-" else { throw Self.offsetRefused(name) }
                } else if name == "-C", index + 1 < arguments.count, arguments[index + 1] == "-" {
                    index += 1
                } else if name == "-C", index + 1 < arguments.count, Int64(arguments[index + 1]) != nil {
                    throw Self.offsetRefused(name)
                }
            case "--continue-at":
                guard try value(name, inline) == "-" else {
                    throw UsageError("--continue-at takes only \"-\": potato continues from the bytes it has kept")
                }
                options.resume = true
            case "--overwrite": options.overwrite = true
            case "--limit-rate":
                let rate = try Self.size(try value(name, inline), option: name)
                // 0 is curl's "no limit".
                options.rateLimit = rate > 0 ? rate : nil
            case "-O", "--remote-name": options.remoteName = true
            case "--output-dir": options.outputDirectory = try value(name, inline)
            case "-i", "--input-file": options.inputFile = try value(name, inline)
            case "--parallel":
                let text = try value(name, inline)
                guard let count = Int(text), (1...64).contains(count) else {
                    throw UsageError("--parallel takes a number of downloads at once from 1 to 64 (\"\(text)\" is not one)")
                }
                options.parallel = count
            case "--mirror":
                let text = try value(name, inline)
                guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
                      url.host != nil else {
                    throw UsageError("--mirror takes an http or https URL (\"\(text)\" is not one)")
                }
                options.mirrors.append(url)
            case "--connections":
                let text = try value(name, inline)
                guard let count = Int(text), (1...64).contains(count) else {
                    throw UsageError("--connections takes a number of connections from 1 to 64 (\"\(text)\" is not one)")
                }
                options.connections = count
            case "--only-if-changed": options.onlyIfChanged = true
            case "-R", "--remote-time": options.remoteTime = true
            case "--checksum":
                let text = try value(name, inline)
                guard let checksum = Checksum(text) else { throw Self.checksumRefused(text) }
                options.checksum = checksum
            case "-v", "--verbose": options.verbose = true
            case "-q", "--quiet": options.quiet = true
            case "-s", "--silent":
                options.quiet = true
                options.silent = true
            case "-S", "--show-error": options.showsErrors = true
            case "-f", "--fail", "--fail-with-body":
                // curl's "fail on an HTTP error": what potato does (exit 9, the server's message
                // printed) for any status --accept-status does not accept.
                break
            case "--progress":
                let text = try value(name, inline)
                guard let style = GetOptions.ProgressStyle(rawValue: text) else {
                    throw UsageError("--progress is one of auto, bar, lines, none")
                }
                options.progress = style
            case "--timeout":
                let text = try value(name, inline)
                guard let seconds = TimeInterval(text), seconds > 0, seconds.isFinite else {
                    throw UsageError("--timeout \"\(text)\" is not a number of seconds")
                }
                options.timeout = seconds
            case "-m", "--max-time":
                let text = try value(name, inline)
                guard let seconds = TimeInterval(text), seconds >= 0, seconds.isFinite else {
                    throw UsageError("\(name) \"\(text)\" is not a number of seconds")
                }
                // 0 is curl's "no limit".
                options.maximumTime = seconds > 0 ? seconds : nil
            case "--retry":
                let text = try value(name, inline)
                guard let count = Int(text), count >= 0, count <= 1000 else {
                    throw UsageError("--retry \"\(text)\" is not a number of retries from 0 to 1000")
                }
                options.retries = count
            case "--retry-delay", "--retry-max-time":
                let text = try value(name, inline)
                guard let seconds = TimeInterval(text), seconds >= 0, seconds.isFinite else {
                    throw UsageError("\(name) \"\(text)\" is not a number of seconds")
                }
                if name == "--retry-delay" { options.retryDelay = seconds } else { options.retryMaximumTime = seconds }
            case "-x", "--proxy":
                let text = try value(name, inline)
                _ = try GetOptions.proxyURL(text)
                options.proxy = text
            case "--noproxy": options.noProxy = try value(name, inline)
            case "-w", "--write-out": options.writeOut = try WriteOut(parsing: try value(name, inline))
            case "--cacert":
                let path = try value(name, inline)
                guard FileManager.default.isReadableFile(atPath: path) else {
                    throw UsageError("--cacert \"\(path)\" is not a readable file")
                }
                options.certificateAuthorities = path
            case "--engine":
                switch try value(name, inline) {
                case "curl": options.engine = .curl
                case "urlsession": options.engine = .urlSession
                case "auto": options.engine = .automatic
                default: throw UsageError("--engine is one of auto, curl, urlsession")
                }
            case "--url": urls.append(try value(name, inline))
            default:
                let read = { () throws(UsageError) -> String in try value(name, inline) }
                if try options.transport.parse(name, value: read) { break }
                guard try options.parseCurlSpelling(name, value: read) else {
                    throw UsageError("unknown option \(name)")
                }
            }
        }

        // As curl: a `-H 'User-Agent: …'` wins over -A, whichever comes first.
        if let userAgent, !options.headers.contains(where: { $0.name.lowercased() == "user-agent" }) {
            if userAgent.isEmpty { options.omittedHeaders.append("User-Agent") } else { options.headers.append(("User-Agent", userAgent)) }
        }
        guard !urls.isEmpty || options.inputFile != nil else { throw UsageError("get needs a URL") }
        let modes = [output != nil, json != nil, wantsString, wantsEvents].filter { $0 }.count
        guard modes <= 1 else { throw UsageError("choose one of -o, --json, --string and --events") }
        let names = options.remoteName || options.outputDirectory != nil
        if urls.count > 1 || options.inputFile != nil {
            try checkBatch(options, urls: urls, output: output, modes: modes)
            if urls.count > 1, !names, options.inputFile == nil {
                throw UsageError("several URLs need -O (each file named after its URL) or --output-dir DIR")
            }
            options.batch = urls.map { BatchEntry(url: $0) }
            options.output = .batch
        } else if let url = urls.first {
            options.url = url
            if options.remoteName || options.outputDirectory != nil && output == nil && !standardOutputAsked {
                guard modes == 0 else {
                    throw UsageError(options.remoteName ? "-O names the file after the URL: choose it or -o, --json, --string, --events"
                        : "--output-dir is where files are saved: it takes -O or -o, not --json, --string or --events")
                }
                options.output = .file(Self.destination(for: url, name: nil, in: options.outputDirectory))
            }
        }
        // As curl: --output-dir holds the -o file too (unless its path is absolute).
        if let output { options.output = .file(Self.destination(for: options.url, name: output, in: options.outputDirectory)) }
        if let json { options.output = .json(keyPath: json) }
        if wantsString { options.output = .string }
        if wantsEvents { options.output = .events }
        if options.printsHead {
            guard case .standardOutput = options.output else {
                throw UsageError("-I prints the response's head on standard output: it takes no -o, -O, --output-dir, --json, --string, "
                    + "--events or several URLs")
            }
            guard options.method == "HEAD" else { throw UsageError("-I sends a HEAD request: it takes no -X \(options.method ?? "")") }
        }
        // With -G the -d pieces are the query, not a body.
        let bodies = [!options.data.isEmpty && !options.sendsDataInQuery, options.dataFile != nil, !options.form.isEmpty, options.uploadFile != nil]
            .filter { $0 }
        guard bodies.count <= 1 else { throw UsageError("choose one of -d, --data-file, -F and -T") }
        if bodies.count == 1, options.method == "HEAD" {
            throw UsageError("-X HEAD cannot send a body (-d, --data-file, -F, -T): a HEAD request has none")
        }
        if options.resume, !options.writesFiles {
            throw UsageError("--continue needs -o FILE")
        }
        if options.sendsDataInQuery, options.dataFile != nil || !options.form.isEmpty || options.uploadFile != nil {
            throw UsageError("-G puts -d's pieces in the query: it takes no --data-file, -F or -T")
        }
        if options.range != nil, options.resume || options.connections > 1 || !options.mirrors.isEmpty || options.onlyIfChanged {
            throw UsageError("-r asks for a part of the resource: it takes no --continue, --connections, --mirror or --only-if-changed")
        }
        if options.overwrite, !options.writesFiles {
            throw UsageError("--overwrite needs -o FILE")
        }
        if options.connections > 1, !options.writesFiles {
            throw UsageError("--connections needs -o FILE")
        }
        if !options.mirrors.isEmpty, case .file = options.output {} else if !options.mirrors.isEmpty {
            throw UsageError("--mirror needs one URL and -o FILE")
        }
        if options.checksum != nil, case .file = options.output {} else if options.checksum != nil {
            throw UsageError("--checksum needs -o FILE")
        }
        if options.onlyIfChanged || options.remoteTime, !options.writesFiles {
            throw UsageError("\(options.onlyIfChanged ? "--only-if-changed" : "--remote-time") needs -o FILE")
        }
        if options.certificateAuthorities != nil, options.engine == .urlSession {
            throw UsageError("--cacert needs the curl engine: URLSession trusts the system's certificate authorities only")
        }
        try options.transport.check(engine: options.engine)
        if options.writeOut != nil, case .batch = options.output { throw UsageError("-w takes one URL") }
        if options.writeOut != nil, case .events = options.output { throw UsageError("-w and --events: a stream has no end to report") }
        return options
    }

    /// What a batch may not have: one output (`-o`, `--json`, `--string`, `--events`), a body,
    /// one file's checksum, mirrors of one file.
    private static func checkBatch(_ options: GetOptions, urls: [String], output: String?, modes: Int) throws(UsageError) {
        guard modes == 0 else {
            throw UsageError(output != nil
                ? "-o names one file: with several URLs or -i, use -O or --output-dir (each file is named after its URL)"
                : "--json, --string and --events take one URL")
        }
        let bodies = [!options.data.isEmpty && !options.sendsDataInQuery, options.dataFile != nil, !options.form.isEmpty, options.uploadFile != nil]
        guard !bodies.contains(true) else { throw UsageError("several downloads send no body (-d, --data-file, -F, -T)") }
        guard options.checksum == nil else { throw UsageError("--checksum is one file's digest: it takes one URL and -o FILE") }
        guard options.method == nil || options.method == "GET" else { throw UsageError("several downloads are GETs (-X)") }
    }

    /// The short options that take a value, which may come attached (`-oFILE`).
    static let shortOptionsWithValues: Set<String> = [
        "-o", "-H", "-A", "-d", "-F", "-T", "-u", "-X", "-x", "-w", "-m", "-b", "-c", "-i", "-C", "-E", "-e", "-D", "-r",
    ]

    /// The short options that take no value, which may come bundled with others (`-fsSL`).
    static let shortFlags: Set<Character> = ["L", "I", "O", "R", "v", "q", "s", "S", "f", "G", "g", "#", "N"]

    /// `argument` taken apart when it is a bundle of short options, as curl takes them: flags
    /// (`-fsSL` is `-f -s -S -L`), the last of which may take a value, attached or as the next
    /// argument (`-sSLo FILE`, `-sSLoFILE`). `nil` when it is no bundle (a long option, one short
    /// option, or a short option with its value attached: `-oFILE`).
    static func unbundled(_ argument: String) throws(UsageError) -> [String]? {
        guard argument.hasPrefix("-"), !argument.hasPrefix("--"), argument.count > 2,
              !shortOptionsWithValues.contains(String(argument.prefix(2))) else { return nil }
        var pieces: [String] = []
        var rest = argument.dropFirst()
        while let letter = rest.first {
            let option = "-" + String(letter)
            rest = rest.dropFirst()
            if shortOptionsWithValues.contains(option) {
                pieces.append(option + rest)
                return pieces
            }
            guard shortFlags.contains(letter) else {
                throw UsageError("unknown option \(option) in \(argument)")
            }
            pieces.append(option)
        }
        return pieces
    }

    static func offsetRefused(_ option: String) -> UsageError {
        UsageError("\(option) takes only \"-\" (or nothing): potato continues from the bytes it has kept, and cannot start at an offset")
    }

    /// Why `text` is not an `ALGORITHM=HEX` checksum.
    static func checksumRefused(_ text: String) -> UsageError {
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let algorithm = Checksum.Algorithm(named: String(parts[0])) else {
            return UsageError("--checksum takes ALGORITHM=HEX, ALGORITHM one of md5, sha1, sha256, sha512 (\"\(text)\" is not one)")
        }
        return UsageError("--checksum \(algorithm.name)=HEX takes \(algorithm.length * 2) hexadecimal digits (\"\(parts[1])\" has \(parts[1].count))")
    }

    /// Where a download goes without `-o`: `name` (from `-i`), or the last segment of the URL's
    /// path (decoded; `index.html` when there is none; a `/` or a leading `.` in it made `_`),
    /// in `directory` when given.
    static func destination(for url: String, name: String?, in directory: String?) -> String {
        let file = name ?? remoteName(of: url)
        guard let directory, !file.hasPrefix("/") else { return file }
        return URL(fileURLWithPath: directory).appendingPathComponent(file).path
    }

    /// The last segment of `url`'s path, safe as a file name.
    static func remoteName(of url: String) -> String {
        let path = URLComponents(string: url)?.percentEncodedPath ?? ""
        // After the last `/`: empty for a path that ends in one (`/docs/`), as wget names it.
        let last = path.components(separatedBy: "/").last ?? ""
        var name = last.removingPercentEncoding ?? last
        name = name.replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "\u{0}", with: "_")
        if name.hasPrefix(".") { name = "_" + name.dropFirst() }
        return name.isEmpty ? "index.html" : name
    }

    /// `Name: value` (for `-H` and `--proxy-header`) → the field.
    /// The name of `-H 'Name:'` (nothing but white space after the colon): a field the request
    /// goes without, as curl reads it; `nil` for any other header text.
    private static func omittedHeader(_ text: String, option: String) throws(UsageError) -> String? {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex,
              text[text.index(after: colon)...].allSatisfy({ $0 == " " || $0 == "\t" }) else { return nil }
        return try fieldName(text[..<colon], of: text, option: option)
    }

    /// `Name: value`, or `Name;` for a field with an empty value (curl's spelling: `Name:` leaves
    /// the field out, see ``omittedHeader(_:option:)``).
    private static func header(_ text: String, option: String) throws(UsageError) -> (name: String, value: String) {
        if text.hasSuffix(";"), !text.contains(":"), text.count > 1 {
            return (try fieldName(text.dropLast(), of: text, option: option), "")
        }
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
            throw UsageError("\(option) \"\(text)\" is not \"Name: value\" (\"Name;\" sends it empty, \"Name:\" leaves it out)")
        }
        let field = try fieldName(text[..<colon], of: text, option: option)
        let fieldValue = String(text[text.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        guard !holdsControlCharacter(fieldValue) else {
            throw UsageError("\(option) \(text.debugDescription): the value holds a control character (a line break?), which cannot go in a header")
        }
        return (field, fieldValue)
    }

    /// `name` without the white space around it, when it is an RFC 9110 token (letters, digits
    /// and `!#$%&'*+-.^_`|~`).
    private static func fieldName(_ name: Substring, of text: String, option: String) throws(UsageError) -> String {
        let field = name.trimmingCharacters(in: .whitespaces)
        let tokenPunctuation = Set("!#$%&'*+-.^_`|~".utf8)
        guard !field.isEmpty, field.utf8.allSatisfy({ $0 < 0x80 && (Character(Unicode.Scalar($0)).isLetter
            || Character(Unicode.Scalar($0)).isNumber || tokenPunctuation.contains($0)) }) else {
            throw UsageError("\(option) \(text.debugDescription) has no valid header name")
        }
        return field
    }

    /// Whether `text` holds a control character other than a tab: a CR or LF would end a header
    /// field, and the library refuses to send it.
    static func holdsControlCharacter(_ text: String) -> Bool {
        text.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }

    /// Whether the argument after `--json` is its key path rather than the URL or an option.
    private static func isKeyPath(_ argument: String) -> Bool {
        !argument.hasPrefix("-") && !argument.contains("://")
    }

    /// `200-299,304` → the statuses.
    static func statuses(_ text: String) throws(UsageError) -> Set<Int> {
        var result = Set<Int>()
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", omittingEmptySubsequences: false)
                .map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard (1...2).contains(bounds.count), let low = bounds.first ?? nil, let high = bounds.last ?? nil,
                  (100...999).contains(low), (100...999).contains(high), low <= high else {
                throw UsageError("--accept-status \"\(text)\" is not a list of statuses and ranges, like 200-299,304")
            }
            result.formUnion(low...high)
        }
        return result
    }

    /// `1048576`, `512K`, `10M`, `2G` (powers of 1024) → bytes.
    static func size(_ text: String, option: String = "--max-size") throws(UsageError) -> Int64 {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = Substring(text)
        var multiplier: Int64 = 1
        if let last = digits.last?.uppercased().first, let unit = units[last] {
            multiplier = unit
            digits = digits.dropLast()
        }
        guard let number = Int64(digits), number >= 0 else {
            throw UsageError("\(option) \"\(text)\" is not a size, like 1048576, 512K, 10M or 2G")
        }
        let (bytes, overflow) = number.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { throw UsageError("\(option) \"\(text)\" is too large") }
        return bytes
    }
}
