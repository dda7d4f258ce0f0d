import BenchmarkFixtures
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// nginx on 127.0.0.1 with a configuration of the harness's own in a temporary directory, serving
/// the files the cases download over HTTP, and over HTTPS (HTTP/2 or HTTP/1.1) when openssl can
/// make a certificate. Stopped (and the directory removed) by `stop()`.
final class NginxFixture {
    let directory: URL
    let root: URL
    let port: Int
    /// The HTTPS port, when there is one.
    let tlsPort: Int?
    /// The PEM file of the certificate authority that signed the HTTPS certificate.
    let certificateAuthority: String?
    private var pid: pid_t = 0

    /// - Parameter benchServerPort: bench-server's port on 127.0.0.1, when the HTTPS server is to
    ///   proxy `/delay` and `/small` to it (the scale scenarios' HTTP/2 fan-out).
    init(fileSizes: [Int], jsonBytes: Int, benchServerPort: Int? = nil) throws {
        guard let nginx = findExecutable("nginx") else {
            throw HarnessError("nginx is not installed (Debian: apt-get install nginx-light)")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hotpotato-e2e-\(UUID().uuidString)")
        root = directory.appendingPathComponent("html")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("logs"), withIntermediateDirectories: true)
        for size in Set(fileSizes) {
            try Self.writeFile(root.appendingPathComponent(Self.fileName(size)), size: size)
        }
        try Self.writeJSONDocument(root.appendingPathComponent("document.json"), approximateBytes: jsonBytes)
        try Self.writeSmallJSON(root.appendingPathComponent("small.json"))
        port = try Self.freePort()
        let tls = Self.makeTLSFiles(in: directory)
        let securePort = tls == nil ? nil : try Self.freePort()
        tlsPort = securePort
        certificateAuthority = tls?.certificateAuthority
        let tlsServer = tls.map { [root] in
            Self.tlsServer(port: securePort ?? 0, root: root, files: $0, proxied: benchServerPort != nil)
        } ?? ""
        let config = """
            daemon off;
            master_process on;
            worker_processes 2;
            error_log \(directory.path)/logs/error.log;
            pid \(directory.path)/nginx.pid;
            # nginx counts each HTTP/2 stream as a connection: 1 000 requests at once need room.
            events { worker_connections 4096; }
            http {
                access_log off;
                sendfile on;
                tcp_nopush on;
                keepalive_requests 1000000;
                keepalive_timeout 60;
                client_body_temp_path \(directory.path)/body;
                proxy_temp_path \(directory.path)/proxy;
                fastcgi_temp_path \(directory.path)/fastcgi;
                uwsgi_temp_path \(directory.path)/uwsgi;
                scgi_temp_path \(directory.path)/scgi;
                types { application/json json; application/octet-stream bin; }
                server {
                    listen 127.0.0.1:\(port);
                    root \(root.path);
                    # The same files with each connection capped at 16 MiB/s, as many mirrors and
                    # CDNs cap theirs (issue 30's "several connections per file").
                    location /capped/ { alias \(root.path)/; limit_rate 16m; }
                }
                \(benchServerPort.map(Self.benchServerUpstream) ?? "")
                \(tlsServer)
            }
            """
        let configURL = directory.appendingPathComponent("nginx.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        pid = try spawnBackground(nginx, ["-c", configURL.path, "-p", directory.path])
        guard Self.waitForPort(port), securePort.map(Self.waitForPort) ?? true else {
            throw HarnessError("nginx did not start; see \(directory.path)/logs")
        }
    }

    func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }

    func httpsURL(_ name: String) throws -> String {
        guard let tlsPort else { throw HarnessError("no HTTPS server: openssl could not make a certificate") }
        return "https://127.0.0.1:\(tlsPort)/\(name)"
    }

    static func fileName(_ size: Int) -> String { "file-\(size).bin" }

    func stop() {
        if pid > 0 {
            kill(pid, SIGQUIT)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            pid = 0
        }
        try? FileManager.default.removeItem(at: directory)
    }

    private static func writeFile(_ url: URL, size: Int) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var block = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ ($0 >> 10)) })
        var written = 0
        var index: UInt64 = 0
        while written < size {
            withUnsafeBytes(of: index.bigEndian) { block.replaceSubrange(0..<8, with: $0) }
            let count = min(block.count, size - written)
            try handle.write(contentsOf: block.prefix(count))
            written += count
            index += 1
        }
    }

    /// An array of user-like objects, about `approximateBytes` long: the microbenchmarks' shape.
    private static func writeJSONDocument(_ url: URL, approximateBytes: Int) throws {
        try Fixtures.jsonDocument(approximateBytes).write(to: url)
    }

    private static func writeSmallJSON(_ url: URL) throws {
        try Fixtures.smallJSONDocument.write(to: url)
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { Glibc.close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        guard bound == 0 else { throw HarnessError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func waitForPort(_ port: Int) -> Bool {
        for _ in 0..<100 {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = UInt16(port).bigEndian
            address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            Glibc.close(fd)
            if connected == 0 { return true }
            usleep(50_000)
        }
        return false
    }
}

/// Starts a program without waiting for it, with a clean signal mask.
func spawnBackground(_ executable: String, _ arguments: [String]) throws -> pid_t {
    var attributes = cleanSpawnAttributes()
    defer { posix_spawnattr_destroy(&attributes) }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, executable, nil, &attributes, argv, environ)
    guard result == 0 else { throw HarnessError("could not start \(executable): \(result)") }
    return pid
}
