import Foundation

/// nginx on 127.0.0.1 with a configuration of the tests' own in a temporary directory, serving
/// files generated at test time: large files, keep-alive, byte ranges (with `If-Range`), and the
/// same files rate-limited under `/slow/` and, without an `ETag`, under `/noetag/`
/// (`?rate=4m` or `X-Rate: 4m` for 4 MiB/s). `/echo/credentials` answers with the request's
/// method and its `Authorization`, `Proxy-Authorization` and `Cookie` headers, one `name=value`
/// line each (the method also in an `X-Echo-Method` header, for `HEAD`).
final class NginxServer: Sendable {
    let port: UInt16
    let root: URL
    let process: ManagedProcess
    /// The TLS side, when openssl could make a test CA: HTTPS with a certificate for 127.0.0.1
    /// and localhost signed by the test CA, and HTTPS with a certificate for another name.
    let tls: TLS?

    struct TLS: Sendable {
        /// HTTPS on this port presents a certificate for 127.0.0.1 and localhost, and offers
        /// HTTP/2 (`h2`) as well as HTTP/1.1 in ALPN. Its `/downgrade` redirects (302) to the
        /// plain-HTTP `/echo/credentials`; its own `/echo/credentials` answers with the method and
        /// `Proxy-Authorization` only; `/redirect/small.json` redirects (302) to `/small.json`;
        /// `/connection` answers with nginx's number of the connection and how many requests it
        /// has carried (`"7 3"`), HTTP/2 streams included; `/slow/` serves the files at
        /// `?rate=` bytes per second. Its successful responses and redirects carry the
        /// connection's number in `X-Connection`.
        let port: UInt16
        /// HTTPS like ``port`` (the same certificate, `/connection`), offering HTTP/1.1 only.
        let http1Port: UInt16
        /// HTTPS on this port presents a certificate for `wrong.example` only.
        let wrongNamePort: UInt16
        /// The test CA's certificate (PEM), which signed both.
        let certificateAuthority: URL
        /// HTTPS like ``http1Port`` that asks for a client certificate of the test CA's
        /// (`ssl_verify_client on`): `/whoami` answers `client=` and the certificate's subject.
        /// Without one, or with another CA's, nginx completes the handshake and answers `400`.
        let mutualPort: UInt16
        /// The certificates, keys and pin the TLS tests use.
        let certificates: TestCertificates
        /// What ``port`` served, a line a request as each ends:
        /// `URI PROTOCOL CONNECTION STATUS "RANGE"` (`/a?b HTTP/2.0 7 206 "bytes=0-"`).
        let accessLog: URL
    }

    /// nginx's plain-HTTP server on a Unix domain socket (the same files and `/echo/address`).
    let unixSocket: String

    /// The size of `big.bin`: 256 MiB.
    static let bigFileSize = 256 * 1024 * 1024
    /// How many events `events.sse` holds: `FaultServer.event(_:pad:)` 1 through this, each
    /// padded with ``eventPadding`` spaces (about 6 MB), served as `text/event-stream`.
    static let eventCount = 3_000
    static let eventPadding = 2_000

    /// The size of `medium.bin`: 8 MiB.
    static let mediumFileSize = 8 * 1024 * 1024

    static var isInstalled: Bool { findExecutable("nginx") != nil }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    func url(_ path: String) -> URL { baseURL.appendingPathComponent(path) }

    static func start() throws -> NginxServer {
        guard let nginx = findExecutable("nginx") else { throw ServerError.notInstalled("nginx") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hotpotato-nginx-\(UUID().uuidString)")
        let root = directory.appendingPathComponent("html")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("logs"), withIntermediateDirectories: true)
        try writePatternFile(root.appendingPathComponent("big.bin"), size: bigFileSize)
        try writePatternFile(root.appendingPathComponent("medium.bin"), size: mediumFileSize)
        try Data(#"{"name":"HotPotato","items":[1,2,3],"nested":{"ok":true}}"#.utf8)
            .write(to: root.appendingPathComponent("small.json"))
        try Data((1...eventCount).map { FaultServer.event($0, pad: eventPadding) }.joined().utf8)
            .write(to: root.appendingPathComponent("events.sse"))
        let port = try freeLoopbackPort()
        let tls = try? TestCertificates.make(in: directory.appendingPathComponent("tls"))
        let tlsPorts = tls == nil ? nil : (try freeLoopbackPort(), try freeLoopbackPort(), try freeLoopbackPort(), try freeLoopbackPort())
        let unixSocket = directory.appendingPathComponent("nginx.sock").path
        var tlsServers = ""
        if let tls, let (good, http1, wrong, mutual) = tlsPorts {
            tlsServers = """
                server {
                    listen 127.0.0.1:\(good) ssl http2;
                    ssl_certificate \(tls.serverCertificate.path);
                    ssl_certificate_key \(tls.serverKey.path);
                    root \(root.path);
                    access_log \(directory.path)/logs/tls-access.log connections;
                    add_header X-Connection $connection;
                    location = /downgrade { return 302 http://127.0.0.1:\(port)/echo/credentials; }
                    location = /echo/credentials {
                        default_type text/plain;
                        return 200 "method=$request_method\\nproxy-authorization=$http_proxy_authorization\\n";
                    }
                    location = /redirect/small.json { return 302 /small.json; }
                    location = /connection { default_type text/plain; return 200 "$connection $connection_requests"; }
                    location /slow/ {
                        alias \(root.path)/;
                        limit_rate $arg_rate;
                    }
                    # A PUT body written to the file it names, for the upload tests.
                    location /uploads/ {
                        dav_methods PUT;
                        create_full_put_path on;
                        client_max_body_size 0;
                    }
                }
                server {
                    listen 127.0.0.1:\(http1) ssl;
                    ssl_certificate \(tls.serverCertificate.path);
                    ssl_certificate_key \(tls.serverKey.path);
                    root \(root.path);
                    location = /connection { default_type text/plain; return 200 "$connection $connection_requests"; }
                }
                server {
                    listen 127.0.0.1:\(mutual) ssl;
                    ssl_certificate \(tls.serverCertificate.path);
                    ssl_certificate_key \(tls.serverKey.path);
                    ssl_verify_client on;
                    ssl_client_certificate \(tls.certificateAuthority.path);
                    root \(root.path);
                    location = /whoami { default_type text/plain; return 200 "client=$ssl_client_s_dn\\n"; }
                }
                server {
                    listen 127.0.0.1:\(wrong) ssl;
                    ssl_certificate \(tls.wrongNameCertificate.path);
                    ssl_certificate_key \(tls.serverKey.path);
                    root \(root.path);
                }
                """
        }
        let config = """
            daemon off;
            master_process off;
            worker_processes 1;
            error_log \(directory.path)/logs/error.log;
            pid \(directory.path)/nginx.pid;
            # Room for every test of a parallel run at once, with the connections their sessions
            # keep alive: at its limit nginx closes idle kept-alive connections, and a request
            # that had just been sent on one must then be sent again, or waits.
            worker_rlimit_nofile 16384;
            events { worker_connections 8192; }
            http {
                access_log off;
                log_format connections '$request_uri $server_protocol $connection $status "$http_range"';
                sendfile on;
                keepalive_requests 100000;
                client_body_temp_path \(directory.path)/body;
                proxy_temp_path \(directory.path)/proxy;
                fastcgi_temp_path \(directory.path)/fastcgi;
                uwsgi_temp_path \(directory.path)/uwsgi;
                scgi_temp_path \(directory.path)/scgi;
                types { application/json json; application/octet-stream bin; text/plain txt; text/event-stream sse; }
                server {
                    listen 127.0.0.1:\(port);
                    listen unix:\(unixSocket);
                    root \(root.path);
                    location = /echo/address { default_type text/plain; return 200 "$remote_addr\\n"; }
                    location /connections { return 200 "$connection_requests\\n"; }
                    location /echo/credentials {
                        default_type text/plain;
                        add_header X-Echo-Method $request_method;
                        return 200 "method=$request_method\\nauthorization=$http_authorization\\nproxy-authorization=$http_proxy_authorization\\ncookie=$http_cookie\\n";
                    }
                    # The same files at a rate of ?rate= (or an X-Rate header's) bytes per
                    # second, for example 4m, to interrupt a download midway; under /noetag/
                    # without an ETag. The header leaves the URL as it is, so that a resumed
                    # download of the same URL can run at full speed.
                    location /slow/ {
                        alias \(root.path)/;
                        set $rate $arg_rate;
                        if ($http_x_rate) { set $rate $http_x_rate; }
                        limit_rate $rate;
                    }
                    # The same files compressed for a client that accepts gzip (and then
                    # without a Content-Length), as they are for one that asks for identity.
                    location /gzipped/ {
                        alias \(root.path)/;
                        gzip on;
                        gzip_types application/octet-stream application/json;
                        gzip_min_length 1;
                    }
                    location /noetag/ {
                        alias \(root.path)/;
                        etag off;
                        set $rate $arg_rate;
                        if ($http_x_rate) { set $rate $http_x_rate; }
                        limit_rate $rate;
                    }
                }
            \(tlsServers)
            }
            """
        let configURL = directory.appendingPathComponent("nginx.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        let process = try ManagedProcess(
            name: "nginx", executable: nginx, arguments: ["-c", configURL.path, "-p", directory.path],
            workingDirectory: directory)
        guard waitForPort(port, timeout: 10) else {
            process.stop()
            throw ServerError.didNotStart("nginx", process.logTail())
        }
        var tlsInfo: TLS?
        if let tls, let (good, http1, wrong, mutual) = tlsPorts, waitForPort(good, timeout: 5) {
            tlsInfo = TLS(port: good, http1Port: http1, wrongNamePort: wrong, certificateAuthority: tls.certificateAuthority,
                          mutualPort: mutual, certificates: tls,
                          accessLog: directory.appendingPathComponent("logs/tls-access.log"))
        }
        return NginxServer(port: port, root: root, process: process, tls: tlsInfo, unixSocket: unixSocket)
    }

    private init(port: UInt16, root: URL, process: ManagedProcess, tls: TLS?, unixSocket: String) {
        self.port = port
        self.root = root
        self.process = process
        self.tls = tls
        self.unixSocket = unixSocket
    }

    /// Writes `size` bytes made of 1 MiB blocks, each starting with its own index, so that a
    /// missing, repeated or reordered block changes the content.
    static func writePatternFile(_ url: URL, size: Int) throws {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let blockSize = 1024 * 1024
        var block = Data((0..<blockSize).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ ($0 >> 10)) })
        var written = 0
        var index: UInt64 = 0
        while written < size {
            withUnsafeBytes(of: index.bigEndian) { block.replaceSubrange(0..<8, with: $0) }
            let count = min(blockSize, size - written)
            try handle.write(contentsOf: block.prefix(count))
            written += count
            index += 1
        }
    }
}

enum ServerError: Error, CustomStringConvertible {
    case notInstalled(String)
    case didNotStart(String, String)

    var description: String {
        switch self {
        case .notInstalled(let name): return "\(name) is not installed"
        case .didNotStart(let name, let log): return "\(name) did not start:\n\(log)"
        }
    }
}

/// Whether two files have the same bytes, compared a megabyte at a time.
func filesAreIdentical(_ first: URL, _ second: URL) throws -> Bool {
    let a = try FileHandle(forReadingFrom: first)
    let b = try FileHandle(forReadingFrom: second)
    defer { try? a.close(); try? b.close() }
    while true {
        let left = try a.read(upToCount: 1024 * 1024) ?? Data()
        let right = try b.read(upToCount: 1024 * 1024) ?? Data()
        if left != right { return false }
        if left.isEmpty { return true }
    }
}
