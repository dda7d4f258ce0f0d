import Foundation
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The built `potato` binary (beside the test bundle), run in a process of its own.
struct PotatoProcess {
    struct Outcome {
        var status: Int32
        var output: Data
        var error: String
        var text: String { String(decoding: output, as: UTF8.self) }
    }

    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("potato")
    }

    let process = Process()
    private let output = ChildProcesses.pipe()
    private let errors = ChildProcesses.pipe()
    private let collected = CollectedOutput()

    /// Starts `potato` with `arguments` in `directory`, with `environment` added to this
    /// process's, and the file `input` as its standard input (by default, none: `/dev/null`).
    init(_ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:], input: URL? = nil) throws {
        process.executableURL = Self.executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        if let directory { process.currentDirectoryURL = directory }
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = try input.map(Self.readOnly) ?? FileHandle.nullDevice
        try ChildProcesses.run(process)
        // Read both pipes as they fill, so a chatty process never blocks on a full pipe.
        let collected = collected
        let outputHandle = output.fileHandleForReading
        let errorHandle = errors.fileHandleForReading
        collected.group.enter()
        Thread { collected.setOutput(outputHandle.readDataToEndOfFile()); collected.group.leave() }.start()
        collected.group.enter()
        Thread { collected.setError(errorHandle.readDataToEndOfFile()); collected.group.leave() }.start()
    }

    /// A handle reading the file at `url`, opened close-on-exec (no other child inherits it).
    static func readOnly(_ url: URL) throws -> FileHandle {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// The process's identifier.
    var identifier: Int32 { process.processIdentifier }

    /// Sends `signal` to the process.
    func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits (at most 120 s) for the process to exit; returns its status and output.
    func wait() throws -> Outcome {
        guard collected.group.wait(timeout: .now() + 120) == .success else {
            send(SIGKILL)
            throw ServerError.didNotStart("potato", "did not exit within 120 s")
        }
        try ChildProcesses.waitForExit(process, seconds: 30)
        return Outcome(status: process.terminationStatus, output: collected.output, error: String(decoding: collected.error, as: UTF8.self))
    }

    /// Runs `potato` with `arguments` to the end, off Swift's cooperative threads.
    static func run(_ arguments: [String], in directory: URL? = nil) async throws -> Outcome {
        try await offThePool { try PotatoProcess(arguments, in: directory).wait() }
    }

    /// Polls (every 10 ms, at most `seconds`) until `condition` holds.
    static func waitUntil(seconds: Double = 30, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }
}

private final class CollectedOutput: @unchecked Sendable {
    let group = DispatchGroup()
    private let lock = NSLock()
    private var outputData = Data()
    private var errorData = Data()

    var output: Data { lock.lock(); defer { lock.unlock() }; return outputData }
    var error: Data { lock.lock(); defer { lock.unlock() }; return errorData }
    func setOutput(_ data: Data) { lock.lock(); outputData = data; lock.unlock() }
    func setError(_ data: Data) { lock.lock(); errorData = data; lock.unlock() }
}

/// The size of the regular file at `url`, or nil.
func fileSize(_ url: URL) -> Int64? {
    var status = stat()
    guard stat(url.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
    return Int64(status.st_size)
}

/// Whether two files have the same bytes, compared 4 MiB at a time.
func sameContents(_ first: URL, _ second: URL) throws -> Bool {
    let a = try FileHandle(forReadingFrom: first)
    let b = try FileHandle(forReadingFrom: second)
    defer { try? a.close(); try? b.close() }
    while true {
        let left = try a.read(upToCount: 4 << 20) ?? Data()
        let right = try b.read(upToCount: 4 << 20) ?? Data()
        if left != right { return false }
        if left.isEmpty { return true }
    }
}
