/// Describes a set of status codes compactly for messages: `200–299, 304`.
enum StatusCodeDescription {
    static func describe(_ codes: Set<Int>) -> String {
        if codes.isEmpty { return "any" }
        var parts: [String] = []
        var sorted = codes.sorted()[...]
        while let start = sorted.first {
            var end = start
            sorted = sorted.dropFirst()
            while sorted.first == end + 1 {
                end += 1
                sorted = sorted.dropFirst()
            }
            parts.append(start == end ? "\(start)" : "\(start)–\(end)")
        }
        return parts.joined(separator: ", ")
    }
}
