import Foundation

extension JSONDocument {
    /// Where the children of the large containers of a document are, made on the first lookup in
    /// each: see ``JSONDocument``.
    struct LookupTables {
        /// Containers with more children than this get a table; smaller ones are walked.
        static let threshold = 16
        /// By array entry: the entry of each element.
        var elements: [Int: [UInt32]] = [:]
        /// By object entry: the value entry of each key, by the document's duplicate-key policy.
        var members: [Int: [JSONMemberName: Int]] = [:]
    }
}

extension JSONDocument.Storage {
    /// The entry of element `index` of the array at `array`, or `nil` when out of range.
    func element(_ index: Int, of array: Int) -> Int? {
        let entries = tape.entries
        let count = Int(entries[array].length)
        guard index >= 0, index < count else { return nil }
        guard count > JSONDocument.LookupTables.threshold else {
            return JSONTapeLookup.element(index, of: array, in: entries)
        }
        let table = tables.withLock { tables in
            if let table = tables.elements[array] { return table }
            let table = JSONTapeLookup.elements(of: array, in: entries).map { UInt32(truncatingIfNeeded: $0) }
            tables.elements[array] = table
            return table
        }
        return Int(table[index])
    }

    /// The value entry of the member `key` of the object at `object`, by the document's
    /// duplicate-key policy, or `nil`.
    func member(_ key: String, of object: Int) -> Int? {
        let entries = tape.entries
        let walk = {
            self.bytes.withUnsafeBytes { bytes in
                JSONTapeLookup.member(key, of: object, in: entries, bytes: bytes, useFirst: self.policy == .useFirst)
            }
        }
        guard Int(entries[object].length) > JSONDocument.LookupTables.threshold else { return walk() }
        let table = tables.withLock { tables in
            if let table = tables.members[object] { return table }
            // The policy is never `.reject` (repeated keys were refused when the document was
            // made), so listing the members cannot throw.
            let members = (try? read { try $0.members(of: object) }) ?? nil
            let table = Dictionary((members ?? []).map { (JSONMemberName($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
            tables.members[object] = table
            return table
        }
        return table[JSONMemberName(key)]
    }

    /// The written bytes of the string, key or number entry at `index`, to `body`.
    private func withWrittenBytes<R>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>, JSONTapeEntry) -> R) -> R {
        let entry = tape.entries[index]
        return bytes.withUnsafeBytes { bytes in
            body(UnsafeBufferPointer(
                start: bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + Int(entry.payload), count: Int(entry.length)), entry)
        }
    }

    /// The string of the string entry at `index`.
    func string(at index: Int) -> String {
        withWrittenBytes(index) { JSONTapeStrings.make($0, flags: $1.flags) }
    }

    /// The number of the number entry at `index`.
    func number(at index: Int) -> JSON.Number {
        withWrittenBytes(index) { written, _ in JSON.Number(checkedJSON: written) }
    }

    /// The nearest `Double` to the number entry at `index`.
    func double(at index: Int) -> Double {
        withWrittenBytes(index) { written, _ in JSONDoubleParsing.double(written) }
    }

    /// The entry at a dot-separated key path from `root`, or `nil`: the rules of
    /// ``JSONDocument/subscript(_:)``.
    func entry(atKeyPath keyPath: String, from root: Int) -> Int? {
        JSONTapeLookup.entry(
            atKeyPath: keyPath, from: root, in: tape.entries, member: { member($0, of: $1) }, element: { element($0, of: $1) })
    }
}
