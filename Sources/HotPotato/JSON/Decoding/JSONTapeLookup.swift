/// Finding a member or an element on a tape by walking it: shared by `JSONTapeDecoder` and
/// ``JSONDocument``, which reaches into a document without making a decoder.
enum JSONTapeLookup {
    /// The entry after the value at `index` (and everything in it).
    @inline(__always)
    static func end(of index: Int, in tape: UnsafeBufferPointer<JSONTapeEntry>) -> Int {
        tape[index].isContainer ? Int(tape[index].payload) : index + 1
    }

    /// The entry at a dot-separated key path from `root` (as ``JSON/subscript(_:)-(String)`` reads
    /// one), or `nil` when a step is missing: an object's step found by `member(key, object)`, an
    /// array's by `element(index, array)`.
    static func entry(
        atKeyPath keyPath: String, from root: Int, in tape: UnsafeBufferPointer<JSONTapeEntry>,
        member: (String, Int) throws -> Int?, element: (Int, Int) -> Int?
    ) rethrows -> Int? {
        var position = root
        if keyPath.isEmpty { return position }
        for component in keyPath.split(separator: ".", omittingEmptySubsequences: false) {
            switch tape[position].kind {
            case .object:
                guard let value = try member(String(component), position) else { return nil }
                position = value
            case .array:
                guard let index = JSON.arrayIndex(component), let found = element(index, position) else { return nil }
                position = found
            default:
                return nil
            }
        }
        return position
    }

    /// The entry of element `index` of the array at `array`, or `nil` when out of range.
    static func element(_ index: Int, of array: Int, in tape: UnsafeBufferPointer<JSONTapeEntry>) -> Int? {
        guard index >= 0, index < Int(tape[array].length) else { return nil }
        var position = array + 1
        for _ in 0..<index { position = end(of: position, in: tape) }
        return position
    }

    /// The entries of the elements of the array at `array`, in order.
    static func elements(of array: Int, in tape: UnsafeBufferPointer<JSONTapeEntry>) -> [Int] {
        var elements: [Int] = []
        elements.reserveCapacity(Int(tape[array].length))
        var position = array + 1
        let last = end(of: array, in: tape)
        while position < last {
            elements.append(position)
            position = end(of: position, in: tape)
        }
        return elements
    }

    /// The value entry of the member `key` of the object at `object`, comparing `key` with the
    /// written bytes (no `String` is made for the others). Where the object may repeat a key, the
    /// first match under `useFirst`, the last otherwise.
    static func member(
        _ key: String, of object: Int, in tape: UnsafeBufferPointer<JSONTapeEntry>, bytes: UnsafeRawBufferPointer, useFirst: Bool
    ) -> Int? {
        // A document holding an object is never empty.
        guard let address = bytes.baseAddress else { return nil }
        let base = address.assumingMemoryBound(to: UInt8.self)
        let mayRepeat = tape[object].flags & JSONTapeEntry.mayRepeatKeys != 0
        var position = object + 1
        let last = end(of: object, in: tape)
        var match: Int?
        while position < last {
            let entry = tape[position]
            let written = UnsafeBufferPointer(start: base + Int(entry.payload), count: Int(entry.length))
            if JSONTapeStrings.equals(written, hasEscapes: entry.flags & JSONTapeEntry.hasEscapes != 0, key) {
                match = position + 1
                if !mayRepeat || useFirst { break }
            }
            position = end(of: position + 1, in: tape)
        }
        return match
    }
}
