import Foundation

/// A server process the tests start and stop themselves.
///
/// It runs under a small shell supervisor that kills it when the test process goes away, even if
/// the tests crash, and then removes the server's working directory (generated files, logs). At
/// normal exit an `atexit` hook asks every supervisor to stop at once.
final class ManagedProcess: @unchecked Sendable {
    let name: String
    private let process: Process
    let logURL: URL
    let workingDirectory: URL

    private static let running = NSLock()
    nonisolated(unsafe) private static var all: [ManagedProcess] = []
    nonisolated(unsafe) private static var hookInstalled = false

    init(name: String, executable: String, arguments: [String], workingDirectory: URL, environment: [String: String] = [:]) throws {
        self.name = name
        self.workingDirectory = workingDirectory
        logURL = workingDirectory.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try ChildProcesses.fileHandle(forWritingTo: logURL)
        // Signals cannot be relied on: the test process spawns children with most signals blocked,
        // and they inherit that mask. So the supervisor polls instead: it stops the server with
        // SIGKILL once the test process is gone or a stop file appears.
        let supervisor = """
            parent=$1; shift
            "$@" & child=$!
            while kill -0 "$parent" 2>/dev/null && kill -0 "$child" 2>/dev/null \\
                && [ ! -e "$HOTPOTATO_SERVER_DIR/stop" ]; do sleep 0.2; done
            kill -9 $child 2>/dev/null
            wait $child 2>/dev/null
            rm -rf "$HOTPOTATO_SERVER_DIR"
            """
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", supervisor, "supervisor", String(ProcessInfo.processInfo.processIdentifier), executable] + arguments
        process.currentDirectoryURL = workingDirectory
        process.environment = ProcessInfo.processInfo.environment
            .merging(environment) { _, new in new }
            .merging(["HOTPOTATO_SERVER_DIR": workingDirectory.path]) { _, new in new }
        process.standardOutput = log
        process.standardError = log
        try ChildProcesses.run(process)
        Self.running.lock()
        Self.all.append(self)
        if !Self.hookInstalled {
            Self.hookInstalled = true
            atexit { ManagedProcess.stopAll() }
        }
        Self.running.unlock()
    }

    var isRunning: Bool { process.isRunning }

    /// Asks the supervisor to stop the server and remove its directory. It does not wait: at
    /// process exit, Foundation's `waitUntilExit()` can hang.
    func stop() {
        _ = FileManager.default.createFile(atPath: workingDirectory.appendingPathComponent("stop").path, contents: nil)
    }

    /// The end of the server's log, for failure messages.
    func logTail() -> String {
        let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return String(text.suffix(2_000))
    }

    static func stopAll() {
        running.lock()
        let processes = all
        all = []
        running.unlock()
        for process in processes { process.stop() }
    }
}

/// Finds an executable on the PATH or in the usual system folders.
func findExecutable(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    let folders = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/local/sbin", "/sbin", "/usr/bin"]
    for folder in folders {
        let candidate = folder + "/" + name
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
}
