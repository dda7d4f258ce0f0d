/// The open arrays and objects of an ``IncrementalJSONParser``, innermost last.
///
/// A stack in memory of its own rather than an `Array`: the parser pushes, pops and updates the
/// innermost frame once or more per token, and an array checked that its buffer was uniquely
/// referenced at each update and popped through its generic, not inlined `removeLast` (together
/// about a tenth of the time of parsing a document of small objects, in a profile). Indices are
/// still checked.
struct JSONFrameStack: ~Copyable {
    typealias Frame = IncrementalJSONParser.Frame

    private var base: UnsafeMutablePointer<Frame>
    private var capacity: Int
    /// Open containers.
    private(set) var count = 0

    init() {
        capacity = 16
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The innermost frame, if any.
    var last: Frame? { count == 0 ? nil : base[count - 1] }

    subscript(index: Int) -> Frame {
        unsafeAddress {
            precondition(index >= 0 && index < count, "Frame index out of range")
            return UnsafePointer(base + index)
        }
        unsafeMutableAddress {
            precondition(index >= 0 && index < count, "Frame index out of range")
            return base + index
        }
    }

    mutating func append(_ frame: Frame) {
        if count == capacity { grow() }
        (base + count).initialize(to: frame)
        count += 1
    }

    /// Removes and returns the innermost frame.
    mutating func removeLast() -> Frame {
        precondition(count > 0, "No open container to close")
        count -= 1
        return (base + count).move()
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<Frame>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}
