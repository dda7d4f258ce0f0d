import Foundation

// MARK: - Coding paths

extension JSONTapeDecoder {
    func path(_ location: Int, adding key: (any CodingKey)?) -> [any CodingKey] {
        var keys = path(to: location)
        if let key { keys.append(key) }
        return keys
    }

    func location(of index: Int, at parent: Int, _ key: (any CodingKey)?) -> Int {
        index
    }

    func withKeysAsWritten<R>(in object: Int, _ body: () throws -> R) rethrows -> R {
        // Kept by the first decoder, whose containers' paths may be asked for meanwhile.
        if let first { return try first._withUnsafeGuaranteedRef { try $0.withKeysAsWritten(in: object, body) } }
        keysAsWritten.append(object)
        defer { keysAsWritten.removeLast() }
        return try body()
    }

    /// The coding path from ``root`` to the value at `entry`, found by walking down the tape:
    /// member keys as the key strategy converts them, elements as `"Index N"`.
    func path(to entry: Int) -> [any CodingKey] {
        scope.check()
        var keys: [any CodingKey] = []
        let keysAsWritten = first.map { $0._withUnsafeGuaranteedRef { $0.keysAsWritten } } ?? self.keysAsWritten
        var position = root
        while position < entry, tape[position].isContainer, entry < end(of: position) {
            if tape[position].kind == .object {
                var key = position + 1
                while end(of: key + 1) <= entry { key = end(of: key + 1) }
                keys.append(pathKey(at: key, after: keys, asWritten: keysAsWritten.contains(position)))
                position = key + 1
            } else {
                var index = 0
                var element = position + 1
                if let last = lastElement, last.array == position, last.entry <= entry {
                    index = last.index
                    element = last.entry
                }
                while end(of: element) <= entry {
                    element = end(of: element)
                    index += 1
                }
                lastElement = (position, index, element)
                keys.append(ArrayIndexKey(index))
                position = element
            }
        }
        return keys
    }

    /// The coding key of the member whose key entry is `index`, under the key strategy unless
    /// `asWritten`.
    private func pathKey(at index: Int, after keys: [any CodingKey], asWritten: Bool) -> any CodingKey {
        let written = string(at: index)
        if asWritten { return AnyCodingKey(written) }
        switch strategies.keys {
        case .convertFromSnakeCase: return AnyCodingKey(JSONDecodingStrategies.camelCase(fromSnakeCase: written))
        case .custom(let convert): return convert(keys + [AnyCodingKey(written)])
        default: return AnyCodingKey(written)
        }
    }

    /// The coding path of `location` with `key`, as a node, for a decoder of ``JSON`` values.
    func node(_ location: Int, adding key: some CodingKey) -> CodingPathNode {
        path(location, adding: key).reduce(CodingPathNode.root) { $0.appending($1) }
    }
}
