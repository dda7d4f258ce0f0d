/// A stack of plain values for ``IncrementalJSONParser``: its open arrays and objects, and the
/// fingerprints of the keys of the open objects.
///
/// In memory of its own rather than an `Array`: the parser pushes, pops and updates the top once
/// or more per token, and an array checked that its buffer was uniquely referenced at each update
/// (a call into the runtime) and popped or truncated through generic code that was not inlined
/// (together about a tenth of the time of parsing a document of small objects, in a profile).
/// Indices are still checked.
struct ParserStack<Element: BitwiseCopyable>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    /// Elements on the stack.
    private(set) var count = 0

    init() {
        capacity = 16
        base = .allocate(capacity: capacity)
    }

    deinit {
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    /// The top element, if any.
    var last: Element? { count == 0 ? nil : base[count - 1] }

    subscript(index: Int) -> Element {
        unsafeAddress {
            precondition(index >= 0 && index < count, "Stack index out of range")
            return UnsafePointer(base + index)
        }
        unsafeMutableAddress {
            precondition(index >= 0 && index < count, "Stack index out of range")
            return base + index
        }
    }

    mutating func append(_ element: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    /// Removes and returns the top element.
    mutating func removeLast() -> Element {
        precondition(count > 0, "The stack is empty")
        count -= 1
        return base[count]
    }

    /// Drops the elements from `index` on.
    mutating func removeAll(from index: Int) {
        precondition(index >= 0 && index <= count, "Stack index out of range")
        count = index
    }

    /// Whether `element` is on the stack at `index` or above.
    func contains(_ element: Element, from index: Int) -> Bool where Element: Equatable {
        precondition(index >= 0 && index <= count, "Stack index out of range")
        var position = index
        while position < count {
            if base[position] == element { return true }
            position += 1
        }
        return false
    }

    private mutating func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        larger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = larger
        capacity *= 2
    }
}
