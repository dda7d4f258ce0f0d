import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension CookieJar {
    /// The first line of a Netscape cookie file, which curl and wget write and read.
    public static let netscapeFileHeader = "# Netscape HTTP Cookie File"

    /// The largest cookie file ``loadNetscapeCookieFile(at:)`` reads: 64 MiB.
    public static let maximumNetscapeFileSize = 64 << 20

    /// The jar's cookies in the Netscape cookie file format, as curl's `-c FILE` writes it.
    ///
    /// One line a cookie, seven fields separated by tabs: the domain (with a leading dot when
    /// subdomains get it too), `TRUE` or `FALSE` for subdomains, the path, `TRUE` or `FALSE` for
    /// `Secure`, the expiry in seconds since 1970 (`0` for a session cookie), the name and the
    /// value. An `HttpOnly` cookie's line starts with `#HttpOnly_`. Expired cookies, and cookies
    /// whose fields hold a tab or a line break (which the format cannot carry), are left out.
    public func netscapeCookieFile(at date: Date = Date()) -> String {
        var text = Self.netscapeFileHeader + "\n# Written by HotPotato. Edit at your own risk.\n\n"
        for cookie in cookies where !cookie.isExpired(at: date) {
            let fields = [
                (cookie.isHostOnly ? "" : ".") + cookie.domain, cookie.isHostOnly ? "FALSE" : "TRUE", cookie.path,
                cookie.isSecure ? "TRUE" : "FALSE", cookie.expiresAt.map { String(Int64(max(1, $0.timeIntervalSince1970))) } ?? "0",
                cookie.name, cookie.value,
            ]
            guard !fields.contains(where: { $0.contains { $0 == "\t" || $0.isNewline } }) else { continue }
            text += (cookie.isHTTPOnly ? "#HttpOnly_" : "") + fields.joined(separator: "\t") + "\n"
        }
        return text
    }

    /// Adds the cookies of a Netscape cookie file's text (see ``netscapeCookieFile(at:)``), as
    /// curl's `-b FILE` reads it: comment lines (`#`, but `#HttpOnly_`) and blank lines are
    /// skipped, as are lines without seven tab-separated fields (six, for an empty value) and
    /// expired cookies. An expiry of `0` is a session cookie. Each cookie is added as
    /// ``add(_:)`` adds it.
    /// - Returns: How many cookies were added.
    @discardableResult
    public func addCookies(fromNetscapeCookieFile text: String) -> Int {
        let now = Date()
        var added = 0
        for line in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            guard let cookie = Self.cookie(fromNetscapeLine: line, createdAt: now), !cookie.isExpired(at: now) else { continue }
            if add(cookie) { added += 1 }
        }
        return added
    }

    /// Reads the Netscape cookie file at `url` and adds its cookies (see
    /// ``addCookies(fromNetscapeCookieFile:)``).
    /// - Returns: How many cookies were added.
    /// - Throws: ``HotPotatoError/Code/fileSystemError`` (with its `path`) when the file cannot
    ///   be read, is larger than ``maximumNetscapeFileSize``, or is not UTF-8 text.
    @discardableResult
    public func loadNetscapeCookieFile(at url: URL) throws(HotPotatoError) -> Int {
        let data = try CookieFile.read(url.path, limit: Self.maximumNetscapeFileSize)
        guard let text = String(data: data, encoding: .utf8) else {
            throw .file(.fileSystemError, "The cookie file \(url.path) is not UTF-8 text.", path: url.path)
        }
        return addCookies(fromNetscapeCookieFile: text)
    }

    /// Writes the jar to `url` in the Netscape cookie file format (see
    /// ``netscapeCookieFile(at:)``), atomically: into a new private file (mode 0600,
    /// close-on-exec) beside it, then renamed over it, so that a reader never sees half a file
    /// and a failure leaves any earlier file as it was.
    /// - Throws: ``HotPotatoError/Code/fileSystemError`` (with its `path`) when the file cannot
    ///   be written.
    public func writeNetscapeCookieFile(to url: URL) throws(HotPotatoError) {
        try CookieFile.writeAtomically(Data(netscapeCookieFile().utf8), to: url)
    }

    /// The cookie of one line of a Netscape cookie file, or `nil` for a comment, a blank line or
    /// a malformed one.
    static func cookie(fromNetscapeLine line: Substring, createdAt: Date) -> Cookie? {
        var line = line
        var isHTTPOnly = false
        if line.hasPrefix("#HttpOnly_") {
            line = line.dropFirst("#HttpOnly_".count)
            isHTTPOnly = true
        } else if line.hasPrefix("#") {
            return nil
        }
        var fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        if fields.count == 6 { fields.append("") }
        // A nameless cookie (RFC 6265bis) has an empty name field and a value.
        guard fields.count == 7, !fields[0].isEmpty, !fields[5].isEmpty || !fields[6].isEmpty, let expiry = Int64(fields[4])
        else { return nil }
        let domain = fields[0].lowercased()
        let includesSubdomains = fields[1].uppercased() == "TRUE"
        return Cookie(
            name: String(fields[5]), value: String(fields[6]), domain: domain,
            isHostOnly: !includesSubdomains && !domain.hasPrefix("."), path: String(fields[2]),
            isSecure: fields[3].uppercased() == "TRUE", isHTTPOnly: isHTTPOnly,
            expiresAt: expiry == 0 ? nil : Date(timeIntervalSince1970: TimeInterval(expiry)), createdAt: createdAt)
    }
}
