import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The file operations that keep a download's files private to it: anonymous files that vanish
/// if the process dies, exclusive locks, and the checks that refuse a file planted by someone
/// else (a symbolic link, a hard link to another file, another user's file).
extension POSIXFile {
    #if os(Linux)
    /// `O_TMPFILE`, which Glibc's Swift overlay does not import: `__O_TMPFILE | O_DIRECTORY`, with
    /// the generic value of `__O_TMPFILE` (x86_64, arm64, arm, riscv, powerpc). A kernel or file
    /// system without it answers `EINVAL`, `EISDIR` or `EOPNOTSUPP`, and callers fall back.
    private static let temporaryFileFlag: Int32 = 0o20000000 | O_DIRECTORY
    #endif

    /// `HOTPOTATO_NO_ANONYMOUS_FILES=1` in the environment makes ``openAnonymous(in:)`` answer
    /// `nil`, as on a system without anonymous files: the named fallback, exercised by the tests
    /// on Linux (in a process of their own), and a diagnostic switch.
    ///
    /// Read with `getenv`: `ProcessInfo.environment` builds a dictionary of the whole environment
    /// (about 800,000 instructions, a conformance look-up among them), which the first download
    /// of a process waited for.
    static let anonymousFilesDisabled: Bool = {
        guard let value = getenv("HOTPOTATO_NO_ANONYMOUS_FILES") else { return false }
        return strcmp(value, "1") == 0
    }()

    /// Opens a new anonymous file in `directory` (`O_TMPFILE`, mode 0600): it has no name, so a
    /// crash or a kill leaves nothing behind, until ``linkAnonymous(_:to:)`` gives it one.
    /// Returns `nil` where that is not supported (not Linux, an old kernel, a file system without
    /// it, no `/proc` to link through); other errors are thrown.
    static func openAnonymous(in directory: String) throws -> Int32? {
        #if os(Linux)
        guard !anonymousFilesDisabled, access("/proc/self/fd", X_OK) == 0 else { return nil }
        let descriptor = open(directory, temporaryFileFlag | O_RDWR | O_CLOEXEC, 0o600)
        if descriptor >= 0 { return descriptor }
        switch errno {
        case EINVAL, EISDIR, EOPNOTSUPP, ENOTSUP: return nil
        default: throw currentError()
        }
        #else
        return nil
        #endif
    }

    /// Gives the anonymous file `descriptor` the name `path`, atomically, only if nothing exists
    /// there (`EEXIST` otherwise).
    static func linkAnonymous(_ descriptor: Int32, to path: String) throws {
        #if os(Linux)
        if linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, path, AT_SYMLINK_FOLLOW) != 0 {
            throw currentError()
        }
        #else
        throw POSIXError(.ENOTSUP)
        #endif
    }

    /// Takes an exclusive lock on the open file, without waiting: `false` when another open file
    /// (in this process or another) holds one.
    static func tryLock(_ descriptor: Int32) throws -> Bool {
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            if errno == EWOULDBLOCK || errno == EAGAIN { return false }
            throw currentError()
        }
        return true
    }

    /// The status of an open file.
    static func status(_ descriptor: Int32) throws -> stat {
        var status = stat()
        if fstat(descriptor, &status) != 0 { throw currentError() }
        return status
    }

    /// The status of `path` itself (never through a link), or `nil` when there is nothing there.
    static func linkStatus(_ path: String) -> stat? {
        var status = stat()
        return lstat(path, &status) == 0 ? status : nil
    }

    /// Whether a file is one this process may trust as its own: a regular file, owned by the
    /// effective user, with no other name (a hard link would make writes reach another file).
    static func isPrivate(_ status: stat) -> Bool {
        (status.st_mode & S_IFMT) == S_IFREG && status.st_uid == geteuid() && status.st_nlink == 1
    }

    /// Whether two statuses describe the same file.
    static func sameFile(_ a: stat, _ b: stat) -> Bool {
        a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// Opens `path` for reading and writing only if it is a private file (see ``isPrivate(_:)``),
    /// never through a symbolic link and never blocking on a FIFO. Returns `nil` for anything
    /// else there, which is left alone; throws `ENOENT` when there is nothing.
    static func openPrivate(_ path: String, flags: Int32 = O_RDWR) throws -> (descriptor: Int32, status: stat)? {
        let descriptor = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { throw POSIXError(.ENOENT) }
            return nil  // A symbolic link (ELOOP), a FIFO without a reader, no permission …
        }
        guard let status = try? status(descriptor), isPrivate(status) else {
            _ = try? close(descriptor)
            return nil
        }
        return (descriptor, status)
    }

    /// Reads up to `limit` bytes of a private file at `path`; `nil` when it is missing, not
    /// private, larger, or unreadable.
    static func readPrivate(_ path: String, limit: Int) -> Data? {
        guard let opened = try? openPrivate(path, flags: O_RDONLY) else { return nil }
        defer { _ = try? close(opened.descriptor) }
        guard opened.status.st_size <= limit else { return nil }
        var data = Data(count: Int(opened.status.st_size))
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            guard let base = buffer.baseAddress else { return true }
            var offset = 0
            while offset < buffer.count {
                let got = read(opened.descriptor, base + offset, buffer.count - offset)
                if got < 0 && errno == EINTR { continue }
                if got <= 0 { return false }
                offset += got
            }
            return true
        }
        return complete ? data : nil
    }
}
