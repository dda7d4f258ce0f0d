extension IncrementalJSONParser {
    // MARK: - Opening and closing

    mutating func push(isObject: Bool, at offset: Int64) throws {
        guard frames.count < options.maximumDepth else {
            throw syntaxError("The document nests deeper than \(options.maximumDepth) levels", at: offset)
        }
        let role: Role
        if let parent = frames.last {
            switch parent.role {
            case .build, .target: role = .build
            case .skip: role = .skip
            case .tape: role = .tape
            case .path(let component): role = try childRole(parent, component: component, isArray: !isObject, at: offset)
            }
        } else {
            switch mode {
            case .tape:
                role = .tape
            case .document, .lines:
                role = .build
            case .elements:
                if path.isEmpty {
                    guard !isObject else { throw syntaxError("The document is not an array", at: offset) }
                    role = .target
                } else {
                    role = .path(0)
                }
            }
        }
        if case .tape = role {
            frames.append(Frame(isObject: isObject, role: role, valueStart: tape.count, keyStart: tapeKeyFingerprints.count))
            tape.append(JSONTapeEntry(kind: isObject ? .object : .array))
            return
        }
        if case .target = role { targetSeen = true }
        var frame = Frame(isObject: isObject, role: role, valueStart: stack.valueCount, keyStart: stack.keyCount)
        if isObject, case .build = role, frames.count < predictedKeys.count, predictedKeys[frames.count] != nil {
            frame.predicting = true
        }
        frames.append(frame)
    }

    /// The role of a child of a frame on the key path.
    private mutating func childRole(_ parent: Frame, component: Int, isArray: Bool, at offset: Int64) throws -> Role {
        guard matches(parent, component: component) else { return .skip }
        if component + 1 == path.count {
            guard isArray else {
                throw syntaxError("The value at \"\(path.joined(separator: "."))\" is not an array", at: offset)
            }
            return .target
        }
        return .path(component + 1)
    }

    /// Whether the child a frame on the key path is reading now is the path's next component.
    private mutating func matches(_ frame: Frame, component: Int) -> Bool {
        frame.isObject ? frame.keyMatches : pathIndices[component] == frame.count
    }

    /// Closes the innermost container; returns what comes next.
    mutating func close(isObject: Bool, at offset: Int64) throws -> Expect {
        tokenEnd = offset + 1
        let frame = frames.removeLast()
        guard case .build = frame.role else {
            if case .tape = frame.role {
                tape[frame.valueStart].payload = UInt32(tape.count)
                tape[frame.valueStart].length = UInt32(frame.count)
                if frame.hasIndex { tape[frame.valueStart].flags = JSONTapeEntry.mayRepeatKeys }
                tapeKeyFingerprints.removeAll(from: frame.keyStart)
            }
            return completeUnbuilt()
        }
        if isObject {
            let depth = frames.count
            if frame.predicting, let predicted = predictedKeys[depth], predicted.count == frame.count {
                let values = stack.popArray(from: frame.valueStart, minimumCapacity: JSONValueStack.objectCapacity)
                return try complete(.object(JSON.Object(keys: predicted, values: values)), at: offset)
            }
            var frame = frame
            if frame.predicting {
                // Fewer keys than predicted: put those read on the stack after all.
                frames.append(frame)
                try unpredict(depth, keys: frame.count)
                frame = frames.removeLast()
            }
            let positions = frame.hasIndex ? keyIndexes.removeValue(forKey: depth) : nil
            let object = stack.popObject(
                keysFrom: frame.keyStart, valuesFrom: frame.valueStart, positions: positions, keySets: &objectKeys)
            if !object.isEmpty {
                if depth >= predictedKeys.count { predictedKeys.append(contentsOf: repeatElement(nil, count: depth + 1 - predictedKeys.count)) }
                predictedKeys[depth] = object.keySet
            }
            return try complete(.object(object), at: offset)
        }
        guard !frames.isEmpty else {
            // The top-level array: its elements are already in an array of their own.
            var elements: [JSON] = []
            swap(&elements, &rootElements)
            return try complete(.array(elements), at: offset)
        }
        return try complete(.array(stack.popArray(from: frame.valueStart)), at: offset)
    }

    // MARK: - Completed values

    /// Whether a value completed now is kept, rather than only checked.
    var isBuilding: Bool {
        guard let top = frames.last else {
            if case .elements = mode { return false }
            return true
        }
        switch top.role {
        case .build, .target: return true
        case .skip, .path, .tape: return false
        }
    }

    /// Records a number that starts at `offset` and ends at ``tokenEnd`` on the tape; returns what
    /// comes next.
    mutating func recordNumber(at offset: Int64) throws -> Expect {
        tape.append(JSONTapeEntry(kind: .number, payload: try tapeOffset(offset), length: UInt32(tokenEnd - offset)))
        return completeUnbuilt()
    }

    /// Whether values are recorded on the tape rather than made.
    var isRecording: Bool {
        if let top = frames.last { return top.role == .tape }
        if case .tape = mode { return true }
        return false
    }

    /// Records a number or a literal on the tape; `offset` is where it starts, ``tokenEnd`` where
    /// it ends.
    private mutating func record(_ value: borrowing JSON, at offset: Int64) throws {
        switch value {
        case .number:
            tape.append(JSONTapeEntry(kind: .number, payload: try tapeOffset(offset), length: UInt32(tokenEnd - offset)))
        case .bool(let flag):
            tape.append(JSONTapeEntry(kind: flag ? .true : .false))
        case .null:
            tape.append(JSONTapeEntry(kind: .null))
        case .string, .array, .object:
            break
        }
    }

    /// An offset as the tape keeps it.
    private mutating func tapeOffset(_ offset: Int64) throws -> UInt32 {
        guard let narrow = UInt32(exactly: offset) else {
            throw syntaxError("The document is too large to be decoded from a tape (4 GiB at most)", at: offset)
        }
        return narrow
    }

    /// A value is complete: add it to its container, emit it, or end the document. Returns what
    /// comes next.
    mutating func complete(_ value: consuming JSON, at offset: Int64) throws -> Expect {
        let top = frames.count - 1
        guard top >= 0 else {
            switch mode {
            case .tape:
                try record(value, at: offset)
                return .end
            case .document:
                root = value
                return .end
            case .lines:
                try emit(value)
                return .lineEnd
            case .elements:
                throw syntaxError("The document is not an array", at: offset)
            }
        }
        switch frames[top].role {
        case .build:
            let duplicateOf = frames[top].duplicateOf
            if duplicateOf < 0 {
                if top == 0 && !frames[0].isObject {
                    rootElements.append(value)
                } else {
                    stack.push(value)
                }
            } else {
                frames[top].duplicateOf = -1
                if case .useLast = options.duplicateKeys {
                    stack.replaceValue(at: frames[top].valueStart + duplicateOf, with: value)
                }
            }
        case .tape:
            try record(value, at: offset)
        case .target:
            try emit(value)
        case .path(let component):
            if matches(frames[top], component: component), component + 1 == path.count {
                throw syntaxError("The value at \"\(path.joined(separator: "."))\" is not an array", at: offset)
            }
        case .skip:
            break
        }
        frames[top].count += 1
        return .commaOrEnd
    }

    /// A string value is complete: built when it is kept, otherwise only checked.
    mutating func completeString(
        _ base: UnsafePointer<UInt8>, from start: Int, to end: Int, flags: StringFlags, origin: Int64
    ) throws -> Expect {
        if isRecording {
            try checkString(base, from: start, to: end, flags: flags, origin: origin)
            tape.append(JSONTapeEntry(
                kind: .string, payload: try tapeOffset(origin + Int64(start)), length: UInt32(end - start), flags: flags.tapeFlags))
            return completeUnbuilt()
        }
        if isBuilding {
            let string = try makeString(base, from: start, to: end, flags: flags, origin: origin)
            return try complete(.string(string), at: origin + Int64(start - 1))
        }
        try checkString(base, from: start, to: end, flags: flags, origin: origin)
        return try complete(.null, at: origin + Int64(start - 1))
    }

    /// A container that was only checked is complete.
    private mutating func completeUnbuilt() -> Expect {
        guard !frames.isEmpty else { return .end }
        frames[frames.count - 1].count += 1
        return .commaOrEnd
    }

    // MARK: - Keys

    /// Reads the key between `start` and `end` for the open object, applying the duplicate-key
    /// policy.
    mutating func readKey(
        _ base: UnsafePointer<UInt8>, from start: Int, to end: Int, flags: StringFlags, origin: Int64
    ) throws {
        let top = frames.count - 1
        switch frames[top].role {
        case .build:
            if frames[top].predicting {
                // The key the last object at this depth had here: only its bytes are compared.
                let index = frames[top].count
                if !flags.hasEscape, let predicted = predictedKeys[top], index < predicted.count,
                   predicted.spells(index, UnsafeBufferPointer(start: base + start, count: end - start)) {
                    return
                }
                try unpredict(top, keys: index)
            }
            let key: String
            let fingerprint: UInt64
            if flags.hasEscape {
                key = try makeString(base, from: start, to: end, flags: flags, origin: origin)
                fingerprint = scratch.withUnsafeBufferPointer {
                    JSONValueStack.fingerprint($0.baseAddress!, count: $0.count)
                }
            } else {
                fingerprint = JSONValueStack.fingerprint(base + start, count: end - start)
                if let cached = keyCache.key(base + start, count: end - start, fingerprint: fingerprint) {
                    key = cached
                } else {
                    key = try makeString(base, from: start, to: end, flags: flags, origin: origin)
                    keyCache.insert(key, count: end - start, fingerprint: fingerprint)
                }
            }
            try insertKey(key, fingerprint: fingerprint, into: top, at: origin + Int64(start - 1))
        case .path(let component):
            let key = try makeString(base, from: start, to: end, flags: flags, origin: origin)
            frames[top].keyMatches = JSONMemberName.same(key, path[component])
        case .tape:
            try checkString(base, from: start, to: end, flags: flags, origin: origin)
            let fingerprint: UInt64
            if flags.hasEscape {
                fingerprint = scratch.withUnsafeBufferPointer { JSONValueStack.fingerprint($0.baseAddress!, count: $0.count) }
            } else {
                fingerprint = JSONValueStack.fingerprint(base + start, count: end - start)
            }
            // Equal fingerprints may be equal keys: the decoder then looks keys up by the
            // duplicate-key policy. Large objects are left to it as well.
            let keyStart = frames[top].keyStart
            let bit: UInt64 = 1 << ((fingerprint &* 0x9E37_79B9_7F4A_7C15) >> 58)
            let seen = frames[top].keyBits & bit != 0
            frames[top].keyBits |= bit
            if seen && !frames[top].hasIndex
                && (tapeKeyFingerprints.count - keyStart > 64 || tapeKeyFingerprints.contains(fingerprint, from: keyStart)) {
                frames[top].hasIndex = true
            }
            tapeKeyFingerprints.append(fingerprint)
            tape.append(JSONTapeEntry(
                kind: .key, payload: try tapeOffset(origin + Int64(start)), length: UInt32(end - start), flags: flags.tapeFlags))
        case .skip, .target:
            try checkString(base, from: start, to: end, flags: flags, origin: origin)
        }
    }

    /// The object at depth `top` turns out not to have the keys predicted for it: its first
    /// `count` keys, which it had, are put on the stack as ``readKey(_:from:to:flags:origin:)``
    /// would have put them.
    private mutating func unpredict(_ top: Int, keys count: Int) throws {
        frames[top].predicting = false
        guard count > 0, let predicted = predictedKeys[top] else { return }
        for index in 0..<count {
            let key = predicted.keys[index]
            let fingerprint = JSONMemberName.withBytes(key) { bytes in
                bytes.baseAddress.map { JSONValueStack.fingerprint($0, count: bytes.count) } ?? JSONValueStack.emptyFingerprint
            }
            try insertKey(key, fingerprint: fingerprint, into: top, at: tokenEnd)
        }
    }

    private mutating func insertKey(_ key: String, fingerprint: UInt64, into top: Int, at offset: Int64) throws {
        // The frame's fields one by one: copying the whole frame, just written field by field,
        // stalls on store forwarding.
        let hasIndex = frames[top].hasIndex
        let keyStart = frames[top].keyStart
        let existing: Int?
        if hasIndex {
            existing = keyIndexes[top]![JSONMemberName(key)]
        } else {
            let bit: UInt64 = 1 << ((fingerprint &* 0x9E37_79B9_7F4A_7C15) >> 58)
            let seen = frames[top].keyBits & bit != 0
            frames[top].keyBits |= bit
            existing = seen ? stack.position(of: key, fingerprint: fingerprint, from: keyStart) : nil
        }
        if let existing {
            if case .reject = options.duplicateKeys {
                throw syntaxError("The key \"\(key)\" appears twice in an object", at: offset)
            }
            frames[top].duplicateOf = existing
            return
        }
        let position = stack.keyCount - keyStart
        if hasIndex {
            keyIndexes[top]![JSONMemberName(key)] = position
        } else if position == JSON.Object.indexThreshold {
            var positions = [JSONMemberName: Int](minimumCapacity: 2 * position)
            for index in 0..<position { positions[JSONMemberName(stack.key(at: keyStart + index))] = index }
            positions[JSONMemberName(key)] = position
            keyIndexes[top] = positions
            frames[top].hasIndex = true
        }
        stack.pushKey(key, fingerprint: fingerprint)
    }
}
