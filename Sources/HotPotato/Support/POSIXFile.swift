import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The few POSIX file operations ``FileWriter`` needs, with `errno` turned into `POSIXError`.
enum POSIXFile {
    /// Creates a new file at `path`: exclusively (never an existing file), never through a
    /// symbolic link, close-on-exec, with permissions 0600.
    static func createExclusive(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor < 0 { throw currentError() }
        return descriptor
    }

    /// Writes all of `bytes`, retrying after interruptions and short writes.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(descriptor, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw currentError()
            }
            if written == 0 { throw POSIXError(.EIO) }
            base += written
            remaining -= written
        }
    }

    static func setMode(_ descriptor: Int32, _ mode: mode_t) throws {
        if fchmod(descriptor, mode) != 0 { throw currentError() }
    }

    /// Closes the descriptor. An error from `close` (NFS reports late write errors there) is
    /// thrown; the descriptor is released either way.
    static func close(_ descriptor: Int32) throws {
        #if canImport(Darwin)
        let result = Darwin.close(descriptor)
        #elseif canImport(Glibc)
        let result = Glibc.close(descriptor)
        #else
        let result = Musl.close(descriptor)
        #endif
        if result != 0 && errno != EINTR { throw currentError() }
    }

    /// Moves `source` to `destination`, atomically replacing any file there.
    static func rename(_ source: String, to destination: String) throws {
        #if canImport(Darwin)
        let result = Darwin.rename(source, destination)
        #elseif canImport(Glibc)
        let result = Glibc.rename(source, destination)
        #else
        let result = Musl.rename(source, destination)
        #endif
        if result != 0 { throw currentError() }
    }

    /// Moves `source` to `destination` only if nothing exists there, atomically; throws `EEXIST`
    /// otherwise. Uses a hard link, then removes `source`; where the file system has no hard links,
    /// falls back to a check followed by a rename.
    static func renameNoReplace(_ source: String, to destination: String) throws {
        if link(source, destination) == 0 {
            unlink(source)
            return
        }
        let linkError = errno
        switch linkError {
        case EEXIST:
            throw POSIXError(.EEXIST)
        case EPERM, ENOTSUP, EOPNOTSUPP, EXDEV, EMLINK:
            if access(destination, F_OK) == 0 || errno != ENOENT { throw POSIXError(.EEXIST) }
            try rename(source, to: destination)
        default:
            throw POSIXError(POSIXErrorCode(rawValue: linkError) ?? .EIO)
        }
    }

    static func remove(_ path: String) {
        unlink(path)
    }

    /// The permissions a new file gets from `open(…, 0666)` under the process's umask, read
    /// without changing it (Linux reports it in /proc/self/status); 0644 where it cannot be read.
    ///
    /// Read and parsed byte by byte: through Foundation (`String(contentsOfFile:)`, `split`,
    /// `trimmingCharacters`) this took a third of a millisecond of a process's first download.
    static let regularFileMode: mode_t = {
        guard let status = procSelfStatus(), let mask = umask(inStatus: status[...]) else { return 0o644 }
        return 0o666 & ~mask
    }()

    /// The bytes of /proc/self/status (its first 8 KiB), or `nil` where there is none.
    private static func procSelfStatus() -> [UInt8]? {
        #if canImport(Glibc) || canImport(Musl)
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        #if canImport(Glibc)
        defer { _ = Glibc.close(fd) }
        #else
        defer { _ = Musl.close(fd) }
        #endif
        var bytes = [UInt8](repeating: 0, count: 8192)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, $0.count - count) }
            if got <= 0 { break }
            count += got
        }
        return Array(bytes[..<count])
        #else
        return nil
        #endif
    }

    /// The octal value of the `Umask:` line of a /proc/PID/status text, or `nil` when it has none.
    static func umask(inStatus status: ArraySlice<UInt8>) -> mode_t? {
        let key = Array("Umask:".utf8)
        var lineStart = status.startIndex
        while lineStart < status.endIndex {
            let lineEnd = status[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? status.endIndex
            let line = status[lineStart..<lineEnd]
            if line.starts(with: key) {
                var value: mode_t = 0
                var digits = 0
                for byte in line.dropFirst(key.count) where !ASCII.isWhitespace(byte) {
                    guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "7"), digits < 6 else { return nil }
                    value = value * 8 + mode_t(byte - UInt8(ascii: "0"))
                    digits += 1
                }
                return digits > 0 ? value : nil
            }
            lineStart = lineEnd + 1
        }
        return nil
    }

    static func currentError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
