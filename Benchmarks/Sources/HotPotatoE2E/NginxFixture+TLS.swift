import BenchmarkFixtures
import Foundation

extension NginxFixture {
    /// A throwaway certificate authority and a certificate for 127.0.0.1 it signed, made with
    /// the openssl command for the HTTPS scenarios.
    struct TLSFiles {
        let certificateAuthority: String
        let certificate: String
        let key: String
    }

    /// The files, in `directory`; `nil` when openssl is missing or fails (the HTTPS scenarios are
    /// then left out).
    static func makeTLSFiles(in directory: URL) -> TLSFiles? {
        guard let openssl = findExecutable("openssl") else { return nil }
        func file(_ name: String) -> String { directory.appendingPathComponent(name).path }
        func run(_ arguments: [String]) -> Bool {
            (try? spawnAndWait(openssl, arguments))?.status == 0
        }
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let extensions = "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n"
            + "keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n"
        guard (try? extensions.write(toFile: file("server.ext"), atomically: true, encoding: .utf8)) != nil,
              run(["req", "-x509"] + curve + ["-keyout", file("ca.key"), "-out", file("ca.pem"), "-days", "2",
                   "-subj", "/CN=HotPotato Benchmark CA", "-addext", "basicConstraints=critical,CA:TRUE",
                   "-addext", "keyUsage=critical,keyCertSign,cRLSign"]),
              run(["req"] + curve + ["-keyout", file("server.key"), "-out", file("server.csr"), "-subj", "/CN=127.0.0.1"]),
              run(["x509", "-req", "-in", file("server.csr"), "-CA", file("ca.pem"), "-CAkey", file("ca.key"),
                   "-CAcreateserial", "-out", file("server.pem"), "-days", "2", "-extfile", file("server.ext")])
        else { return nil }
        return TLSFiles(certificateAuthority: file("ca.pem"), certificate: file("server.pem"), key: file("server.key"))
    }

    /// nginx's server block for HTTPS on `port`, offering HTTP/2 and HTTP/1.1 in ALPN; with
    /// `proxied`, `/delay` and `/small` go to bench-server (``benchServerUpstream(_:)``).
    static func tlsServer(port: Int, root: URL, files: TLSFiles, proxied: Bool = false) -> String {
        let proxy = """
                location = /delay { proxy_pass http://bench_server; proxy_http_version 1.1; proxy_set_header Connection ""; }
                location = /small { proxy_pass http://bench_server; proxy_http_version 1.1; proxy_set_header Connection ""; }
            """
        return """
            server {
                listen 127.0.0.1:\(port) ssl http2;
                ssl_certificate \(files.certificate);
                ssl_certificate_key \(files.key);
                root \(root.path);
            \(proxied ? proxy : "")
            }
            """
    }

    /// bench-server on 127.0.0.1 as an upstream, its connections kept alive between requests
    /// (HTTP/1.1, `keepalive`), so that each proxied request does not open one of its own.
    static func benchServerUpstream(_ port: Int) -> String {
        "upstream bench_server { server 127.0.0.1:\(port); keepalive 256; }"
    }
}
