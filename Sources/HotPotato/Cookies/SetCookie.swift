import Foundation

/// One `Set-Cookie` field value, parsed as RFC 6265 (section 5.2) and RFC 6265bis say, before
/// the storage rules (``CookieJar/Limits``, domain, `Secure`) decide what becomes of it.
struct SetCookie: Sendable, Equatable {
    var name: String
    var value: String
    var domain: String?
    var path: String?
    var expires: Date?
    /// `Max-Age` in seconds, as written (0 or less deletes the cookie).
    var maxAge: Int64?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite: String?

    /// The longest attribute value honoured; a longer one is ignored (RFC 6265bis).
    static let maximumAttributeValueLength = 1024

    /// Parses one `Set-Cookie` value; `nil` when it holds no cookie: an empty name and value, a
    /// nameless value that poses as a `__Secure-` or `__Host-` cookie, or a control character
    /// (other than a tab) anywhere.
    ///
    /// As RFC 6265bis (5.6) and browsers read it, a first part without `=` (`Set-Cookie: abc`) is
    /// a cookie with an empty name and that value, sent back as `Cookie: abc`; so is `=abc`.
    /// (RFC 6265 ignored both.)
    init?(_ text: Substring) {
        guard !text.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) else { return nil }
        var parts = text.split(separator: ";", omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst() else { return nil }
        if let equals = pair.firstIndex(of: "=") {
            name = Self.trimmed(pair[..<equals])
            value = Self.trimmed(pair[pair.index(after: equals)...])
        } else {
            name = ""
            value = Self.trimmed(pair)
        }
        guard !name.isEmpty || !value.isEmpty else { return nil }
        if name.isEmpty {
            // A nameless cookie would be sent as `__Host-x=…`, posing as a prefixed one.
            let lowered = value.lowercased()
            guard !lowered.hasPrefix("__secure-"), !lowered.hasPrefix("__host-") else { return nil }
        }
        for attribute in parts {
            let equals = attribute.firstIndex(of: "=")
            let attributeName = Self.trimmed(attribute[..<(equals ?? attribute.endIndex)]).lowercased()
            let attributeValue = equals.map { Self.trimmed(attribute[attribute.index(after: $0)...]) } ?? ""
            if attributeValue.utf8.count > Self.maximumAttributeValueLength { continue }
            apply(attributeName, attributeValue)
        }
    }

    /// Records one attribute; the last of a name wins. Unknown attributes are ignored.
    private mutating func apply(_ attribute: String, _ text: String) {
        switch attribute {
        case "expires":
            if let date = CookieDate.parse(text) { expires = date }
        case "max-age":
            if let seconds = Self.maxAge(text) { maxAge = seconds }
        case "domain":
            // An empty Domain is ignored (RFC 6265bis), as if absent.
            var domain = text
            while domain.hasPrefix(".") { domain.removeFirst() }
            domain = domain.lowercased()
            self.domain = domain.isEmpty ? nil : domain
        case "path":
            path = text.hasPrefix("/") ? text : nil
        case "secure":
            isSecure = true
        case "httponly":
            isHTTPOnly = true
        case "samesite":
            switch text.lowercased() {
            case "strict": sameSite = "Strict"
            case "lax": sameSite = "Lax"
            case "none": sameSite = "None"
            default: sameSite = nil
            }
        default:
            break
        }
    }

    /// `Max-Age`'s value: an optional `-` and digits, else `nil` (the attribute is ignored).
    /// Saturates instead of overflowing.
    static func maxAge(_ text: String) -> Int64? {
        var digits = Substring(text)
        let negative = digits.hasPrefix("-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var seconds: Int64 = 0
        for digit in digits.utf8 {
            let (times, overflow) = seconds.multipliedReportingOverflow(by: 10)
            if overflow || times > Int64.max - 9 { return negative ? Int64.min : Int64.max }
            seconds = times + Int64(digit - 0x30)
        }
        return negative ? -seconds : seconds
    }

    /// `text` without the spaces and tabs around it.
    private static func trimmed(_ text: Substring) -> String {
        String(ASCII.trimmingWhitespace(text))
    }

    /// The `Set-Cookie` values of a response head. The curl engine keeps each field apart;
    /// FoundationNetworking joins fields of the same name with `", "`, and an `Expires` date
    /// has a comma of its own, so a comma separates two cookies only where what follows it
    /// reads as the start of a cookie: a token and `=`; or, after FoundationNetworking's `", "`
    /// and not in an `Expires` date, a nameless cookie (RFC 6265bis): `=` and its value, or a
    /// value alone up to its attributes (`x=1, abc; Path=/` is `x=1` and `abc`).
    static func values(in headers: HTTPHeaders) -> [Substring] {
        var values: [Substring] = []
        for field in headers.fields where HTTPHeaders.namesMatch(field.name, "Set-Cookie") {
            values.append(contentsOf: split(field.value))
        }
        return values
    }

    /// `text` cut at each comma that is followed by optional whitespace, a token and `=`, or
    /// that starts a nameless cookie (see ``values(in:)``).
    static func split(_ text: String) -> [Substring] {
        let bytes = text.utf8
        guard bytes.contains(UInt8(ascii: ",")) else { return [Substring(text)] }
        var values: [Substring] = []
        var start = bytes.startIndex
        var index = start
        while let comma = bytes[index...].firstIndex(of: UInt8(ascii: ",")) {
            var look = bytes.index(after: comma)
            while look < bytes.endIndex, bytes[look] == 0x20 || bytes[look] == 0x09 { look = bytes.index(after: look) }
            let tokenStart = look
            while look < bytes.endIndex, ASCII.isTokenByte(bytes[look]) { look = bytes.index(after: look) }
            let hasToken = look > tokenStart
            while look < bytes.endIndex, bytes[look] == 0x20 || bytes[look] == 0x09 { look = bytes.index(after: look) }
            let named = hasToken && look < bytes.endIndex && bytes[look] == UInt8(ascii: "=")
            if named || startsNameless(bytes, comma: comma, tokenStart: tokenStart, hasToken: hasToken, after: look) {
                values.append(Substring(text.utf8[start..<comma]))
                start = tokenStart
            }
            // Resumes after the token: a long run of token bytes is scanned once, not per comma.
            index = max(bytes.index(after: comma), look)
        }
        values.append(Substring(text.utf8[start...]))
        return values
    }

    /// Whether the comma at `comma` starts a nameless cookie: FoundationNetworking's `", "`
    /// before it, not in an `Expires` date, then `=` or a token alone up to `;`, `,` or the end.
    private static func startsNameless(
        _ bytes: String.UTF8View, comma: String.UTF8View.Index, tokenStart: String.UTF8View.Index, hasToken: Bool,
        after look: String.UTF8View.Index
    ) -> Bool {
        let next = bytes.index(after: comma)
        guard next < bytes.endIndex, bytes[next] == 0x20, !isInExpiresDate(bytes, comma: comma) else { return false }
        if !hasToken { return tokenStart < bytes.endIndex && bytes[tokenStart] == UInt8(ascii: "=") }
        return look == bytes.endIndex || bytes[look] == UInt8(ascii: ";") || bytes[look] == UInt8(ascii: ",")
    }

    /// Whether the comma at `comma` follows `Expires=` and a day's name (`Expires=Wed, 21 Oct …`).
    private static func isInExpiresDate(_ bytes: String.UTF8View, comma: String.UTF8View.Index) -> Bool {
        var index = comma
        var letters = 0
        while index > bytes.startIndex {
            let previous = bytes.index(before: index)
            guard (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[previous] | 0x20) else { break }
            index = previous
            letters += 1
        }
        guard letters > 0, index > bytes.startIndex else { return false }
        var cursor = bytes.index(before: index)
        while cursor > bytes.startIndex, bytes[cursor] == 0x20 || bytes[cursor] == 0x09 { cursor = bytes.index(before: cursor) }
        guard bytes[cursor] == UInt8(ascii: "=") else { return false }
        var end = cursor
        while end > bytes.startIndex, bytes[bytes.index(before: end)] == 0x20 || bytes[bytes.index(before: end)] == 0x09 {
            end = bytes.index(before: end)
        }
        guard bytes.distance(from: bytes.startIndex, to: end) >= 7 else { return false }
        let name = bytes[bytes.index(end, offsetBy: -7)..<end]
        return String(decoding: name, as: UTF8.self).lowercased() == "expires"
    }
}
