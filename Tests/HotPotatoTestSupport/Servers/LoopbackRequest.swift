import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One HTTP/1.1 request as a test server reads it: the request line, the headers (names
/// lowercased), and the body — with a `Content-Length` or chunked — of which at most a given
/// number of bytes is kept (the rest is counted and dropped, so a gigabyte costs no memory).
struct LoopbackRequest {
    let method: String
    let path: String
    let query: [String: String]
    let headers: [String: String]
    /// The first bytes of the body, up to the limit asked for.
    var body = Data()
    /// The body's length, all of it.
    var bodyLength = 0
    /// Whether the body came chunked.
    var chunked = false
    /// Whether the body was read to its end (not cut by a closed connection or a bad framing).
    var complete = false
    /// For a body left unread: how many of its bytes were read with the head all the same (the
    /// rest is still in the socket).
    var bufferedBodyBytes = 0

    /// Reads a request from `connection`; `keep` says how many body bytes to keep for a path, and
    /// a negative count leaves the body unread. `nil` when no request head arrives.
    static func read(_ connection: Int32, keep: (String) -> Int) -> LoopbackRequest? {
        var input = Input(connection: connection)
        return read(&input, keep: keep)
    }

    /// Reads requests one after another from a kept-alive `connection`, handing each to `serve`
    /// until it returns `false` or the client goes.
    static func serveKeptAlive(_ connection: Int32, keep: (String) -> Int, serve: (LoopbackRequest, Int) -> Bool) {
        var input = Input(connection: connection)
        var index = 0
        while let request = read(&input, keep: keep), serve(request, index) { index += 1 }
    }

    private static func read(_ input: inout Input, keep: (String) -> Int) -> LoopbackRequest? {
        guard let head = input.head(), let requestLine = head.first?.split(separator: " "), requestLine.count >= 2,
              let components = URLComponents(string: String(requestLine[1])) else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        var request = LoopbackRequest(
            method: String(requestLine[0]), path: components.path, query: query, headers: headers)
        let limit = keep(request.path)
        if limit < 0 {
            request.bufferedBodyBytes = input.buffer.count
            return request
        }
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            request.chunked = true
            while let sizeLine = input.line(), let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16) {
                if size == 0 {
                    while let trailer = input.line(), !trailer.isEmpty {}
                    request.complete = true
                    break
                }
                guard input.body(size, into: &request, keeping: limit), input.line() == "" else { break }
            }
        } else {
            let length = Int(headers["content-length"] ?? "") ?? 0
            request.complete = input.body(length, into: &request, keeping: limit)
        }
        return request
    }

    /// Buffered reads from the socket: lines for the head and chunk sizes, counted bulk for bodies.
    private struct Input {
        let connection: Int32
        var buffer: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 256 * 1024)

        mutating func fill() -> Bool {
            let count = recv(connection, &scratch, scratch.count, 0)
            guard count > 0 else { return false }
            buffer += scratch[0..<count]
            return true
        }

        /// The head's lines, without the empty one that ends it.
        mutating func head() -> [String]? {
            var lines: [String] = []
            while let line = line() {
                if line.isEmpty { return lines }
                lines.append(line)
                if lines.count > 200 { return nil }
            }
            return nil
        }

        /// The next line, without its CRLF.
        mutating func line() -> String? {
            while true {
                if let newline = buffer.firstIndex(of: 0x0A) {
                    var end = newline
                    if end > 0 && buffer[end - 1] == 0x0D { end -= 1 }
                    let text = String(decoding: buffer[..<end], as: UTF8.self)
                    buffer.removeFirst(newline + 1)
                    return text
                }
                if buffer.count > 64 * 1024 || !fill() { return nil }
            }
        }

        /// Reads `count` body bytes, keeping them in `request.body` up to `limit`; `false` when
        /// the connection ends first.
        mutating func body(_ count: Int, into request: inout LoopbackRequest, keeping limit: Int) -> Bool {
            var left = count
            func take(_ bytes: ArraySlice<UInt8>, _ request: inout LoopbackRequest) {
                let room = max(0, limit - request.body.count)
                if room > 0 { request.body.append(contentsOf: bytes.prefix(room)) }
                request.bodyLength += bytes.count
            }
            let buffered = min(left, buffer.count)
            take(buffer[0..<buffered], &request)
            buffer.removeFirst(buffered)
            left -= buffered
            while left > 0 {
                let got = recv(connection, &scratch, min(scratch.count, left), 0)
                guard got > 0 else { return false }
                take(scratch[0..<got], &request)
                left -= got
            }
            return true
        }
    }
}
