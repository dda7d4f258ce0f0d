/// Where and why a document stopped being JSON (or stopped being acceptable).
struct JSONSyntaxError: Error, Sendable {
    enum Kind: Sendable {
        /// The bytes break RFC 8259 or a ``JSONParsingOptions`` rule.
        case syntax
        /// A streamed element is larger than the stream allows.
        case elementTooLarge
    }

    var reason: String
    /// The offset of the offending byte from the start of the body.
    var offset: Int64
    /// Its line, from 1.
    var line: Int
    /// Its column, in bytes, from 1.
    var column: Int
    var kind = Kind.syntax

    var description: String { "\(reason) at line \(line), column \(column) (byte \(offset))" }
}

extension JSONSyntaxError {
    /// The ``HotPotatoError`` that reports this error: ``HotPotatoError/Code/invalidJSON`` (or
    /// ``HotPotatoError/Code/bodyTooLarge`` for an element over its limit) with the byte offset,
    /// line and column.
    func hotPotatoError(head: ResponseHead?, intermediate: IntermediateContent?) -> HotPotatoError {
        var failure: HotPotatoError
        switch kind {
        case .syntax:
            failure = HotPotatoError(
                .invalidJSON, reason: "The body is not valid JSON: \(description).", head: head, underlying: self)
        case .elementTooLarge:
            failure = HotPotatoError(.bodyTooLarge, reason: "\(description).", head: head, underlying: self)
        }
        failure.byteOffset = offset
        failure.line = line
        failure.column = column
        failure.intermediate = intermediate
        return failure
    }
}
