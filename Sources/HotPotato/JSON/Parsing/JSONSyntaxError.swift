/// Where and why a document stopped being JSON.
struct JSONSyntaxError: Error, Sendable {
    var reason: String
    /// The offset of the offending byte from the start of the body.
    var offset: Int64
    /// Its line, from 1.
    var line: Int
    /// Its column, in bytes, from 1.
    var column: Int

    var description: String { "\(reason) at line \(line), column \(column) (byte \(offset))" }
}
