import Foundation
#if canImport(Glibc)
import Glibc

/// A child process started with `posix_spawn` itself rather than Foundation's `Process` (which
/// closes the descriptors it finds open): as a process an application spawns with a plain
/// `fork` and `exec`, it inherits every descriptor of the test process that is not
/// close-on-exec — which is what the close-on-exec tests look for.
struct SpawnedChild {
    let pid: pid_t

    /// Starts `arguments` (the first is the executable's path). With `inheriting`, the child
    /// keeps every descriptor that is not close-on-exec; without, only its standard input (from
    /// `/dev/null`), output and error (to `output`, or `/dev/null`).
    static func spawn(_ arguments: [String], inheriting: Bool, output: String = "/dev/null") throws -> SpawnedChild {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if !inheriting {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
                throw POSIXError(.ENOSYS)
            }
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        // With the tests' other spawns kept out: an inheriting child spawned while a pipe is being
        // made close-on-exec would keep its write end, and its reader waiting, for a minute.
        let status = ChildProcesses.serialised { posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) }
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        return SpawnedChild(pid: pid)
    }

    /// What each of the child's descriptors refers to (`socket:[INODE]`, `pipe:[INODE]`, a
    /// path), by number.
    func descriptors() -> [Int32: String] {
        let directory = "/proc/\(pid)/fd"
        var result: [Int32: String] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            guard let fd = Int32(name),
                  let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)") else { continue }
            result[fd] = target
        }
        return result
    }

    /// Whether the child's descriptor `fd` is close-on-exec (`O_CLOEXEC` in its
    /// `/proc/PID/fdinfo` flags), or `nil` once it is gone.
    func isCloseOnExec(_ fd: Int32) -> Bool? {
        guard let text = readProcFile("/proc/\(pid)/fdinfo/\(fd)"),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("flags:") }),
              let flags = Int(line.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8) else { return nil }
        return flags & Int(O_CLOEXEC) != 0
    }

    /// Stops the child (SIGKILL: see ``ManagedProcess``) and reaps it.
    func kill() {
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
    }

    /// Waits for the child to exit by itself; its exit status, or `nil` when a signal ended it.
    func wait() -> Int32? {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status & 0x7f == 0 ? (status >> 8) & 0xff : nil
    }
}

/// The whole text of a file of `/proc`, read to its end: Foundation reads such a file (whose
/// size reads as 0) only as far as its first page.
func readProcFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { _ = close(fd) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = read(fd, &buffer, buffer.count)
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        data.append(contentsOf: buffer[0..<count])
    }
    return String(decoding: data, as: UTF8.self)
}

/// The inodes of this process's TCP sockets connected to 127.0.0.1:`port` (from
/// `/proc/net/tcp`; a descriptor of a socket reads `socket:[INODE]`).
func tcpConnectionInodes(toPort port: UInt16) -> Set<String> {
    guard let table = readProcFile("/proc/net/tcp") else { return [] }
    var inodes: Set<String> = []
    for line in table.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count > 9, let remotePort = fields[2].split(separator: ":").last,
              UInt16(remotePort, radix: 16) == port, fields[9] != "0" else { continue }
        inodes.insert("socket:[\(fields[9])]")
    }
    return inodes
}
#endif
