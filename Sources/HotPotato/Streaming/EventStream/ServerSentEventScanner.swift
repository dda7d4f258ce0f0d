import Foundation

/// Parses a `text/event-stream` body as it arrives, by the event-stream rules of the WHATWG HTML
/// standard ("Interpreting an event stream"), whatever the chunking:
///
/// - The stream is UTF-8 (invalid sequences become U+FFFD); one leading byte-order mark is
///   dropped.
/// - Lines end with CRLF, LF or CR; a CR at the end of one chunk and an LF at the start of the
///   next are one line end.
/// - A blank line dispatches the event: its `data:` lines joined with LF, the type of its last
///   `event:` line (`"message"` without one), and the last event ID. A block without `data:` is
///   not dispatched; its type is forgotten.
/// - A line starting with `:` is a comment, skipped as it is read (a comment of any length holds
///   no memory: servers send them as keep-alives, and a hostile one could send one endless). Otherwise the field name is what comes before the
///   first `:` (the whole line without one), and the value what follows, less one leading space.
///   `id:` with a NUL in it is ignored; `retry:` counts only when it is ASCII digits; unknown
///   fields are ignored.
/// - An event still open when the body ends is discarded.
///
/// Memory is bounded by `maximumEventSize`: everything the scanner holds for the event being
/// read — the line being assembled, the data gathered so far, the event type and the last event
/// ID — may not exceed it together (``HotPotatoError/Code/bodyTooLarge``). Counting the data alone
/// would let `id:` and `event:` lines each just under the limit hold several times it.
struct ServerSentEventScanner {
    /// The bytes of the line being read.
    private var line: [UInt8] = []
    /// Whether the last byte was a CR, so that an LF right after it ends no second line.
    private var afterCR = false
    /// Whether the stream's first bytes may still turn out to be a byte-order mark.
    private var checkingBOM = true
    /// The line being read is a comment: its text is not kept (only its `:`), however long.
    private var inComment = false
    /// The `data:` values of the open event, each followed by LF.
    private var data: [UInt8] = []
    /// The `event:` value of the open event.
    private var eventType: String?
    /// The `retry:` value of the open event.
    private var retry: Int?
    /// The last event ID buffer: set by each `id:` line, kept across events.
    private(set) var lastEventID = ""
    /// The last event ID *string*: the buffer's value at the latest blank line, which ends a
    /// block whether or not it dispatches an event. What a reconnection sends as
    /// `Last-Event-ID`: an `id:` line of a block the connection cut off does not count.
    private(set) var committedEventID = ""
    /// The body bytes read so far.
    private var consumed: Int64 = 0
    /// Where the block being read began in the body: after the blank line that ended the last.
    private var blockStart: Int64 = 0
    /// The reconnection time the stream asked for last, in milliseconds.
    private(set) var reconnectionTime: Int?
    /// The bytes held besides the line: the data, the event type and the last event ID buffer.
    private var heldBytes = 0

    let maximumEventSize: Int

    /// - Parameters:
    ///   - maximumEventSize: The most bytes an event may hold while it is read: its line being
    ///   read, its data, its type and the last event ID, together.
    ///   - lastEventID: The last event ID of the stream this one continues (a reconnection's).
    init(maximumEventSize: Int = 16 * 1024 * 1024, lastEventID: String = "") {
        self.maximumEventSize = maximumEventSize
        self.lastEventID = lastEventID
        committedEventID = lastEventID
        line.reserveCapacity(256)
        recount()
    }

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Reads `bytes`, calling `dispatch` with each event they complete, in order, and the offset
    /// in the body of the block it came from.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, dispatch: (ServerSentEvent, _ offset: Int64) throws -> Void) throws {
        let base = consumed
        consumed += Int64(bytes.count)
        for index in bytes.indices {
            let byte = bytes[index]
            let offset = base + Int64(index)
            if afterCR {
                afterCR = false
                if byte == 0x0A {
                    // The LF of a CRLF: a block that began at it begins after it.
                    if blockStart == offset { blockStart += 1 }
                    continue
                }
            }
            switch byte {
            case 0x0D:
                afterCR = true
                try endLine(at: offset, dispatch)
            case 0x0A:
                try endLine(at: offset, dispatch)
            default:
                if inComment { continue }
                line.append(byte)
                if checkingBOM { dropByteOrderMark() }
                if line.count == 1, line[0] == UInt8(ascii: ":"), !checkingBOM { inComment = true }
                if line.count + heldBytes > maximumEventSize { throw tooLarge() }
            }
        }
    }

    /// Reads `data` (see ``feed(_:dispatch:)-(UnsafeRawBufferPointer,_)``).
    mutating func feed(_ data: Data, dispatch: (ServerSentEvent, _ offset: Int64) throws -> Void) throws {
        try data.withUnsafeBytes { try feed($0, dispatch: dispatch) }
    }

    /// The body ended: an event still open is discarded, as the standard says.
    mutating func finish() {
        inComment = false
        line.removeAll()
        data.removeAll()
        eventType = nil
        retry = nil
        recount()
    }

    // MARK: - Private

    /// Drops the stream's first three bytes when they are a byte-order mark, and stops looking as
    /// soon as they cannot be.
    private mutating func dropByteOrderMark() {
        let count = min(line.count, 3)
        guard line[..<count].elementsEqual(Self.byteOrderMark[..<count]) else {
            checkingBOM = false
            return
        }
        if count == 3 {
            line.removeAll(keepingCapacity: true)
            checkingBOM = false
        }
    }

    /// Counts what is held besides the line (see ``heldBytes``): after every field.
    private mutating func recount() {
        heldBytes = data.count + (eventType?.utf8.count ?? 0) + lastEventID.utf8.count
    }

    private mutating func endLine(at offset: Int64, _ dispatch: (ServerSentEvent, Int64) throws -> Void) throws {
        // A line end settles the question of the mark: a line that began like one was not one.
        checkingBOM = false
        defer {
            line.removeAll(keepingCapacity: true)
            inComment = false
            recount()
        }
        if line.isEmpty {
            try dispatchEvent(dispatch)
            blockStart = offset + 1
            return
        }
        if line[0] == UInt8(ascii: ":") { return }
        let colon = line.firstIndex(of: UInt8(ascii: ":")) ?? line.endIndex
        var valueStart = colon == line.endIndex ? colon : colon + 1
        if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
        let name = line[..<colon]
        let value = line[valueStart...]
        if name.elementsEqual("data".utf8) {
            data.append(contentsOf: value)
            data.append(0x0A)
        } else if name.elementsEqual("event".utf8) {
            eventType = String(decoding: value, as: UTF8.self)
        } else if name.elementsEqual("id".utf8) {
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        } else if name.elementsEqual("retry".utf8) {
            if !value.isEmpty, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                // Saturating: a server's number of any length must not trap.
                let milliseconds = value.reduce(0) { total, digit in
                    let (times, overflow) = total.multipliedReportingOverflow(by: 10)
                    let (sum, overflow2) = times.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
                    return overflow || overflow2 ? Int.max : sum
                }
                retry = milliseconds
                reconnectionTime = milliseconds
            }
        }
    }

    private mutating func dispatchEvent(_ dispatch: (ServerSentEvent, Int64) throws -> Void) throws {
        committedEventID = lastEventID
        defer {
            data.removeAll(keepingCapacity: true)
            eventType = nil
            retry = nil
        }
        guard !data.isEmpty else { return }
        data.removeLast()
        let event = ServerSentEvent(
            type: eventType.flatMap { $0.isEmpty ? nil : $0 } ?? "message",
            data: String(decoding: data, as: UTF8.self), id: lastEventID, retry: retry)
        try dispatch(event, blockStart)
    }

    private func tooLarge() -> HotPotatoError {
        var error = HotPotatoError(
            .bodyTooLarge,
            reason: "An event of the event stream is larger than the limit of \(maximumEventSize) bytes.")
        error.limit = Int64(maximumEventSize)
        error.byteCount = Int64(line.count + heldBytes)
        error.byteOffset = blockStart
        return error
    }
}
