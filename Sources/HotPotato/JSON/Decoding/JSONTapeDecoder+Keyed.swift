extension JSONTapeDecoder {
    /// A keyed container for the object at `object`: one given out before for the same key type
    /// when nothing holds it any more (see ``ReusableKeyedContainer``), otherwise a new one.
    func keyedContainer<Key: CodingKey>(keyedBy type: Key.Type, object: Int) throws -> KeyedDecodingContainer<Key> {
        let usesLookup = !usesDefaultKeys || tape[object].flags & JSONTapeEntry.mayRepeatKeys != 0
        // A repeated key under `.reject` is an error as soon as the object is opened.
        if usesLookup { _ = try lookup(for: object) }
        let state = KeyedContainerState(
            object: object, last: end(of: object), hint: hintSlot(for: object), usesLookup: usesLookup, smallStrings: smallStrings)
        let keyType = ObjectIdentifier(Key.self)
        if KeyedContainerReuse.isSupported, let block = containerBlock {
            var index = containerCount - 1
            while index >= 0 {
                let slot = block + index
                if slot.pointee.keyType == keyType, isKnownUniquelyReferenced(&slot.pointee.box) {
                    slot.pointee.state = state
                    return unsafeBitCast(slot.pointee.box!, to: KeyedDecodingContainer<Key>.self)
                }
                index -= 1
            }
        }
        if containerBlock == nil || containerCount == Self.containersPerBlock {
            if let full = containerBlock { fullContainerBlocks.append(full) }
            containerBlock = .allocate(capacity: Self.containersPerBlock)
            containerCount = 0
        }
        let slot = containerBlock! + containerCount
        // The box is set once the container holding the slot's state is made.
        slot.initialize(to: ReusableKeyedContainer(keyType: keyType, box: nil, state: state))
        containerCount += 1
        let container = KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, state: slot.pointer(to: \.state)!))
        // Kept for reuse only where the layout was checked (see ``KeyedContainerReuse``); a slot
        // without a box is never given out again.
        if KeyedContainerReuse.isSupported { slot.pointee.box = unsafeBitCast(container, to: AnyObject.self) }
        return container
    }

    /// Keyed containers kept in one block (one allocation) for giving out again; the last block's
    /// are the ones looked at.
    static let containersPerBlock = 8

    /// What a keyed container knows of its object: kept apart from the container, so that the
    /// container can be given out again for another object.
    struct KeyedContainerState {
        /// The object's tape entry.
        var object: Int
        /// The entry after the object's last.
        var last: Int
        var hint: UnsafeMutablePointer<JSONTapeKeyHints.Hint>
        /// Whether keys are found through the decoder's table rather than by their bytes.
        var usesLookup: Bool
        /// The decoder's ``JSONTapeDecoder/smallStrings``.
        var smallStrings: Bool
    }

    /// A keyed container given out by this decoder, kept (with its state) to be given out again.
    ///
    /// `KeyedDecodingContainer` boxes its container in a class generic over it, and making one
    /// looks that class's metadata up at run time (a lock-free hash table, but about 900
    /// instructions a container) before allocating the box: 7 % of the instructions of decoding
    /// the mixed benchmark document, and a malloc and free per object. A container whose box only
    /// this decoder still holds (`isKnownUniquelyReferenced`) cannot be used by anyone else, so
    /// it is pointed at the next object of the same key type instead. `KeyedDecodingContainer` is
    /// a struct holding nothing but its box, which is what `box` is.
    struct ReusableKeyedContainer {
        let keyType: ObjectIdentifier
        /// `nil` only while the container is being made.
        var box: AnyObject?
        /// The container's state, freed with the decoder; a container kept past its decoding
        /// finds the scope closed before it reads it.
        var state: KeyedContainerState
    }

    /// The members of an object on the tape, looked up by coding key: compared with the
    /// document's bytes where they are, or, when keys are converted by the key strategy or may
    /// repeat, through a table the decoder keeps (``JSONTapeDecoder/lookup(for:)``).
    ///
    /// A plain value of pointers and numbers: `KeyedDecodingContainer` copies its container for
    /// every call, and a container holding a reference would be retained and released each time
    /// (a fifth of the cycles of decoding a document of small objects). It reaches its decoder
    /// unretained, after checking the decoding's scope, during which the decoding's first decoder
    /// is alive. What it knows of its object is in a ``KeyedContainerState`` its decoder keeps,
    /// read only after the scope is checked. Strings, numbers and booleans of the expected kind
    /// are read straight from the tape and the bytes; anything else goes through the decoder, for
    /// its conversions and errors.
    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        private let state: UnsafeMutablePointer<KeyedContainerState>
        private let tape: UnsafePointer<JSONTapeEntry>
        private let base: UnsafePointer<UInt8>
        private let scope: JSONDecodingScope
        private let decoder: Unmanaged<JSONTapeDecoder>

        /// The object's tape entry.
        var object: Int { state.pointee.object }
        /// The entry after the object's last.
        private var last: Int { state.pointee.last }
        private var hint: UnsafeMutablePointer<JSONTapeKeyHints.Hint> { state.pointee.hint }
        /// Whether keys are found through the decoder's table rather than by their bytes.
        private var usesLookup: Bool { state.pointee.usesLookup }

        init(decoder: JSONTapeDecoder, state: UnsafeMutablePointer<KeyedContainerState>) {
            self.state = state
            tape = decoder.tape.baseAddress!
            // A document holding an object is never empty.
            base = decoder.bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            scope = decoder.scope
            self.decoder = decoder.owner
        }

        /// Runs `body` with the decoding's first decoder, unretained, once the scope is checked.
        @inline(__always)
        private func withDecoder<R>(_ body: (JSONTapeDecoder) throws -> R) rethrows -> R {
            scope.check()
            return try decoder._withUnsafeGuaranteedRef(body)
        }

        var allKeys: [Key] {
            scope.check()
            if usesLookup {
                return withDecoder { decoder in
                    (try? decoder.lookup(for: object))?.sorted { $0.value < $1.value }.compactMap { Key(stringValue: $0.key.string) } ?? []
                }
            }
            var keys: [Key] = []
            var position = object + 1
            while position < last {
                if let key = Key(stringValue: JSONTapeStrings.make(written(position), flags: tape[position].flags)) {
                    keys.append(key)
                }
                position = end(of: position + 1)
            }
            return keys
        }

        @inline(__always)
        private func end(of entry: Int) -> Int {
            tape[entry].isContainer ? Int(tape[entry].payload) : entry + 1
        }

        /// The written bytes of a string, key or number entry.
        @inline(__always)
        private func written(_ entry: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: base + Int(tape[entry].payload), count: Int(tape[entry].length))
        }

        /// The entry of the value for `key` (as the key strategy has it), or `nil`.
        ///
        /// A key of up to 15 bytes (most are) is a small string, whose bits are its bytes: it is
        /// compared with the hinted key's written bytes as two words, without lending its bytes
        /// to a closure. Anything else, or a miss, goes through ``searchValueEntry(forKey:)``.
        @inline(__always)
        private func valueEntry(forKey key: String) -> Int? {
            scope.check()
            let state = self.state.pointee
            if state.smallStrings, let wanted = JSONSmallString.smallBits(of: key) {
                if !state.usesLookup {
                    let hinted = state.hint.pointee.object == state.object ? state.hint.pointee.key : state.object + 1
                    if hinted < state.last, tape[hinted].length == wanted.count, tape[hinted].flags & JSONTapeEntry.hasEscapes == 0,
                       JSONSmallString.words(written(hinted)) == wanted.words {
                        state.hint.pointee = JSONTapeKeyHints.Hint(object: state.object, key: end(of: hinted + 1))
                        return hinted + 1
                    }
                }
            }
            return searchValueEntry(forKey: key)
        }

        /// ``valueEntry(forKey:)`` for any key: through the decoder's table, or the hinted key
        /// and then every key compared by their bytes.
        private func searchValueEntry(forKey key: String) -> Int? {
            scope.check()
            if usesLookup {
                let object = self.object
                return withDecoder { (try? $0.lookup(for: object))?[JSONMemberName(key)] }
            }
            let object = self.object
            let last = self.last
            let hint = self.hint
            return JSONMemberName.withBytes(key) { wanted in
                let hinted = hint.pointee.object == object ? hint.pointee.key : object + 1
                if hinted < last, spells(hinted, wanted) {
                    hint.pointee = JSONTapeKeyHints.Hint(object: object, key: end(of: hinted + 1))
                    return hinted + 1
                }
                var position = object + 1
                while position < last {
                    if spells(position, wanted) {
                        hint.pointee = JSONTapeKeyHints.Hint(object: object, key: end(of: position + 1))
                        return position + 1
                    }
                    position = end(of: position + 1)
                }
                return nil
            }
        }

        /// Whether the key entry at `entry` spells `wanted`.
        @inline(__always)
        private func spells(_ entry: Int, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
            let written = written(entry)
            if tape[entry].flags & JSONTapeEntry.hasEscapes != 0 {
                return JSONTapeStrings.equals(written, hasEscapes: true, wanted)
            }
            return JSONMemberName.same(written, wanted)
        }

            var codingPath: [any CodingKey] { withDecoder { $0.path(object, adding: nil) } }

        func contains(_ key: Key) -> Bool {
            valueEntry(forKey: key.stringValue) != nil
        }

        private func require(_ key: Key) throws -> Int {
            guard let entry = valueEntry(forKey: key.stringValue) else {
                throw DecodingError.keyNotFound(key, DecodingError.Context(
                    codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
            }
            return entry
        }

        /// The entry for `key`, or `nil` when it is missing or `null`.
        private func present(_ key: Key) -> Int? {
            guard let entry = valueEntry(forKey: key.stringValue), tape[entry].kind != .null else { return nil }
            return entry
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            tape[try require(key)].kind == .null
        }

        // MARK: - Leaves, straight from the tape when they are of the kind asked for

        private func bool(_ entry: Int, _ key: Key) throws -> Bool {
            switch tape[entry].kind {
            case .true: return true
            case .false: return false
            default: return try withDecoder { try $0.unwrapBool($0.leaf(entry), at: object, key) }
            }
        }

        private func string(_ entry: Int, _ key: Key) throws -> String {
            if tape[entry].kind == .string {
                return JSONTapeStrings.make(written(entry), flags: tape[entry].flags, smallStrings: state.pointee.smallStrings)
            }
            return try withDecoder { try $0.unwrapString($0.leaf(entry), at: object, key) }
        }

        private func double(_ entry: Int, _ key: Key) throws -> Double {
            if tape[entry].kind == .number {
                let value = JSONDoubleParsing.double(written(entry))
                if value.isFinite, value != 0 { return value }
            }
            return try withDecoder { try $0.unwrapFloatingPoint($0.leaf(entry), as: Double.self, at: object, key) }
        }

        private func floatingPoint<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type, _ entry: Int, _ key: Key) throws -> T {
            try withDecoder { try $0.unwrapFloatingPoint($0.leaf(entry), as: type, at: object, key) }
        }

        /// `integer(Int.self, …)` without the generic call, for the most common integer.
        private func int(_ entry: Int, _ key: Key) throws -> Int {
            if tape[entry].kind == .number {
                if let value = JSONTapeDecoder.smallInteger(written(entry)), let exact = Int(exactly: value) { return exact }
                if case .integer(let value) = JSON.Number(checkedJSON: written(entry)).storage, let exact = Int(exactly: value) {
                    return exact
                }
            }
            return try withDecoder { try $0.unwrapInteger($0.leaf(entry), as: Int.self, at: object, key) }
        }

        private func integer<T: FixedWidthInteger>(_ type: T.Type, _ entry: Int, _ key: Key) throws -> T {
            if tape[entry].kind == .number {
                if let value = JSONTapeDecoder.smallInteger(written(entry)), let exact = T(exactly: value) { return exact }
                if case .integer(let value) = JSON.Number(checkedJSON: written(entry)).storage, let exact = T(exactly: value) {
                    return exact
                }
            }
            return try withDecoder { try $0.unwrapInteger($0.leaf(entry), as: type, at: object, key) }
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try bool(require(key), key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try string(require(key), key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try double(require(key), key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try floatingPoint(type, require(key), key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try int(require(key), key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(type, require(key), key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(type, require(key), key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(type, require(key), key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(type, require(key), key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(type, require(key), key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(type, require(key), key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(type, require(key), key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(type, require(key), key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(type, require(key), key) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            let entry = try require(key)
            if T.self == [String].self, tape[entry].kind == .array { return try strings(entry, as: T.self) }
            return try withDecoder { try $0.unwrap(entry, as: type, at: object, key) }
        }

        /// `[String]` (which `T` is) from the array at `entry`, as `unwrap` would decode it but
        /// without its generic steps (the type tests, the array type table, the key boxed as an
        /// existential): a list of strings is a common member of records.
        private func strings<T>(_ entry: Int, as type: T.Type) throws -> T {
            try withDecoder { unsafeBitCast(try $0.strings(ofArrayAt: entry), to: T.self) }
        }

        func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try present(key).map { try bool($0, key) } }
        func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try present(key).map { try string($0, key) } }
        func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try present(key).map { try double($0, key) } }
        func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
            try present(key).map { try floatingPoint(type, $0, key) }
        }
        func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try present(key).map { try int($0, key) } }
        func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try present(key).map { try integer(type, $0, key) } }
        func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try present(key).map { try integer(type, $0, key) } }
        func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try present(key).map { try integer(type, $0, key) } }
        func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try present(key).map { try integer(type, $0, key) } }
        func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try present(key).map { try integer(type, $0, key) } }
        func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try present(key).map { try integer(type, $0, key) } }
        func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try present(key).map { try integer(type, $0, key) } }
        func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try present(key).map { try integer(type, $0, key) } }
        func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try present(key).map { try integer(type, $0, key) } }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            guard let entry = present(key) else { return nil }
            if T.self == [String].self, tape[entry].kind == .array { return try strings(entry, as: T.self) }
            return try withDecoder { try $0.unwrap(entry, as: type, at: object, key) }
        }

        // MARK: - Nested containers and decoders

        func nestedContainer<NestedKey: CodingKey>(
            keyedBy type: NestedKey.Type, forKey key: Key
        ) throws -> KeyedDecodingContainer<NestedKey> {
            let entry = try require(key)
            return try withDecoder { decoder in try decoder.with(entry, at: entry) { try decoder.container(keyedBy: type) } }
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            let entry = try require(key)
            return try withDecoder { decoder in try decoder.with(entry, at: entry) { try decoder.unkeyedContainer() } }
        }

        func superDecoder() throws -> any Decoder {
            subDecoder(AnyCodingKey("super"))
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            subDecoder(key)
        }

        /// A decoder of its own for the value at `key` (`null` when there is none), as
        /// `JSONDecoder` gives.
        private func subDecoder(_ key: some CodingKey) -> any Decoder {
            let entry = valueEntry(forKey: key.stringValue)
            return withDecoder { decoder in
                if let entry { return decoder.subDecoder(entry, at: entry) }
                return JSONValueDecoder(value: .null, node: decoder.node(object, adding: key), strategies: decoder.strategies)
            }
        }
    }
}

extension JSONTapeDecoder {
    /// Key → value entry of the object at `object`, for objects whose keys are converted by the
    /// key strategy (the first of two that convert alike wins, as in `JSONDecoder`) or may repeat
    /// (by the duplicate-key policy). The tables of the last few objects are kept, in slots by
    /// entry, so that memory does not grow with the document.
    ///
    /// - Throws: ``HotPotatoError`` for a key that repeats under
    ///   ``JSONParsingOptions/DuplicateKeyPolicy/reject``.
    func lookup(for object: Int) throws -> [JSONMemberName: Int] {
        let slot = object & (Self.lookupSlots - 1)
        if let kept = lookups[slot], kept.object == object { return kept.table }
        let members = try self.members(of: object)!
        let table: [JSONMemberName: Int]
        if strategies.usesDefaultKeys {
            table = Dictionary(members.map { (JSONMemberName($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        } else {
            table = convertedKeys(of: members, at: object)
        }
        lookups[slot] = (object, table)
        return table
    }
}
