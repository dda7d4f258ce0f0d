import CCurl
import Foundation

/// Decodes a content-coded body for the libcurl engine, which hands the bytes over as they came:
/// gzip (several members too), deflate (zlib-wrapped or raw), br and zstd, stacked as
/// `Content-Encoding` lists them, with the system's zlib, brotli and zstd (loaded at run time, as
/// libcurl is).
///
/// HotPotato decodes rather than libcurl because libcurl does not tell a stream that stopped
/// before its end from a whole one (a gzip without its last blocks and trailer passed as a
/// complete body), and because a paused transfer let libcurl decode up to 64 MB more into its
/// own buffer. Here a stream that has not reached its end when the body does is a truncated
/// body, and no more than one buffer of output is held: each piece goes to the handler before
/// the next is made, so a handler that stops (a body over its limit) stops the decoding.
final class ContentDecoder {
    /// The most decoded bytes made at a time, at each stage.
    static let bufferSize = 64 * 1024
    /// The most codings a response may stack (as libcurl: more is a hostile response).
    static let maximumCodings = 5

    /// The codings decoded here, as `Accept-Encoding` lists them: those whose library loads.
    static let available: [String] = [("gzip", HP_CODING_GZIP), ("deflate", HP_CODING_DEFLATE), ("br", HP_CODING_BR), ("zstd", HP_CODING_ZSTD)]
        .filter { hp_decoding_available(Int32($0.1)) != 0 }.map(\.0)

    /// The `Accept-Encoding` the libcurl engine sends for a request without one of its own.
    static let acceptEncoding = available.joined(separator: ", ")

    private struct Stage {
        let name: String
        let decoder: OpaquePointer
        let buffer: UnsafeMutableRawBufferPointer
        var fed = false
    }

    /// In decoding order: the coding applied last first.
    private var stages: [Stage] = []
    /// The coded bytes taken.
    private(set) var codedBytes: Int64 = 0
    /// The decoded bytes handed on.
    private(set) var decodedBytes: Int64 = 0

    /// A decoder for `codings` as ``ResponseHead/contentEncodings`` lists them (lowercased, in
    /// the order they were applied, without `identity`). Throws
    /// ``HotPotatoError/Code/malformedResponse`` for more than ``maximumCodings`` or a coding
    /// that cannot be decoded here.
    init(codings: [String]) throws(HotPotatoError) {
        guard codings.count <= Self.maximumCodings else {
            throw HotPotatoError(
                .malformedResponse,
                reason: "The response stacks \(codings.count) content codings (\(codings.joined(separator: ", "))); more than \(Self.maximumCodings) is refused.")
        }
        for name in codings.reversed() {
            let code: Int32?
            switch name {
            case "gzip", "x-gzip": code = Int32(HP_CODING_GZIP)
            case "deflate": code = Int32(HP_CODING_DEFLATE)
            case "br": code = Int32(HP_CODING_BR)
            case "zstd": code = Int32(HP_CODING_ZSTD)
            default: code = nil
            }
            guard let code, let decoder = hp_decoder_create(code) else {
                throw HotPotatoError(
                    .malformedResponse,
                    reason: "The response's content coding \"\(name)\" cannot be decoded here (it decodes \(Self.available.joined(separator: ", ")))."
                )
            }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.bufferSize, alignment: 16)
            stages.append(Stage(name: name, decoder: decoder, buffer: buffer))
        }
    }

    deinit {
        for stage in stages {
            hp_decoder_destroy(stage.decoder)
            stage.buffer.deallocate()
        }
    }

    /// Decodes `bytes`, handing each decoded piece to `deliver` (valid only during the call)
    /// until it returns `false`. Returns `false` when `deliver` did. Throws
    /// ``HotPotatoError/Code/malformedResponse`` for bytes that are not of their coding.
    func decode(_ bytes: UnsafeRawBufferPointer, deliver: (UnsafeRawBufferPointer) -> Bool) throws(HotPotatoError) -> Bool {
        codedBytes += Int64(bytes.count)
        return try feed(0, bytes, deliver)
    }

    /// The body has ended: throws the cause of a truncated body when a stream that began has not
    /// reached its end (nothing at all is an empty body).
    func finish() throws(HotPotatoError) {
        for stage in stages where stage.fed && hp_decoder_ended(stage.decoder) == 0 {
            throw HotPotatoError(
                .malformedResponse,
                reason: "its \(stage.name) stream stopped before its end (\(codedBytes) coded bytes arrived, \(decodedBytes) decoded)")
        }
    }

    private func feed(_ index: Int, _ input: UnsafeRawBufferPointer, _ deliver: (UnsafeRawBufferPointer) -> Bool) throws(HotPotatoError) -> Bool {
        guard index < stages.count else {
            decodedBytes += Int64(input.count)
            return input.isEmpty || deliver(input)
        }
        if !input.isEmpty { stages[index].fed = true }
        let stage = stages[index]
        var offset = 0
        while true {
            var consumed = 0
            var produced = 0
            let rest = input.isEmpty ? nil : input.baseAddress.map { $0 + offset }
            let status = hp_decoder_decode(
                stage.decoder, rest?.assumingMemoryBound(to: UInt8.self), input.count - offset, &consumed,
                stage.buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), stage.buffer.count, &produced)
            guard status == Int32(HP_DECODE_OK) else {
                throw HotPotatoError(
                    .malformedResponse,
                    reason: "The body's \(stage.name) coding is broken after \(decodedBytes) decoded bytes: \(String(cString: hp_decoder_message(stage.decoder))).")
            }
            offset += consumed
            if produced > 0 {
                guard try feed(index + 1, UnsafeRawBufferPointer(rebasing: stage.buffer[..<produced]), deliver) else { return false }
            }
            // More output may wait in the decoder while its buffer was full; else, on to the rest.
            if produced == stage.buffer.count { continue }
            if offset >= input.count { return true }
            if consumed == 0, produced == 0 {
                throw HotPotatoError(
                    .malformedResponse,
                    reason: "The body's \(stage.name) coding is broken after \(decodedBytes) decoded bytes: its decoder takes no more.")
            }
        }
    }
}
