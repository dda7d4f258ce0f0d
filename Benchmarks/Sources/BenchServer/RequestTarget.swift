/// A request target split into its path and query parameters (`/delay?ms=200`); no percent
/// decoding, as the harness sends none.
struct RequestTarget {
    let path: String
    private let parameters: [Substring: Substring]

    init(_ uri: String) {
        let parts = uri.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        path = String(parts.first ?? "")
        var parameters: [Substring: Substring] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let field = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                parameters[field[0]] = field.count == 2 ? field[1] : ""
            }
        }
        self.parameters = parameters
    }

    func int(_ name: Substring) -> Int? { parameters[name].flatMap { Int($0) } }

    func double(_ name: Substring) -> Double? { parameters[name].flatMap { Double($0) } }
}
