/// HotPotato's JSON parser: strict RFC 8259, fed the body chunk by chunk as it arrives, so that the
/// value is ready right after the last byte.
///
/// It is a state machine over an explicit stack of open arrays and objects (so deep nesting cannot
/// overflow the call stack, and the depth is limited anyway). The children of open containers
/// wait on one ``JSONValueStack`` and are moved into an exactly sized array when their container
/// closes (an object's values into one with room for at least four; see
/// ``JSONValueStack/objectCapacity``), except the elements of a top-level array, which go straight
/// into theirs. Objects with the same keys share them (see ``JSONObjectKeys``). A token cut by a chunk boundary is carried over: its bytes are kept until the next
/// chunk completes it, so every byte is looked at a bounded number of times.
///
/// Four modes:
/// - `.document`: one value; ``finish()`` returns it.
/// - `.lines`: JSON Lines — one value per line, each handed to `onElement` as it completes.
/// - `.elements`: the elements of the array at a key path (empty: the top-level array),
///   each handed to `onElement` as it completes and then dropped; values elsewhere in the document
///   are checked but not built, so memory is bounded by the largest element.
/// - `.tape`: one document, checked exactly as `.document` checks it but recorded as a ``tape``
///   of tokens pointing into the body (see ``JSONTapeEntry``), for decoding straight from the
///   body's bytes.
///
/// Not copyable: one caller, one body, and the stacks are freed with it. The helpers the scanning
/// loop calls are `mutating` even when they only read: a non-mutating method of this ~300-byte
/// struct, called from a mutating one, was given a copy of it per call (measured: a memcpy for
/// each number, a third of the time of a numbers-heavy document).
struct IncrementalJSONParser: ~Copyable {
    enum Mode {
        case document
        case lines
        /// The elements of the array at ``path``.
        case elements
        /// One document, recorded as a ``tape`` of tokens rather than made into a value.
        case tape
    }

    /// Where an element (`.lines`, `.elements`) is: its index from 0 and where it starts.
    struct ElementPosition: Sendable, Equatable {
        var index: Int
        var offset: Int64
        var line: Int
        var column: Int
    }

    /// Receives each element (`.lines`, `.elements`) and where it is. May throw to stop.
    typealias ElementHandler = (JSON, ElementPosition) throws -> Void

    let options: JSONParsingOptions
    let mode: Mode
    var onElement: ElementHandler?
    /// The largest element accepted in `.lines` and `.elements`, in bytes; `nil` for no limit.
    var maximumElementSize: Int64?

    /// Bytes fed so far.
    private(set) var consumed: Int64 = 0
    var line = 1
    var lineStart: Int64 = 0

    enum Expect: Equatable {
        case value, valueOrArrayEnd, keyOrObjectEnd, key, colon, commaOrEnd, end, lineEnd
    }

    var expect = Expect.value

    enum Role: Equatable {
        /// Built into a value.
        case build
        /// Checked, not built: outside the key path of `.elements`.
        case skip
        /// On the key path at this component index.
        case path(Int)
        /// The array whose elements are emitted.
        case target
        /// Recorded on the tape.
        case tape
    }

    /// An open array or object. Its children are on ``stack`` from `valueStart` (and its keys
    /// from `keyStart`).
    struct Frame {
        var isObject: Bool
        var role: Role
        var valueStart: Int
        var keyStart: Int
        /// Children completed so far.
        var count = 0
        /// `.path` object: the key just read is the path's next component.
        var keyMatches = false
        /// `.build` object: the position of the earlier member whose key was just read again.
        var duplicateOf = -1
        /// `.build` object: a key → position table is kept in ``keyIndexes`` at this depth.
        /// `.tape` object: two of its keys may be the same.
        var hasIndex = false
        /// Objects: one bit per key read, chosen by its fingerprint — a key whose bit is not set
        /// yet cannot repeat an earlier one, and needs no search.
        var keyBits: UInt64 = 0
        /// `.build` object: its keys so far are those of ``predictedKeys`` at its depth, in order,
        /// and are not on ``stack`` (see ``readKey(_:from:to:flags:origin:)``).
        var predicting = false
    }

    var frames = ParserStack<Frame>()
    var stack = JSONValueStack()
    /// The elements of a top-level array being built, appended to the array that becomes its
    /// value rather than kept on ``stack`` and moved there when it closes: the largest array of
    /// most documents is then never held twice (a sixth of the tree's peak memory for a document
    /// of many small rows).
    var rootElements: [JSON] = []
    /// Key → position tables of the open objects with many members, by depth.
    var keyIndexes: [Int: [JSONMemberName: Int]] = [:]
    var root: JSON?
    /// Elements handed to `onElement` so far (`.lines`, `.elements`); written only by `emit`.
    var elementsEmitted = 0
    /// Where the element being read started (`.lines`, `.elements`).
    var elementStart: Int64?
    var elementStartLine = 1
    var elementStartColumn = 1
    /// The offset just past the last token read: where an element completed by it ends.
    var tokenEnd: Int64 = 0
    var targetSeen = false
    let path: [String]
    /// The path components as array indices, where they are numbers.
    let pathIndices: [Int?]

    /// A token cut by the end of a chunk, waiting for the rest.
    enum Pending {
        case none
        case string(isKey: Bool, escapeNext: Bool)
        case number
        case literal(length: Int)
    }

    /// `.tape`: the document's tokens, in order.
    var tape = JSONTapeWriter()
    /// `.tape`: the fingerprints of the keys of the open objects (each from its frame's
    /// `keyStart`), to notice keys that may repeat.
    var tapeKeyFingerprints = ParserStack<UInt64>()

    var pending = Pending.none
    var carry: [UInt8] = []
    var carryStart: Int64 = 0
    /// Reused for strings with escapes.
    var scratch: [UInt8] = []
    var keyCache = JSONKeyCache()
    /// The key sets of the objects made lately, for objects with the same keys to share.
    var objectKeys = JSONObjectKeysCache()
    /// By depth: the keys of the last object made there, which the next object there most likely
    /// repeats (the records of an array).
    var predictedKeys: [JSONObjectKeys?] = []

    /// - Parameters:
    ///   - path: `.elements`: the key path of the array, as components (`["data", "users"]`);
    ///     empty for the top-level array.
    init(mode: Mode = .document, path: [String] = [], options: JSONParsingOptions = JSONParsingOptions()) {
        self.mode = mode
        self.options = options
        self.path = path
        pathIndices = path.map { Int($0) }
    }

    /// `.tape`: makes room for the tokens of a document of `length` bytes, so that the tape does
    /// not grow token by token. One entry per eight bytes covers dense documents of numbers; room
    /// that a document of long strings leaves unused is address space, never touched, so it costs
    /// no memory. At most ``maximumTapeReservation`` entries: `length` may be a length a server
    /// declared and never sends, and a larger tape grows by reallocating, which remaps its pages
    /// rather than copying them.
    mutating func reserveTape(forDocumentOf length: Int) {
        guard case .tape = mode, length > 0 else { return }
        tape.reserveCapacity(min(length / 8 + 16, Self.maximumTapeReservation))
    }

    /// The most tape entries reserved ahead of the document: 8 Mi entries, 96 MiB of address
    /// space (a dense document of about 64 MB).
    static let maximumTapeReservation = 8 << 20

    /// Counts `length` bytes at the start of the body that are not part of the document (a
    /// byte-order mark), so that offsets and columns stay those of the body.
    mutating func skipLeadingBytes(_ length: Int) {
        consumed += Int64(length)
        lineStart = consumed
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
                try checkElementSize()
                return
            }
            start = resume
        }
        try run(base, from: start, end: bytes.count)
        consumed += Int64(bytes.count)
        try checkElementSize()
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
            guard number.end == carry.count else {
                throw syntaxError("Unexpected character in a number", at: carryStart + Int64(number.end))
            }
            pending = .none
            tokenEnd = consumed
            expect = try complete(.number(number.value), at: carryStart)
        case .string, .literal:
            throw syntaxError("The document ends inside a value", at: consumed)
        }
        switch mode {
        case .document:
            guard case .end = expect, let value = root.take() else {
                throw syntaxError(
                    consumed == 0 || (frames.isEmpty && root == nil && expect == .value)
                        ? "The document is empty" : "The document ends before its value is complete",
                    at: consumed)
            }
            return value
        case .tape:
            guard case .end = expect, !tape.isEmpty else {
                throw syntaxError(
                    consumed == 0 || (frames.isEmpty && tape.isEmpty && expect == .value)
                        ? "The document is empty" : "The document ends before its value is complete",
                    at: consumed)
            }
            return .null
        case .lines:
            guard frames.isEmpty, expect == .lineEnd || expect == .value else {
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
        // A local copy, so that it stays in a register; written back however the run ends.
        var expect = self.expect
        defer { self.expect = expect }
        let tracksElements: Bool
        switch mode {
        case .document, .tape: tracksElements = false
        case .lines, .elements: tracksElements = true
        }
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
                    expect = try close(isObject: false, at: origin + Int64(position))
                    position += 1
                    continue
                }
                if tracksElements, elementStart == nil, isAtElementLevel {
                    let offset = origin + Int64(position)
                    elementStart = offset
                    elementStartLine = line
                    elementStartColumn = Int(offset - lineStart) + 1
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
                        stash(.string(isKey: false, escapeNext: flags.endsInEscape), base, from: position, end: end)
                        return
                    }
                    tokenEnd = origin + Int64(closing + 1)
                    expect = try completeString(base, from: position + 1, to: closing, flags: flags, origin: origin)
                    position = closing + 1
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if isRecording {
                        // The tape keeps where the number is; its value is read when decoded.
                        guard let number = try scanNumber(base, from: position, end: end, origin: origin, final: false, build: false) else {
                            stash(.number, base, from: position, end: end)
                            return
                        }
                        tokenEnd = origin + Int64(number.end)
                        expect = try recordNumber(at: origin + Int64(position))
                        position = number.end
                        continue
                    }
                    guard let number = try scanNumber(base, from: position, end: end, origin: origin, final: false) else {
                        stash(.number, base, from: position, end: end)
                        return
                    }
                    tokenEnd = origin + Int64(number.end)
                    expect = try complete(.number(number.value), at: origin + Int64(position))
                    position = number.end
                case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                    let length = byte == UInt8(ascii: "f") ? 5 : 4
                    if position + length > end {
                        try checkLiteralPrefix(base + position, count: end - position, at: origin + Int64(position))
                        stash(.literal(length: length), base, from: position, end: end)
                        return
                    }
                    let value = try literal(base + position, length: length, at: origin + Int64(position))
                    tokenEnd = origin + Int64(position + length)
                    expect = try complete(value, at: origin + Int64(position))
                    position += length
                default:
                    throw syntaxError("Unexpected character \(Self.describe(byte)) where a value was expected", at: origin + Int64(position))
                }
            case .keyOrObjectEnd, .key:
                if byte == UInt8(ascii: "}"), case .keyOrObjectEnd = expect {
                    expect = try close(isObject: true, at: origin + Int64(position))
                    position += 1
                    continue
                }
                guard byte == UInt8(ascii: "\"") else {
                    throw syntaxError("Unexpected character \(Self.describe(byte)) where a key was expected", at: origin + Int64(position))
                }
                var flags = StringFlags()
                guard let closing = try scanString(base, from: position + 1, end: end, origin: origin, flags: &flags) else {
                    stash(.string(isKey: true, escapeNext: flags.endsInEscape), base, from: position, end: end)
                    return
                }
                try readKey(base, from: position + 1, to: closing, flags: flags, origin: origin)
                position = closing + 1
                // Most keys are followed by the colon right away.
                if position < end, base[position] == UInt8(ascii: ":") {
                    expect = .value
                    position += 1
                } else {
                    expect = .colon
                }
            case .colon:
                guard byte == UInt8(ascii: ":") else {
                    throw syntaxError("Expected ':' after a key, found \(Self.describe(byte))", at: origin + Int64(position))
                }
                expect = .value
                position += 1
            case .commaOrEnd:
                let isObject = frames[frames.count - 1].isObject
                if byte == UInt8(ascii: ",") {
                    expect = isObject ? .key : .value
                } else if byte == UInt8(ascii: isObject ? "}" : "]") {
                    expect = try close(isObject: isObject, at: origin + Int64(position))
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
}
