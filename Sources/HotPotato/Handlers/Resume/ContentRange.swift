/// A `Content-Range` header of a byte range: `bytes 100-199/1000`, `bytes 100-199/*` or, on a
/// 416 response, `bytes */1000`.
struct ContentRange: Equatable {
    /// The first and last byte of the range; `nil` for `bytes */total`.
    var range: ClosedRange<Int64>?
    /// The complete length; `nil` when the server does not know it (`/*`).
    var completeLength: Int64?

    init(range: ClosedRange<Int64>?, completeLength: Int64?) {
        self.range = range
        self.completeLength = completeLength
    }

    /// The number of bytes in ``range``, when there is a range (checked: never overflows).
    var length: Int64? {
        guard let range else { return nil }
        let (difference, overflow) = range.upperBound.subtractingReportingOverflow(range.lowerBound)
        guard !overflow, difference < Int64.max else { return nil }
        return difference + 1
    }

    /// Whether this is exactly the rest of a resource from byte `offset`:
    /// `bytes <offset>-<total − 1>/<total>`, with the total known.
    func isRest(from offset: Int64) -> Bool {
        guard let range, let completeLength else { return false }
        return range.lowerBound == offset && range.upperBound == completeLength - 1
    }

    init?(parsing header: String?) {
        guard let header else { return nil }
        let text = header.trimmingASCIIWhitespace()
        guard text.count > 6, text.prefix(6).lowercased() == "bytes " else { return nil }
        let spec = text.dropFirst(6).trimmingASCIIWhitespace()
        guard let slash = spec.lastIndex(of: "/") else { return nil }
        let rangePart = spec[..<slash]
        let lengthPart = spec[spec.index(after: slash)...]
        if lengthPart == "*" {
            completeLength = nil
        } else {
            guard let length = ASCII.decimalInt64(lengthPart) else { return nil }
            completeLength = length
        }
        if rangePart == "*" {
            guard completeLength != nil else { return nil }
            range = nil
        } else {
            let bounds = rangePart.split(separator: "-", omittingEmptySubsequences: false)
            guard bounds.count == 2, let first = ASCII.decimalInt64(bounds[0]), let last = ASCII.decimalInt64(bounds[1]), first <= last else {
                return nil
            }
            if let completeLength, last >= completeLength { return nil }
            range = first...last
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingASCIIWhitespace() -> Substring {
        var text = Substring(self)
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
