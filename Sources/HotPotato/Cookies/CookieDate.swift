import Foundation

/// The cookie-date algorithm of RFC 6265, section 5.1.1: what browsers accept in `Expires`, which
/// is far more than the HTTP date format (`Wed, 09 Jun 2021 10:18:14 GMT`,
/// `Wednesday, 09-Jun-21 10:18:14 GMT`, `Wed Jun  9 10:18:14 2021` …). Always UTC.
enum CookieDate {
    /// The date `text` names, or `nil` when it is not a cookie date.
    static func parse(_ text: String) -> Date? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        for token in tokens(of: Array(text.utf8)) {
            if time == nil, let found = Self.time(token) {
                time = found
            } else if day == nil, let found = digits(token, minimum: 1, maximum: 2) {
                day = found
            } else if month == nil, let found = Self.month(token) {
                month = found
            } else if year == nil, let found = digits(token, minimum: 2, maximum: 4) {
                year = found
            }
        }
        guard let time, let day, let month, var year else { return nil }
        if (70...99).contains(year) { year += 1900 } else if (0...69).contains(year) { year += 2000 }
        guard (1...31).contains(day), year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59 else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = month
        components.day = day
        components.hour = time.hour
        components.minute = time.minute
        components.second = time.second
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        // 31 February is no date: the calendar would roll it over into March.
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
        return date
    }

    /// The date tokens: runs of non-delimiters (RFC 6265's delimiters are every byte but digits,
    /// letters, `:` and bytes above 0x7F, roughly).
    private static func tokens(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split { byte in
            !(byte <= 0x08 || (0x0A...0x1F).contains(byte) || (0x30...0x3A).contains(byte)
              || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte >= 0x7F)
        }
    }

    /// `minimum`…`maximum` digits at the start of `token`, followed by a non-digit or nothing.
    private static func digits(_ token: ArraySlice<UInt8>, minimum: Int, maximum: Int) -> Int? {
        let run = token.prefix { (0x30...0x39).contains($0) }
        guard (minimum...maximum).contains(run.count) else { return nil }
        return run.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `h[h]:m[m]:s[s]`, followed by a non-digit or nothing.
    private static func time(_ token: ArraySlice<UInt8>) -> (Int, Int, Int)? {
        let parts = token.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, (1...2).contains(parts[0].count), (1...2).contains(parts[1].count),
              let hour = digits(parts[0], minimum: parts[0].count, maximum: 2),
              let minute = digits(parts[1], minimum: parts[1].count, maximum: 2),
              let second = digits(parts[2], minimum: 1, maximum: 2)
        else { return nil }
        return (hour, minute, second)
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The month whose name's first three letters start `token` (case-insensitive).
    private static func month(_ token: ArraySlice<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let prefix = String(decoding: token.prefix(3), as: UTF8.self).lowercased()
        return months.firstIndex(of: prefix).map { $0 + 1 }
    }
}
