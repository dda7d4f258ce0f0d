import Foundation

/// The `JSON` tree of a parsed document whose objects read through the document
/// (``JSON/Object/Representation/document(_:_:)``): what ``JSON/init(parsing:options:)-(Data,_)``
/// makes.
extension JSONDocument.Storage {
    /// The value at the tape entry `index`: scalars made, arrays built (their elements likewise),
    /// objects left in the document, to be read from it when asked.
    func tree(at index: Int) -> JSON {
        bytes.withUnsafeBytes { raw in
            // A document holding a value is never empty.
            guard let address = raw.baseAddress else { return .null }
            return Self.tree(at: index, tape.entries, address.assumingMemoryBound(to: UInt8.self), self)
        }
    }

    private static func tree(
        at index: Int, _ entries: UnsafeBufferPointer<JSONTapeEntry>, _ base: UnsafePointer<UInt8>, _ storage: JSONDocument.Storage
    ) -> JSON {
        let entry = entries[index]
        switch entry.kind {
        case .object:
            return .object(JSON.Object(document: storage, index: index))
        case .array:
            var elements: [JSON] = []
            elements.reserveCapacity(Int(entry.length))
            var position = index + 1
            let end = Int(entry.payload)
            while position < end {
                elements.append(tree(at: position, entries, base, storage))
                position = entries[position].isContainer ? Int(entries[position].payload) : position + 1
            }
            return .array(elements)
        case .string, .key:
            return .string(JSONTapeStrings.make(
                UnsafeBufferPointer(start: base + Int(entry.payload), count: Int(entry.length)), flags: entry.flags))
        case .number:
            return .number(JSON.Number(checkedJSON: UnsafeBufferPointer(start: base + Int(entry.payload), count: Int(entry.length))))
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null: return .null
        }
    }

    /// The number of members of the object at `index`, each key once.
    func objectCount(_ index: Int) -> Int {
        let entry = tape.entries[index]
        guard entry.flags & JSONTapeEntry.mayRepeatKeys != 0 else { return Int(entry.length) }
        return objectParts(index).values.count
    }

    /// The keys and values of the object at `index`, each key once by the document's duplicate-key
    /// policy (a repeated key keeps the first key's place); nested objects stay in the document.
    func objectParts(_ index: Int) -> (keys: JSONObjectKeys, values: [JSON]) {
        let entries = tape.entries
        var keys: [String] = []
        var values: [JSON] = []
        let count = Int(entries[index].length)
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
        // Only objects whose keys' fingerprints matched may repeat a key; the policy is never
        // `.reject` here (repeated keys were refused when the document was parsed).
        var seen: [JSONMemberName: Int]? = entries[index].flags & JSONTapeEntry.mayRepeatKeys != 0 ? [:] : nil
        var position = index + 1
        let end = Int(entries[index].payload)
        while position < end {
            let key = string(at: position)
            if seen != nil, let earlier = seen![JSONMemberName(key)] {
                if policy != .useFirst { values[earlier] = tree(at: position + 1) }
            } else {
                seen?[JSONMemberName(key)] = keys.count
                keys.append(key)
                values.append(tree(at: position + 1))
            }
            position = entries[position + 1].isContainer ? Int(entries[position + 1].payload) : position + 2
        }
        return (keys.isEmpty ? .empty : JSONObjectKeys(unique: keys, positions: nil), values)
    }
}
