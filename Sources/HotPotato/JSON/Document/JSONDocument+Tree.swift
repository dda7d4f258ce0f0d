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
        var keys: [String] = []
        var values: [JSON] = []
        let count = Int(tape.entries[index].length)
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
        forEachMember(of: index) { key, value, earlier in
            if let earlier {
                values[earlier] = value
            } else {
                keys.append(key)
                values.append(value)
            }
        }
        return (keys.isEmpty ? .empty : JSONObjectKeys(unique: keys, positions: nil), values)
    }

    /// The members of the object at `index`, as ``objectParts(_:)`` lists them (without making a
    /// key set).
    func objectMembers(_ index: Int) -> [JSON.Object.Member] {
        var members: [JSON.Object.Member] = []
        members.reserveCapacity(Int(tape.entries[index].length))
        forEachMember(of: index) { key, value, earlier in
            if let earlier {
                members[earlier].value = value
            } else {
                members.append(JSON.Object.Member(key: key, value: value))
            }
        }
        return members
    }

    /// Calls `body` with each member of the object at `index` that the policy keeps: a new key
    /// with `nil`, or (under ``JSONParsingOptions/DuplicateKeyPolicy/useLast``) a repeated key's
    /// value with the position of its first occurrence among the keys given so far.
    private func forEachMember(of index: Int, _ body: (String, JSON, Int?) -> Void) {
        let entries = tape.entries
        // Only objects whose keys' fingerprints matched may repeat a key; the policy is never
        // `.reject` here (repeated keys were refused when the document was parsed).
        var seen: [JSONMemberName: Int]? = entries[index].flags & JSONTapeEntry.mayRepeatKeys != 0 ? [:] : nil
        var kept = 0
        var position = index + 1
        let end = Int(entries[index].payload)
        while position < end {
            let key = string(at: position)
            if seen != nil, let earlier = seen![JSONMemberName(key)] {
                if policy != .useFirst { body(key, tree(at: position + 1), earlier) }
            } else {
                seen?[JSONMemberName(key)] = kept
                kept += 1
                body(key, tree(at: position + 1), nil)
            }
            position = entries[position + 1].isContainer ? Int(entries[position + 1].payload) : position + 2
        }
    }
}
