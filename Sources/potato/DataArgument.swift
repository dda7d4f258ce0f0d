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
/// - `--data-raw TEXT`: the text as it is, even when it starts with `@`.
///
/// Several pieces are joined with `&`, as curl joins them.
enum DataArgument: Equatable {
    /// Text sent as it is.
    case text(String)
    /// A file's contents (`-` for standard input), without CR and LF when `stripsLineBreaks`.
    case file(path: String, stripsLineBreaks: Bool)

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
            switch piece {
            case .text(let text):
                body.append(contentsOf: text.utf8)
            case .file(let path, let strips):
                let contents = try read(path, idleTimeout: idleTimeout)
                body.append(strips ? contents.filter { $0 != 0x0D && $0 != 0x0A } : contents)
            }
        }
        return body
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
