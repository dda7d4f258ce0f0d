extension IncrementalJSONParser {
    // MARK: - Elements

    /// Whether a value starting now is an element (`.lines`: at the top level; `.elements`: in
    /// the target array).
    var isAtElementLevel: Bool {
        switch mode {
        case .document, .tape: return false
        case .lines: return frames.isEmpty
        case .elements: return frames.last?.role == .target
        }
    }

    /// Fails when the element being read has grown past ``maximumElementSize``.
    mutating func checkElementSize() throws {
        guard let limit = maximumElementSize, let start = elementStart, consumed - start > limit else { return }
        var error = syntaxError("Element \(elementsEmitted) is larger than \(limit) bytes", at: start)
        error.kind = .elementTooLarge
        throw error
    }

    /// Hands a completed element to `onElement`, with where it is.
    mutating func emit(_ value: consuming JSON) throws {
        let position = ElementPosition(
            index: elementsEmitted, offset: elementStart ?? consumed, line: elementStartLine, column: elementStartColumn)
        if let limit = maximumElementSize, tokenEnd - position.offset > limit {
            var error = syntaxError("Element \(elementsEmitted) is larger than \(limit) bytes", at: position.offset)
            error.kind = .elementTooLarge
            throw error
        }
        elementsEmitted += 1
        elementStart = nil
        try onElement?(value, position)
    }

    // MARK: - Errors

    /// The error at `offset`, with its line and column.
    func syntaxError(_ reason: String, at offset: Int64) -> JSONSyntaxError {
        let column = offset >= lineStart ? Int(offset - lineStart) + 1 : 1
        return JSONSyntaxError(reason: reason, offset: offset, line: line, column: column)
    }

    /// `byte` as an error message shows it.
    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
    }
}
