import Foundation
@testable import HotPotato

/// Feeds HotPotato's incremental JSON parser directly, in chosen pieces.
enum ParserFeeding {
    /// Parses `bytes` fed in pieces that end at `cuts` (offsets into `bytes`, ascending).
    static func parse(
        _ bytes: [UInt8], cuts: [Int] = [], options: JSONParsingOptions = JSONParsingOptions()
    ) throws -> JSON {
        var parser = IncrementalJSONParser(mode: .document, options: options)
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start {
            try bytes[start..<cut].withUnsafeBytes { try parser.feed($0) }
            start = cut
        }
        return try parser.finish()
    }

    /// Records `bytes` (fed in pieces that end at `cuts`) on a tape, then reads the value back
    /// from the tape and the bytes, as decoding does.
    static func parseThroughTape(_ bytes: [UInt8], cuts: [Int] = []) throws -> JSON {
        var parser = IncrementalJSONParser(mode: .tape)
        parser.reserveTape(forDocumentOf: bytes.count)
        var start = 0
        for cut in cuts + [bytes.count] where cut >= start {
            try bytes[start..<cut].withUnsafeBytes { try parser.feed($0) }
            start = cut
        }
        _ = try parser.finish()
        let tape = parser.tape.take()
        return try bytes.withUnsafeBytes { body in
            try tape.withUnsafeBufferPointer { entries in
                let decoder = JSONTapeDecoder(
                    tape: entries, bytes: body, at: 0, strategies: JSONDecodingStrategies(JSONDecoder()), duplicateKeys: .useLast)
                return try decoder.materialize(0)
            }
        }
    }

    /// Parses `bytes` one byte at a time.
    static func parseBytewise(_ bytes: [UInt8], options: JSONParsingOptions = JSONParsingOptions()) throws -> JSON {
        try parse(bytes, cuts: Array(0..<bytes.count), options: options)
    }

    /// The syntax error parsing `bytes` (fed as `cuts` say) throws, or `nil` when it parses.
    static func syntaxError(
        _ bytes: [UInt8], cuts: [Int] = [], options: JSONParsingOptions = JSONParsingOptions()
    ) -> JSONSyntaxError? {
        do {
            _ = try parse(bytes, cuts: cuts, options: options)
            return nil
        } catch let error as JSONSyntaxError {
            return error
        } catch {
            return JSONSyntaxError(reason: "unexpected \(error)", offset: -1, line: 0, column: 0)
        }
    }

    /// The elements a `.lines` or `.elements` parser emits for `bytes` fed in `size`-byte pieces,
    /// and the error that ended it, if any.
    static func elements(
        _ bytes: [UInt8], mode: IncrementalJSONParser.Mode, path: [String] = [], pieceSize: Int = .max
    ) -> (elements: [JSON], error: JSONSyntaxError?) {
        let collected = Collected()
        var parser = IncrementalJSONParser(mode: mode, path: path)
        parser.onElement = { value, position in
            precondition(position.index == collected.values.count, "elements are numbered in order")
            collected.values.append(value)
        }
        do {
            var start = 0
            while start < bytes.count {
                let end = min(bytes.count, start + min(pieceSize, bytes.count - start))
                try bytes[start..<end].withUnsafeBytes { try parser.feed($0) }
                start = end
            }
            _ = try parser.finish()
            return (collected.values, nil)
        } catch let error as JSONSyntaxError {
            return (collected.values, error)
        } catch {
            return (collected.values, JSONSyntaxError(reason: "unexpected \(error)", offset: -1, line: 0, column: 0))
        }
    }

    private final class Collected {
        var values: [JSON] = []
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
