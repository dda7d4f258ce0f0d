import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One piece of the body given with `-d`, `--data-binary` or `--data-raw`, as curl takes them:
///
/// - `-d TEXT` (`--data`, `--data-ascii`): the text; `-d @FILE` the contents of FILE with every
///   carriage return and line feed removed (`@-`: standard input);
/// - `--data-binary TEXT`: the same, but `@FILE` is sent byte for byte;
/// - `--data-raw TEXT`: the text as it is, even when it starts with `@`;
/// - `--data-urlencode`: a piece URL-encoded (see ``urlEncoded(_:)``).
///
/// Several pieces are joined with `&`, as curl joins them.
indirect enum DataArgument: Equatable, Sendable {
    /// Text sent as it is.
    case text(String)
    /// A file's contents (`-` for standard input), without CR and LF when `stripsLineBreaks`.
    case file(path: String, stripsLineBreaks: Bool)
    /// `content` (text or a file) URL-encoded, after `name=` when there is a name.
    case encoded(name: String?, content: DataArgument)

    /// The piece `option`'s `value` gives.
    static func parse(_ value: String, option: String) -> DataArgument {
        guard option != "--data-raw", value.hasPrefix("@") else { return .text(value) }
        return .file(path: String(value.dropFirst()), stripsLineBreaks: option != "--data-binary")
    }

    /// Why a body could not be read from a file.
    enum ReadFailure: Error {
        /// The file cannot be opened or read.
        case unreadable(String)
        /// Nothing came from it (a FIFO or standard input) for the idle timeout.
        case timedOut(String)
    }

    /// The body of `pieces`, joined with `&`; a file is read through ``read(_:idleTimeout:)``.
    static func body(of pieces: [DataArgument], idleTimeout: TimeInterval) throws(ReadFailure) -> Data {
        var body = Data()
        for (index, piece) in pieces.enumerated() {
            if index > 0 { body.append(UInt8(ascii: "&")) }
            body.append(try bytes(of: piece, idleTimeout: idleTimeout))
        }
        return body
    }

    /// The bytes one piece sends.
    private static func bytes(of piece: DataArgument, idleTimeout: TimeInterval) throws(ReadFailure) -> Data {
        switch piece {
        case .text(let text):
            return Data(text.utf8)
        case .file(let path, let strips):
            let contents = try read(path, idleTimeout: idleTimeout)
            return strips ? contents.filter { $0 != 0x0D && $0 != 0x0A } : contents
        case .encoded(let name, let content):
            let encoded = percentEncoded(try bytes(of: content, idleTimeout: idleTimeout))
            return Data(((name.map { $0 + "=" } ?? "") + encoded).utf8)
        }
    }

    /// The contents of the file at `path` (`-` for standard input), read without ever blocking
    /// for longer than `idleTimeout` without a byte: a FIFO is opened without blocking (a FIFO
    /// without a writer would block `open(2)` forever) and read when `poll` says it has bytes or
    /// its end, so one whose writer does not come, or writes nothing, fails as a request that gets
    /// no answer does.
    static func read(_ path: String, idleTimeout: TimeInterval) throws(ReadFailure) -> Data {
        let name = path == "-" ? "standard input" : path
        let descriptor = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .unreadable("\(name): \(String(cString: strerror(errno)))") }
        defer { if descriptor != STDIN_FILENO { _ = close(descriptor) } }
        var contents = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let slice = max(1, Int32(min(idleTimeout, 86_400) * 1000))
        while true {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, slice)
            if ready < 0 {
                if errno == EINTR { continue }
                throw .unreadable("\(name): \(String(cString: strerror(errno)))")
            }
            if ready == 0 { throw .timedOut("nothing came from \(name) for \(Int(idleTimeout.rounded(.up))) s") }
            #if canImport(Glibc)
            let count = Glibc.read(descriptor, &buffer, buffer.count)
            #else
            let count = Darwin.read(descriptor, &buffer, buffer.count)
            #endif
            if count == 0 { return contents }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                throw .unreadable("\(name): \(String(cString: strerror(errno)))")
            }
            contents.append(contentsOf: buffer[..<count])
        }
    }
}

extension DataArgument {
    /// `--data-urlencode`'s piece, as curl reads it: `content` and `=content` send the content
    /// URL-encoded, `name=content` sends `name=` and the content encoded, `@file` and `name@file`
    /// the same with the file's bytes (`-` for standard input). The name is sent as it is.
    static func urlEncoded(_ value: String) -> DataArgument {
        guard let mark = value.firstIndex(where: { $0 == "=" || $0 == "@" }) else { return .encoded(name: nil, content: .text(value)) }
        let name = value[..<mark].isEmpty ? nil : String(value[..<mark])
        let rest = String(value[value.index(after: mark)...])
        return .encoded(name: name, content: value[mark] == "@" ? .file(path: rest, stripsLineBreaks: false) : .text(rest))
    }

    /// `bytes` URL-encoded as curl encodes them: every byte but the unreserved letters, digits and
    /// `-._~` as `%XX`.
    static func percentEncoded(_ bytes: Data) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        encoded.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.append(byte)
            default:
                encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }
}
