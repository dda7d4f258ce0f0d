import Foundation

/// HTTP dates (RFC 9110 §5.6.7): read in the three forms servers send, written in the preferred
/// one (`Sun, 06 Nov 1994 08:49:37 GMT`).
enum HTTPDate {
    /// The date `text` names, or `nil`.
    static func parse(_ text: String) -> Date? {
        let value = text.trimmingCharacters(in: .whitespaces)
        for format in ["EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"] {
            if let date = formatter(format).date(from: value) { return date }
        }
        return nil
    }

    /// `date` in the preferred form, to the second.
    static func format(_ date: Date) -> String {
        formatter("EEE, dd MMM yyyy HH:mm:ss 'GMT'").string(from: date)
    }

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }
}
