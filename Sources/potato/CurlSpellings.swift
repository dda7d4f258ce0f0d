import Foundation
import HotPotato

// curl's spellings that scripts written for curl use, and that potato takes as curl does.
extension GetOptions {
    /// Parses option `name` when it is one of these; `false` when it is not.
    mutating func parseCurlSpelling(_ name: String, value: () throws(UsageError) -> String) throws(UsageError) -> Bool {
        switch name {
        case "--compressed":
            // What potato always does: it asks for the codings it decodes and hands on the
            // resource's bytes, never its gzip.
            break
        case "-g", "--globoff", "--basic":
            // potato never expands `{a,b}` or `[1-9]` in a URL, and sends Basic credentials with -u.
            break
        case "-e", "--referer":
            // curl's `;auto` (a Referer on each redirect) is not kept: the URL before it is sent.
            var text = try value()
            if text.hasSuffix(";auto") { text = String(text.dropLast(5)) }
            guard !CommandLineParser.holdsControlCharacter(text) else {
                throw UsageError("\(name) needs a URL without control characters")
            }
            if !text.isEmpty { headers.append(("Referer", text)) }
        case "--oauth2-bearer":
            let token = try value()
            guard !token.isEmpty, !CommandLineParser.holdsControlCharacter(token), !token.contains(" ") else {
                throw UsageError("--oauth2-bearer needs a token without spaces or control characters")
            }
            headers.append(("Authorization", "Bearer \(token)"))
        case "--no-progress-meter": progress = .none
        case "-#", "--progress-bar": progress = .bar
        case "--create-dirs": createsDirectories = true
        case "--http1.1": httpVersionPolicy = .http1_1Only
        case "--http2": httpVersionPolicy = .automatic
        case "--max-filesize": maximumSize = try CommandLineParser.size(try value(), option: name)
        case "-D", "--dump-header":
            let file = try value()
            guard !file.isEmpty else { throw UsageError("\(name) needs a file name (or - for standard output)") }
            dumpHeader = file
        case "-G", "--get": sendsDataInQuery = true
        case "-r", "--range":
            // curl's ranges: `0-499`, `500-`, `-500` (the last 500 bytes), several with commas.
            let text = try value()
            let pieces = text.split(separator: ",", omittingEmptySubsequences: false)
            guard !pieces.isEmpty, pieces.allSatisfy(Self.isByteRange) else {
                throw UsageError("\(name) takes byte ranges like 0-499, 500-, -500 or 0-9,20-29 (\"\(text)\" is not one)")
            }
            range = text
            headers.append(("Range", "bytes=\(text)"))
        case "--proto", "--proto-redir":
            let text = try value()
            let start = name == "--proto" ? allowedSchemes : allowedRedirectSchemes
            let schemes = try Self.protocols(text, from: start, option: name)
            if name == "--proto" { allowedSchemes = schemes } else { allowedRedirectSchemes = schemes }
        case "--retry-all-errors": retriesAllErrors = true
        case "--retry-connrefused", "--tcp-nodelay", "-N", "--no-buffer":
            // What potato does: a refused connection is retried with --retry, Nagle's algorithm
            // is off, and what arrives is written at once.
            break
        case "--data-urlencode": data.append(DataArgument.urlEncoded(try value()))
        default:
            return false
        }
        return true
    }

    /// `--proto`'s list read as curl reads it, from `start`: names separated by commas, each
    /// added (`+`, or no sign), removed (`-`), or the only one(s) (`=`, which empties the set
    /// first); `all` names every protocol. Only `http` and `https` matter to potato: other names
    /// (`ftp` …) are taken and change nothing.
    static func protocols(_ text: String, from start: Set<String>, option: String) throws(UsageError) -> Set<String> {
        var schemes = start
        let every: Set<String> = ["http", "https"]
        for token in text.split(separator: ",", omittingEmptySubsequences: true) {
            var name = token.trimmingCharacters(in: .whitespaces).lowercased()
            var sign: Character = "+"
            if let first = name.first, "=+-".contains(first) {
                sign = first
                name.removeFirst()
            }
            guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw UsageError("\(option) takes protocols like =https, -all,+https or http,https (\"\(text)\" is not a list of them)")
            }
            let named = name == "all" ? every : every.intersection([name])
            switch sign {
            case "=": schemes = named
            case "-": schemes.subtract(named)
            default: schemes.formUnion(named)
            }
        }
        return schemes
    }

    /// The redirect rule `--max-redirs`, `--proto` and `--proto-redir` make: a redirect to a
    /// protocol they leave out fails the call, as curl's does.
    var redirectBehavior: RedirectBehavior? {
        let allowed = allowedSchemes.intersection(allowedRedirectSchemes)
        let limit = maximumRedirects ?? 10
        guard allowed != ["http", "https"] else { return maximumRedirects.map { .follow(maximumRedirects: $0) } }
        return .custom(maximumRedirects: limit) { hop in
            let scheme = hop.request.url?.scheme?.lowercased() ?? ""
            return allowed.contains(scheme) ? .follow : .fail(reason: "A redirect to \(scheme) was not followed: --proto or --proto-redir leaves it out.")
        }
    }

    /// Whether `piece` is one byte range of `-r`: `FIRST-LAST` (FIRST ≤ LAST), `FIRST-` or `-COUNT`.
    private static func isByteRange(_ piece: Substring) -> Bool {
        let ends = piece.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard ends.count == 2, !(ends[0].isEmpty && ends[1].isEmpty),
              ends.allSatisfy({ $0.count <= 18 && $0.allSatisfy { $0.isASCII && $0.isNumber } }) else { return false }
        if let first = Int64(ends[0]), let last = Int64(ends[1]) { return first <= last }
        return true
    }

    /// The URL with `-G`'s query: the `-d` pieces, joined with `&`, after a `?` (or an `&` when
    /// the URL has a query), as curl appends them.
    func urlWithDataInQuery(_ url: URL, idleTimeout: TimeInterval) throws(DataArgument.ReadFailure) -> URL? {
        guard sendsDataInQuery, !data.isEmpty else { return url }
        let query = String(decoding: try DataArgument.body(of: data, idleTimeout: idleTimeout), as: UTF8.self)
        let text = url.absoluteString
        let separator = text.contains("?") ? "&" : "?"
        // A fragment stays last.
        if let hash = text.firstIndex(of: "#") {
            return URL(string: String(text[..<hash]) + separator + query + String(text[hash...]))
        }
        return URL(string: text + separator + query)
    }
}
