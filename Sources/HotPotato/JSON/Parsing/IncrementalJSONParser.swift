/// HotPotato's JSON parser: strict RFC 8259, fed the body chunk by chunk as it arrives, so that the
/// value is ready right after the last byte.
///
/// It is a state machine over an explicit stack of open arrays and objects (so deep nesting cannot
/// overflow the call stack, and the depth is limited anyway). A token cut by a chunk boundary is
/// carried over: its bytes are kept until the next chunk completes it, and scanning resumes
/// where it stopped, so every byte is looked at a bounded number of times.
///
/// Three modes:
/// - `.document`: one value; ``finish()`` returns it.
/// - `.lines`: JSON Lines — one value per line, each handed to `onElement` as it completes.
/// - `.elements(path:)`: the elements of the array at a key path (empty: the top-level array),
///   each handed to `onElement` as it completes and then dropped; values elsewhere in the document
///   are checked but not built, so memory is bounded by the largest element.
///
/// A value type, so that its state is checked for exclusive access at compile time rather than
/// on every access at run time. One caller, one body.
struct IncrementalJSONParser {
    enum Mode {
        case document
        case lines
        case elements(path: [String])
    }

    /// Receives each element (`.lines`, `.elements`) and its index from 0. May throw to stop.
    typealias ElementHandler = (JSON, Int) throws -> Void

    let options: JSONParsingOptions
    let mode: Mode
    var onElement: ElementHandler?

    /// Bytes fed so far.
    private(set) var consumed: Int64 = 0
    private var line = 1
    private var lineStart: Int64 = 0

    enum Expect {
        case value, valueOrArrayEnd, keyOrObjectEnd, key, colon, commaOrEnd, end, lineEnd
    }

    private(set) var expect = Expect.value

    enum Role {
        /// Built into a value.
        case build
        /// Checked, not built: outside the key path of `.elements`.
        case skip
        /// On the key path at this component index.
        case path(Int)
        /// The array whose elements are emitted.
        case target
    }

    struct Frame {
        var isObject: Bool
        var role: Role
        var elements: [JSON] = []
        var members: [JSON.Object.Member] = []
        var keyPositions: [String: Int]?
        var pendingKey = ""
        var count = 0
    }

    var stack: [Frame] = []
    /// Per depth, how many children the last container there had: new containers reserve that
    /// much, so a document of similar records grows each array once, not at every power of two.
    private var capacityHints: [Int] = []
    private var root: JSON?
    private(set) var elementsEmitted = 0
    private var targetSeen = false
    private let path: [String]

    /// A token cut by the end of a chunk, waiting for the rest.
    enum Pending {
        case none
        case string(isKey: Bool, escapeNext: Bool)
        case number
        case literal(length: Int)
    }

    private var pending = Pending.none
    private var carry: [UInt8] = []
    private var carryStart: Int64 = 0
    /// Reused for strings with escapes.
    var scratch: [UInt8] = []

    init(mode: Mode = .document, options: JSONParsingOptions = JSONParsingOptions()) {
        self.mode = mode
        self.options = options
        if case .elements(let path) = mode { self.path = path } else { self.path = [] }
    }

    /// Parses the next bytes of the body.
    ///
    /// - Throws: ``JSONSyntaxError`` at the first byte that is not JSON; anything `onElement`
    ///   throws.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) throws {
        guard let raw = bytes.baseAddress, bytes.count > 0 else { return }
        let base = raw.assumingMemoryBound(to: UInt8.self)
        var start = 0
        if case .none = pending {} else {
            guard let resume = try continuePending(base, count: bytes.count) else {
                consumed += Int64(bytes.count)
                return
            }
            start = resume
        }
        try run(base, from: start, end: bytes.count)
        consumed += Int64(bytes.count)
    }

    /// Ends the body: completes a number cut by the end, checks that the document is whole, and
    /// returns it (`.document`; `.null` in the other modes).
    mutating func finish() throws -> JSON {
        switch pending {
        case .none:
            break
        case .number:
            let origin = carryStart
            let number = try carry.withUnsafeBufferPointer { buffer in
                try scanNumber(buffer.baseAddress!, from: 0, end: buffer.count, origin: origin, final: true)!
            }
            pending = .none
            try complete(.number(number.value), at: carryStart)
        case .string, .literal:
            throw syntaxError("The document ends inside a value", at: consumed)
        }
        switch mode {
        case .document:
            guard case .end = expect, let root else {
                throw syntaxError(
                    consumed == 0 || (stack.isEmpty && root == nil && expect == .value)
                        ? "The document is empty" : "The document ends before its value is complete",
                    at: consumed)
            }
            return root
        case .lines:
            guard stack.isEmpty, expect == .lineEnd || expect == .value else {
                throw syntaxError("The last line ends before its value is complete", at: consumed)
            }
            return .null
        case .elements:
            guard case .end = expect else {
                throw syntaxError(
                    consumed == 0 ? "The document is empty" : "The document ends before its value is complete",
                    at: consumed)
            }
            guard targetSeen else {
                throw syntaxError("The document has no array at the key path", at: consumed)
            }
            return .null
        }
    }

    // MARK: - The state machine

    private mutating func run(_ base: UnsafePointer<UInt8>, from start: Int, end: Int) throws {
        var position = start
        let origin = consumed
        while position < end {
            let byte = base[position]
            if byte <= 0x20 {
                switch byte {
                case 0x20, 0x09, 0x0D:
                    position += 1
                    continue
                case 0x0A:
                    line += 1
                    lineStart = origin + Int64(position) + 1
                    if case .lineEnd = expect { expect = .value }
                    position += 1
                    continue
                default:
                    throw syntaxError("Unexpected control character \(Self.describe(byte))", at: origin + Int64(position))
                }
            }
            switch expect {
            case .value, .valueOrArrayEnd:
                if byte == UInt8(ascii: "]"), case .valueOrArrayEnd = expect {
                    try close(isObject: false, at: origin + Int64(position))
                    position += 1
                    continue
                }
                switch byte {
                case UInt8(ascii: "{"):
                    try push(isObject: true, at: origin + Int64(position))
                    expect = .keyOrObjectEnd
                    position += 1
                case UInt8(ascii: "["):
                    try push(isObject: false, at: origin + Int64(position))
                    expect = .valueOrArrayEnd
                    position += 1
                case UInt8(ascii: "\""):
                    var flags = StringFlags()
                    guard let closing = try scanString(base, from: position + 1, end: end, origin: origin, flags: &flags) else {
                        stash(.string(isKey: false, escapeNext: flags.endsInEscape),
                              base, from: position, end: end)
                        return
                    }
                    let string = try makeString(base, from: position + 1, to: closing, flags: flags, origin: origin)
                    try complete(.string(string), at: origin + Int64(position))
                    position = closing + 1
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    guard let number = try scanNumber(base, from: position, end: end, origin: origin, final: false) else {
                        stash(.number, base, from: position, end: end)
                        return
                    }
                    try complete(.number(number.value), at: origin + Int64(position))
                    position = number.end
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    let length = byte == UInt8(ascii: "f") ? 5 : 4
                    if position + length > end {
                        try checkLiteralPrefix(base + position, count: end - position, at: origin + Int64(position))
                        stash(.literal(length: length), base, from: position, end: end)
                        return
                    }
                    let value = try literal(base + position, length: length, at: origin + Int64(position))
                    try complete(value, at: origin + Int64(position))
                    position += length
                default:
                    throw syntaxError("Unexpected character \(Self.describe(byte)) where a value was expected", at: origin + Int64(position))
                }
            case .keyOrObjectEnd, .key:
                if byte == UInt8(ascii: "}"), case .keyOrObjectEnd = expect {
                    try close(isObject: true, at: origin + Int64(position))
                    position += 1
                    continue
                }
                guard byte == UInt8(ascii: "\"") else {
                    throw syntaxError("Unexpected character \(Self.describe(byte)) where a key was expected", at: origin + Int64(position))
                }
                var flags = StringFlags()
                guard let closing = try scanString(base, from: position + 1, end: end, origin: origin, flags: &flags) else {
                    stash(.string(isKey: true, escapeNext: flags.endsInEscape),
                          base, from: position, end: end)
                    return
                }
                stack[stack.count - 1].pendingKey = try makeString(base, from: position + 1, to: closing, flags: flags, origin: origin)
                expect = .colon
                position = closing + 1
            case .colon:
                guard byte == UInt8(ascii: ":") else {
                    throw syntaxError("Expected ':' after a key, found \(Self.describe(byte))", at: origin + Int64(position))
                }
                expect = .value
                position += 1
            case .commaOrEnd:
                let isObject = stack[stack.count - 1].isObject
                if byte == UInt8(ascii: ",") {
                    expect = isObject ? .key : .value
                } else if byte == UInt8(ascii: isObject ? "}" : "]") {
                    try close(isObject: isObject, at: origin + Int64(position))
                } else {
                    throw syntaxError(
                        "Expected ',' or '\(isObject ? "}" : "]")', found \(Self.describe(byte))", at: origin + Int64(position))
                }
                position += 1
            case .end:
                throw syntaxError("Unexpected \(Self.describe(byte)) after the end of the JSON value", at: origin + Int64(position))
            case .lineEnd:
                throw syntaxError("Expected a new line after a JSON value, found \(Self.describe(byte))", at: origin + Int64(position))
            }
        }
    }

    // MARK: - Containers

    private mutating func push(isObject: Bool, at offset: Int64) throws {
        guard stack.count < options.maximumDepth else {
            throw syntaxError("The document nests deeper than \(options.maximumDepth) levels", at: offset)
        }
        let role: Role
        if let parent = stack.last {
            switch parent.role {
            case .build, .target: role = .build
            case .skip: role = .skip
            case .path(let component): role = try childRole(parent, component: component, isArray: !isObject, at: offset)
            }
        } else {
            switch mode {
            case .document, .lines:
                role = .build
            case .elements:
                if path.isEmpty {
                    guard !isObject else { throw syntaxError("The document is not an array", at: offset) }
                    role = .target
                } else {
                    role = .path(0)
                }
            }
        }
        if case .target = role { targetSeen = true }
        var frame = Frame(isObject: isObject, role: role)
        if case .build = role {
            let depth = stack.count
            if depth < capacityHints.count, capacityHints[depth] > 0 {
                if isObject {
                    frame.members.reserveCapacity(capacityHints[depth])
                } else {
                    frame.elements.reserveCapacity(capacityHints[depth])
                }
            }
        }
        stack.append(consume frame)
    }

    /// The role of a child of a frame on the key path.
    private func childRole(_ parent: Frame, component: Int, isArray: Bool, at offset: Int64) throws -> Role {
        guard matches(parent, component: component) else { return .skip }
        if component + 1 == path.count {
            guard isArray else {
                throw syntaxError("The value at \"\(path.joined(separator: "."))\" is not an array", at: offset)
            }
            return .target
        }
        return .path(component + 1)
    }

    private func matches(_ frame: Frame, component: Int) -> Bool {
        frame.isObject ? frame.pendingKey == path[component] : String(frame.count) == path[component]
    }

    private mutating func close(isObject: Bool, at offset: Int64) throws {
        var frame = stack.removeLast()
        switch frame.role {
        case .build:
            let depth = stack.count
            if depth >= capacityHints.count { capacityHints.append(contentsOf: repeatElement(0, count: depth + 1 - capacityHints.count)) }
            capacityHints[depth] = min(isObject ? frame.members.count : frame.elements.count, 4096)
            // Move the children out of the frame rather than copy them.
            let value: JSON
            if isObject {
                var members: [JSON.Object.Member] = []
                swap(&members, &frame.members)
                value = .object(JSON.Object(uniqueMembers: members))
            } else {
                var elements: [JSON] = []
                swap(&elements, &frame.elements)
                value = .array(elements)
            }
            try complete(value, at: offset)
        case .skip, .path, .target:
            try completeUnbuilt(at: offset)
        }
    }

    /// A value is complete: add it to its container, emit it, or end the document.
    private mutating func complete(_ value: consuming JSON, at offset: Int64) throws {
        guard !stack.isEmpty else {
            switch mode {
            case .document:
                root = value
                expect = .end
            case .lines:
                try emit(value)
                expect = .lineEnd
            case .elements:
                throw syntaxError("The document is not an array", at: offset)
            }
            return
        }
        let top = stack.count - 1
        switch stack[top].role {
        case .build:
            if stack[top].isObject {
                try insertMember(value, into: top, at: offset)
            } else {
                stack[top].elements.append(value)
            }
        case .target:
            try emit(value)
        case .path(let component):
            if matches(stack[top], component: component), component + 1 == path.count {
                throw syntaxError("The value at \"\(path.joined(separator: "."))\" is not an array", at: offset)
            }
        case .skip:
            break
        }
        stack[top].count += 1
        expect = .commaOrEnd
    }

    private mutating func completeUnbuilt(at offset: Int64) throws {
        guard !stack.isEmpty else {
            expect = .end
            return
        }
        stack[stack.count - 1].count += 1
        expect = .commaOrEnd
    }

    private mutating func insertMember(_ value: consuming JSON, into top: Int, at offset: Int64) throws {
        var key = ""
        swap(&key, &stack[top].pendingKey)
        let existing: Int?
        if let positions = stack[top].keyPositions {
            existing = positions[key]
        } else {
            existing = stack[top].members.firstIndex { $0.key == key }
        }
        if let existing {
            switch options.duplicateKeys {
            case .useLast: stack[top].members[existing].value = value
            case .useFirst: break
            case .reject: throw syntaxError("The key \"\(key)\" appears twice in an object", at: offset)
            }
            return
        }
        stack[top].members.append(JSON.Object.Member(key: key, value: value))
        let count = stack[top].members.count
        if stack[top].keyPositions != nil {
            stack[top].keyPositions![key] = count - 1
        } else if count > JSON.Object.indexThreshold {
            var positions = [String: Int](minimumCapacity: count * 2)
            for (position, member) in stack[top].members.enumerated() { positions[member.key] = position }
            stack[top].keyPositions = positions
        }
    }

    private mutating func emit(_ value: consuming JSON) throws {
        let index = elementsEmitted
        elementsEmitted += 1
        try onElement?(value, index)
    }

    // MARK: - Tokens cut by a chunk boundary

    private mutating func stash(_ kind: Pending, _ base: UnsafePointer<UInt8>, from start: Int, end: Int) {
        pending = kind
        carry.removeAll(keepingCapacity: true)
        carry.append(contentsOf: UnsafeBufferPointer(start: base + start, count: end - start))
        carryStart = consumed + Int64(start)
    }

    /// Completes the pending token with the start of a new chunk. Returns where to go on in the
    /// chunk, or `nil` when the whole chunk belongs to the token.
    private mutating func continuePending(_ base: UnsafePointer<UInt8>, count: Int) throws -> Int? {
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
            let origin = carryStart
            let string = try carry.withUnsafeBufferPointer { buffer -> String in
                var flags = StringFlags()
                let start = buffer.baseAddress!
                guard let end = try scanString(start, from: 1, end: buffer.count, origin: origin, flags: &flags) else {
                    throw syntaxError("Unterminated string", at: origin)
                }
                return try makeString(start, from: 1, to: end, flags: flags, origin: origin)
            }
            if isKey {
                stack[stack.count - 1].pendingKey = string
                expect = .colon
            } else {
                try complete(.string(string), at: carryStart)
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
            try complete(.number(number.value), at: carryStart)
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
            try complete(value, at: carryStart)
            return take
        }
    }

    // MARK: - Errors

    func syntaxError(_ reason: String, at offset: Int64) -> JSONSyntaxError {
        let column = offset >= lineStart ? Int(offset - lineStart) + 1 : 1
        return JSONSyntaxError(reason: reason, offset: offset, line: line, column: column)
    }

    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x" + String(byte, radix: 16, uppercase: true)
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
