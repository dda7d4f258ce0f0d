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
    /// symbolic link, close-on-exec, with permissions 0600; open for reading too (a download's
    /// checksum reads it back).
    static func createExclusive(_ path: String) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if descriptor < 0 { throw currentError() }
        return descriptor
    }

    /// Writes all of `bytes`, retrying after interruptions and short writes.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws {
        try writeAll(bytes) { base, count, _ in write(descriptor, base, count) }
    }

    /// Calls `write` with what is left of `bytes` (and how far in it is) until all is written,
    /// again after an interruption or a short write.
    private static func writeAll(_ bytes: UnsafeRawBufferPointer, _ write: (UnsafeRawPointer, Int, Int64) -> Int) throws {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        var done: Int64 = 0
        while remaining > 0 {
            let written = write(base, remaining, done)
            if written < 0 {
                if errno == EINTR { continue }
                throw currentError()
            }
            if written == 0 { throw POSIXError(.EIO) }
            base += written
            remaining -= written
            done += Int64(written)
        }
    }

    /// Writes all of `bytes` at `offset` (`pwrite`: the descriptor's own offset does not move),
    /// retrying after interruptions and short writes.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        try writeAll(bytes) { base, count, done in pwrite(descriptor, base, count, off_t(offset + done)) }
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

    /// Whether something is at `path`, as `FileManager.fileExists(atPath:isDirectory:)` answers
    /// it: `nil` when nothing is there (a dangling symbolic link included), else whether it is a
    /// directory, symbolic links followed. On Linux one `stat`, as Foundation makes there, without
    /// the `FileManager` singleton that the first download of a process otherwise set up for it.
    static func itemIsDirectory(atPath path: String) -> Bool? {
        #if os(Linux)
        // Foundation's file system representation of a path with a NUL names no file.
        guard !path.utf8.contains(0) else { return nil }
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return (status.st_mode & S_IFMT) == S_IFDIR
        #else
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return nil }
        return isDirectory.boolValue
        #endif
    }

    /// The permissions a new file gets from `open(…, 0666)` under the process's umask, learnt
    /// once without changing the umask (`umask(2)` sets it as it reads it, which races with every
    /// other thread that creates a file): from Linux's /proc/self/status, else by creating a file
    /// with 0666 and reading what it got (Apple platforms, a Linux without /proc); 0644 only when
    /// neither works.
    static let regularFileMode: mode_t = umaskFromStatus().map { 0o666 & ~$0 } ?? modeOfNewFile() ?? 0o644

    /// The mode a file created with 0666 gets, in the temporary directory: what the umask leaves
    /// of 0666. The file is removed at once.
    static func modeOfNewFile(in directory: String = NSTemporaryDirectory()) -> mode_t? {
        let path = (directory.hasSuffix("/") ? directory : directory + "/") + ".hotpotato-mode-\(getpid())-\(UInt64.random(in: 0 ... .max))"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return nil }
        defer {
            unlink(path)
            try? close(descriptor)
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        return status.st_mode & 0o777
    }

    /// The umask as Linux reports it in /proc/self/status, or `nil` where it does not.
    ///
    /// Read with `open` and `read` rather than Foundation: the first file a process writes waits
    /// for this, and Foundation's reading, splitting and trimming cost about 600,000 instructions.
    static func umaskFromStatus() -> mode_t? {
        let descriptor = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { try? close(descriptor) }
        var status = [UInt8](repeating: 0, count: 16 * 1024)
        var count = 0
        while count < status.count {
            let got = status.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress! + count, buffer.count - count)
            }
            guard got > 0 else { break }
            count += got
        }
        return umask(inStatus: status[..<count])
    }

    /// The octal value of the `Umask:` line of /proc/self/status, spaces and tabs around it
    /// ignored; `nil` when there is no such line or it holds anything else.
    static func umask(inStatus status: ArraySlice<UInt8>) -> mode_t? {
        let key = Array("Umask:".utf8)
        for line in status.split(separator: UInt8(ascii: "\n")) where line.starts(with: key) {
            let value = line.dropFirst(key.count).drop { $0 == 0x20 || $0 == 0x09 }
            let digits = value.prefix { $0 != 0x20 && $0 != 0x09 }
            guard !digits.isEmpty, value.dropFirst(digits.count).allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { return nil }
            var mask: mode_t = 0
            for digit in digits {
                guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "7"), mask < 0o1000_0000 else { return nil }
                mask = mask * 8 + mode_t(digit - UInt8(ascii: "0"))
            }
            return mask
        }
        return nil
    }

    static func currentError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }
}
