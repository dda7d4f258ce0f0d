import Foundation

/// httpbin (the PyPI package) on 127.0.0.1, for HTTP semantics: statuses, content types and
/// charsets, gzip, /drip, /stream, redirects, /range, /delay, response headers.
final class HTTPBinServer: Sendable {
    let port: UInt16
    let process: ManagedProcess

    static var isInstalled: Bool {
        guard let python = findExecutable("python3") else { return false }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: python)
        check.arguments = ["-c", "import httpbin"]
        check.standardOutput = FileHandle.nullDevice
        check.standardError = FileHandle.nullDevice
        guard (try? ChildProcesses.run(check)) != nil else { return false }
        guard (try? ChildProcesses.waitForExit(check)) != nil else { return false }
        return check.terminationStatus == 0
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func url(_ pathAndQuery: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")! }

    static func start() throws -> HTTPBinServer {
        guard let python = findExecutable("python3"), isInstalled else { throw ServerError.notInstalled("httpbin") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hotpotato-httpbin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let port = try freeLoopbackPort()
        let process = try ManagedProcess(
            name: "httpbin", executable: python,
            arguments: ["-m", "httpbin.core", "--host", "127.0.0.1", "--port", String(port)],
            workingDirectory: directory, environment: ["PYTHONUNBUFFERED": "1"])
        guard waitForPort(port, timeout: 30) else {
            process.stop()
            throw ServerError.didNotStart("httpbin", process.logTail())
        }
        return HTTPBinServer(port: port, process: process)
    }

    private init(port: UInt16, process: ManagedProcess) {
        self.port = port
        self.process = process
    }
}
