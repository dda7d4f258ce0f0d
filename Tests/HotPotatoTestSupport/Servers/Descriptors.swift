import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Descriptors the test servers and process helpers open, every one close-on-exec.
///
/// The suites run tests in parallel and several start processes (nginx, httpbin, potato, curl).
/// Foundation's `Process` on Linux closes, in the child, the descriptors up to the highest it
/// found open *before* it spawned; one another thread opens in between is inherited unless it is
/// close-on-exec. A server's accepted connection inherited that way stays open in the child
/// after the server closes it, so the client never sees the close or the reset the test meant
/// (a clean-clone CI run timed out in `resetMidBody` that way); a pipe's write end inherited
/// that way keeps its reader waiting for an end of file.
enum Descriptors {
    /// A TCP socket that is close-on-exec from its creation.
    static func tcpSocket() -> Int32 {
        #if canImport(Glibc)
        return socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        if fd >= 0 { setCloseOnExec(fd) }
        return fd
        #endif
    }

    /// Accepts a connection on `listener`, close-on-exec from its creation (`accept4` with
    /// `SOCK_CLOEXEC`, which Glibc's Swift module does not declare: it is looked up once).
    static func accept(_ listener: Int32) -> Int32 {
        #if canImport(Glibc)
        return accept4(listener, nil, nil, Int32(SOCK_CLOEXEC.rawValue))
        #else
        let fd = Darwin.accept(listener, nil, nil)
        if fd >= 0 { setCloseOnExec(fd) }
        return fd
        #endif
    }

    static func setCloseOnExec(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFD)
        if flags >= 0 { _ = fcntl(fd, F_SETFD, flags | FD_CLOEXEC) }
    }

    static func isCloseOnExec(_ fd: Int32) -> Bool {
        let flags = fcntl(fd, F_GETFD)
        return flags >= 0 && flags & FD_CLOEXEC != 0
    }

    #if canImport(Glibc)
    private typealias Accept4 = @convention(c) (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?, Int32) -> Int32
    private static let accept4: Accept4 = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "accept4") else {
            fatalError("accept4 is missing from the C library")
        }
        return unsafeBitCast(symbol, to: Accept4.self)
    }()
    #endif
}

/// Starts the tests' child processes one at a time, with the pipes they write to made
/// close-on-exec first, so that no child inherits another's pipe (see ``Descriptors``).
enum ChildProcesses {
    private static let lock = NSLock()

    /// A pipe whose two ends are close-on-exec (`Process` still hands the one it is given to the
    /// child, as its standard input, output or error).
    static func pipe() -> Pipe {
        lock.lock()
        defer { lock.unlock() }
        let pipe = Pipe()
        Descriptors.setCloseOnExec(pipe.fileHandleForReading.fileDescriptor)
        Descriptors.setCloseOnExec(pipe.fileHandleForWriting.fileDescriptor)
        return pipe
    }

    /// A file handle for writing to `url`, close-on-exec.
    static func fileHandle(forWritingTo url: URL) throws -> FileHandle {
        lock.lock()
        defer { lock.unlock() }
        let handle = try FileHandle(forWritingTo: url)
        Descriptors.setCloseOnExec(handle.fileDescriptor)
        return handle
    }

    /// Waits at most `seconds` for `process` to exit, polling: where Foundation never notices an
    /// exit (its one process-watching thread stuck), the test fails instead of hanging the test
    /// process. A process still running then is killed, and the wait throws.
    static func waitForExit(_ process: Process, seconds: TimeInterval = 120) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning {
            guard Date() < deadline else {
                kill(process.processIdentifier, SIGKILL)
                throw ServerError.didNotStart(process.executableURL?.lastPathComponent ?? "a child process",
                                              "did not exit within \(Int(seconds)) s, or its exit was not noticed")
            }
            usleep(10_000)
        }
    }

    /// Runs `body` (a spawn that does not go through ``run(_:)``) while no other child is started
    /// and no pipe is being made close-on-exec.
    static func serialised<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    /// Runs `process` (`Process.run()`), serialised with every other child the tests start.
    static func run(_ process: Process) throws {
        lock.lock()
        defer { lock.unlock() }
        try process.run()
    }

    /// Runs `executable` with `arguments` to its end, its standard output captured (standard
    /// input and error: none); returns its exit status and output.
    static func output(of executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Self.pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try run(process)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        try waitForExit(process)
        return (process.terminationStatus, data)
    }
}
