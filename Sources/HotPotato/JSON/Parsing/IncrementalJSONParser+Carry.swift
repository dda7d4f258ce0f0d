extension IncrementalJSONParser {
    // MARK: - Tokens cut by a chunk boundary

    mutating func stash(_ kind: Pending, _ base: UnsafePointer<UInt8>, from start: Int, end: Int) {
        pending = kind
        carry.removeAll(keepingCapacity: true)
        carry.append(contentsOf: UnsafeBufferPointer(start: base + start, count: end - start))
        carryStart = consumed + Int64(start)
    }

    /// Completes the pending token with the start of a new chunk. Returns where to go on in the
    /// chunk, or `nil` when the whole chunk belongs to the token.
    mutating func continuePending(_ base: UnsafePointer<UInt8>, count: Int) throws -> Int? {
        switch pending {
        case .none:
            return 0
        case .string(let isKey, var escapeNext):
            var closing: Int?
            for index in 0..<count {
                let byte = base[index]
                if escapeNext {
                    escapeNext = false
                } else if byte == UInt8(ascii: "\\") {
                    escapeNext = true
                } else if byte == UInt8(ascii: "\"") {
                    closing = index
                    break
                }
            }
            guard let closing else {
                carry.append(contentsOf: UnsafeBufferPointer(start: base, count: count))
                pending = .string(isKey: isKey, escapeNext: escapeNext)
                return nil
            }
            carry.append(contentsOf: UnsafeBufferPointer(start: base, count: closing + 1))
            pending = .none
            // Parse the string from a copy, so that `carry` can be reused while it is read.
            var bytes: [UInt8] = []
            swap(&bytes, &carry)
            defer { swap(&bytes, &carry) }
            let origin = carryStart
            try bytes.withUnsafeBufferPointer { buffer in
                var flags = StringFlags()
                let start = buffer.baseAddress!
                guard let end = try scanString(start, from: 1, end: buffer.count, origin: origin, flags: &flags) else {
                    throw syntaxError("Unterminated string", at: origin)
                }
                tokenEnd = origin + Int64(end + 1)
                if isKey {
                    try readKey(start, from: 1, to: end, flags: flags, origin: origin)
                    expect = .colon
                } else {
                    expect = try completeString(start, from: 1, to: end, flags: flags, origin: origin)
                }
            }
            return closing + 1
        case .number:
            var end = 0
            while end < count, Self.isNumberByte(base[end]) { end += 1 }
            carry.append(contentsOf: UnsafeBufferPointer(start: base, count: end))
            guard end < count else { return nil }
            pending = .none
            let origin = carryStart
            let number = try carry.withUnsafeBufferPointer { buffer in
                try scanNumber(buffer.baseAddress!, from: 0, end: buffer.count, origin: origin, final: true)!
            }
            guard number.end == carry.count else {
                throw syntaxError("Unexpected character in a number", at: carryStart + Int64(number.end))
            }
            tokenEnd = consumed + Int64(end)
            expect = try complete(.number(number.value), at: carryStart)
            return end
        case .literal(let length):
            let take = min(length - carry.count, count)
            carry.append(contentsOf: UnsafeBufferPointer(start: base, count: take))
            let start = carryStart
            if carry.count < length {
                try carry.withUnsafeBufferPointer { try checkLiteralPrefix($0.baseAddress!, count: $0.count, at: start) }
                return nil
            }
            pending = .none
            let value = try carry.withUnsafeBufferPointer { try literal($0.baseAddress!, length: length, at: start) }
            tokenEnd = carryStart + Int64(length)
            expect = try complete(value, at: carryStart)
            return take
        }
    }

    static func isNumberByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
             UInt8(ascii: "e"), UInt8(ascii: "E"):
            return true
        default:
            return false
        }
    }
}
