import Foundation

/// Where ``IncrementalJSONParser`` records a tape: a growable buffer of ``JSONTapeEntry``s that
/// becomes a ``JSONTape`` without a copy.
///
/// Not an `Array`: the parser appends an entry per token, and an array checked that its buffer
/// was uniquely referenced at each append (a call into the runtime). Growing reallocates, which
/// for a large tape remaps its pages rather than copying them. Indices are still checked.
struct JSONTapeWriter: ~Copyable {
    private var base: UnsafeMutablePointer<JSONTapeEntry>?
    /// Entries there is room for.
    private(set) var capacity = 0
    /// Entries recorded.
    private(set) var count = 0

    init() {}

    deinit {
        free(base)
    }

    var isEmpty: Bool { count == 0 }

    subscript(index: Int) -> JSONTapeEntry {
        unsafeAddress {
            precondition(index >= 0 && index < count, "Tape index out of range")
            return UnsafePointer(base! + index)
        }
        unsafeMutableAddress {
            precondition(index >= 0 && index < count, "Tape index out of range")
            return base! + index
        }
    }

    @inline(__always)
    mutating func append(_ entry: JSONTapeEntry) {
        if count == capacity { grow(to: Swift.max(2 * capacity, 64)) }
        (base! + count).initialize(to: entry)
        count += 1
    }

    /// Makes room for `total` entries in all.
    mutating func reserveCapacity(_ total: Int) {
        if total > capacity { grow(to: total) }
    }

    /// The entries recorded, as a tape; the writer is left empty.
    mutating func take() -> JSONTape {
        let tape = JSONTape(taking: base, count: count)
        base = nil
        capacity = 0
        count = 0
        return tape
    }

    private mutating func grow(to total: Int) {
        let (bytes, overflow) = total.multipliedReportingOverflow(by: MemoryLayout<JSONTapeEntry>.stride)
        guard !overflow, let larger = realloc(base, bytes) else {
            fatalError("Cannot allocate a JSON tape of \(total) entries")
        }
        base = larger.bindMemory(to: JSONTapeEntry.self, capacity: total)
        capacity = total
    }
}
