import BenchmarkFixtures
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// bench-server (beside this executable) on 127.0.0.1 … 127.0.0.`hosts`, one port for all,
/// for the scale scenarios. Stopped by `stop()` (SIGKILL: it holds nothing to clean up).
final class BenchServerFixture {
    let port: Int
    let hosts: Int
    private var pid: pid_t

    init(executable: String, hosts: Int) throws {
        let readyFile = FileManager.default.temporaryDirectory.appendingPathComponent("bench-server-\(UUID().uuidString).port").path
        defer { unlink(readyFile) }
        pid = try spawnBackground(executable, ["--hosts", String(hosts), "--ready-file", readyFile])
        self.hosts = hosts
        var port: Int?
        for _ in 0..<200 {
            if let text = try? String(contentsOfFile: readyFile, encoding: .utf8), let value = Int(text) {
                port = value
                break
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                pid = 0
                throw HarnessError("bench-server ended at once (status \(status)): see its message above")
            }
            usleep(50_000)
        }
        guard let port else {
            kill(pid, SIGKILL)
            throw HarnessError("bench-server did not start within 10 s")
        }
        self.port = port
    }

    /// The server's counts (`/stats`), restarting its peaks when `reset`: a plain socket and
    /// `Connection: close`, so that the harness keeps no connection (nor a URLSession) of its own.
    func stats(reset: Bool = false) -> [String: Int] {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return [:] }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let request = "GET /stats\(reset ? "?reset=1" : "") HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
        guard connected == 0, write(descriptor, request, request.utf8.count) == request.utf8.count else { return [:] }
        var response = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count <= 0 { break }
            response += buffer[0..<count]
        }
        let text = String(decoding: response, as: UTF8.self)
        guard let body = text.range(of: "\r\n\r\n").map({ text[$0.upperBound...] }),
              let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Int]
        else { return [:] }
        return object
    }

    /// Waits (up to `seconds`) until the server holds no connection but the one asking: the
    /// previous client's connections are gone before the next client starts.
    func waitUntilIdle(seconds: Double = 15) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let connections = stats()["connections"], connections <= 1 { return }
            usleep(200_000)
        }
    }

    func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        pid = 0
    }
}
