import Foundation

/// How HotPotato keeps secrets out of what it prints and stores: the one home of the rule for
/// credentials in URLs and in headers.
///
/// Every error's ``HotPotatoError/reason`` and ``HotPotatoError/description``, ``EventLogger``'s
/// lines, ``Request/cURLDescription(revealingSecrets:)`` (unless asked to reveal them) and
/// `potato`'s messages go through it, so a URL's `user:password@` (a request's, a redirect's, a
/// proxy's — whatever the library that reported it wrote) reads `<redacted>@`, and so do the
/// values of ``secretHeaderNames``.
///
/// ```swift
/// Redaction.redactingCredentials(in: "Unsupported proxy syntax in 'http://alice:P@ss@proxy:3128'")
/// // "Unsupported proxy syntax in 'http://<redacted>@proxy:3128'"
/// ```
public enum Redaction {
    /// What a secret reads as.
    public static let placeholder = "<redacted>"

    /// The headers whose values are secrets, lowercased: `authorization`, `proxy-authorization`,
    /// `cookie` and `set-cookie`.
    public static let secretHeaderNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// `value`, or the placeholder when `name` is one of ``secretHeaderNames`` (in any case).
    public static func headerValue(_ value: String, named name: String) -> String {
        secretHeaderNames.contains(name.lowercased()) ? placeholder : value
    }

    /// `url` with its user information (a user name, a password), if any, written as
    /// `<redacted>`; `-` for `nil`.
    public static func redacting(_ url: URL?) -> String {
        guard let url else { return "-" }
        return redactingCredentials(inURL: url.absoluteString)
    }

    /// `text`, a URL (perhaps without a scheme, as a proxy setting may be), with its user
    /// information written as `<redacted>`: everything of its authority before its last `@`.
    public static func redactingCredentials(inURL text: String) -> String {
        let start = text.range(of: "://")?.upperBound ?? text.startIndex
        return redactingAuthority(of: text, from: start, endsAtWhitespace: false)
    }

    /// `text` with the user information of every URL in it (whatever follows a `://` up to its
    /// host) written as `<redacted>`: for messages of other libraries, which quote URLs as they
    /// got them.
    public static func redactingCredentials(in text: String) -> String {
        guard text.contains("@"), text.contains("://") else { return text }
        var result = text
        var searchStart = result.startIndex
        while let separator = result.range(of: "://", range: searchStart..<result.endIndex) {
            let redacted = redactingAuthority(of: result, from: separator.upperBound, endsAtWhitespace: true)
            // The placeholder never contains "://": the search goes on past this URL's scheme.
            let offset = result.distance(from: result.startIndex, to: separator.upperBound)
            result = redacted
            searchStart = result.index(result.startIndex, offsetBy: offset)
        }
        return result
    }

    /// `text` with every occurrence of each of `secrets` (URLs, perhaps without a scheme, as a
    /// proxy setting may be) replaced by its redacted form: for messages that quote a setting
    /// without its `://`, which ``redactingCredentials(in:)`` cannot tell from other text.
    static func redacting(_ secrets: [String], in text: String) -> String {
        var result = text
        for secret in secrets where secret.contains("@") && result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: redactingCredentials(inURL: secret))
        }
        return result
    }

    /// `text` with the part of the authority starting at `start` that comes before its last `@`
    /// replaced. The authority ends at the first `/`, `?` or `#` — or white space, in a URL found in
    /// other text: a password may hold quotes and `@` (a message quoting a URL in `'…'` still has
    /// its `@` before the host).
    private static func redactingAuthority(of text: String, from start: String.Index, endsAtWhitespace: Bool) -> String {
        let end = text[start...].firstIndex(where: { "/?#".contains($0) || (endsAtWhitespace && $0.isWhitespace) }) ?? text.endIndex
        guard let at = text[start..<end].lastIndex(of: "@") else { return text }
        if text[start..<at] == placeholder[...] { return text }
        return String(text[..<start]) + placeholder + String(text[at...])
    }
}
