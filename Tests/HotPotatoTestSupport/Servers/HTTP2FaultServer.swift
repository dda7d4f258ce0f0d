import Foundation
import Testing

/// An HTTP/2 server over TLS for what nginx does not do on purpose: a `GOAWAY` that leaves a
/// request unprocessed, a refused stream. A small Python script on the `h2` package (from PyPI,
/// installed by `Tests/install-test-servers.sh`), started once per test process, with a
/// certificate of the tests' own authority (``certificateAuthority``) for 127.0.0.1. Paths,
/// each name counted apart (as ``RetryServer``'s):
///
/// - `/goaway/<name>?fail=K` — the first K requests of the name get a `GOAWAY` whose last stream
///   ID is below theirs (the server provably did not process them; RFC 9113 §6.8), and the
///   connection is closed; then `200` with `{"ok":true,"attempt":n}`.
/// - `/refuse/<name>?fail=K` — the first K get `RST_STREAM(REFUSED_STREAM)`; then the same `200`.
/// - anything else: `404`.
final class HTTP2FaultServer: Sendable {
    let port: UInt16
    let certificateAuthority: URL
    let process: ManagedProcess

    static var isInstalled: Bool {
        guard let python = findExecutable("python3"), TestCertificates.isAvailable else { return false }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: python)
        check.arguments = ["-c", "import h2.connection"]
        check.standardOutput = FileHandle.nullDevice
        check.standardError = FileHandle.nullDevice
        guard (try? ChildProcesses.run(check)) != nil else { return false }
        guard (try? ChildProcesses.waitForExit(check)) != nil else { return false }
        return check.terminationStatus == 0
    }

    func url(_ pathAndQuery: String) -> URL { URL(string: "https://127.0.0.1:\(port)\(pathAndQuery)")! }

    static func start() throws -> HTTP2FaultServer {
        guard let python = findExecutable("python3"), isInstalled else { throw ServerError.notInstalled("python3 with h2") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hotpotato-h2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = try TestCertificates.make(in: directory.appendingPathComponent("tls"))
        let script = directory.appendingPathComponent("h2fault.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let port = try freeLoopbackPort()
        let process = try ManagedProcess(
            name: "h2fault", executable: python,
            arguments: [script.path, String(port), certificates.serverCertificate.path, certificates.serverKey.path],
            workingDirectory: directory, environment: ["PYTHONUNBUFFERED": "1"])
        guard waitForPort(port, timeout: 30) else {
            process.stop()
            throw ServerError.didNotStart("h2fault", process.logTail())
        }
        return HTTP2FaultServer(port: port, certificateAuthority: certificates.certificateAuthority, process: process)
    }

    private init(port: UInt16, certificateAuthority: URL, process: ManagedProcess) {
        self.port = port
        self.certificateAuthority = certificateAuthority
        self.process = process
    }

    private static let script = #"""
        import socket, ssl, sys, threading
        from urllib.parse import urlsplit, parse_qs
        import h2.config, h2.connection, h2.errors, h2.events

        port, certificate, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        context.set_alpn_protocols(["h2"])
        counts, lock = {}, threading.Lock()

        def count(name):
            with lock:
                value = counts.get(name, 0)
                counts[name] = value + 1
                return value

        def serve(raw):
            try:
                tls = context.wrap_socket(raw, server_side=True)
                connection = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
                connection.initiate_connection()
                tls.sendall(connection.data_to_send())
                while True:
                    data = tls.recv(65536)
                    if not data:
                        return
                    for event in connection.receive_data(data):
                        if not isinstance(event, h2.events.RequestReceived):
                            continue
                        headers = {name.decode() if isinstance(name, bytes) else name:
                                   value.decode() if isinstance(value, bytes) else value for name, value in event.headers}
                        target = urlsplit(headers.get(":path", "/"))
                        parts = target.path.strip("/").split("/")
                        fail = int(parse_qs(target.query).get("fail", ["1"])[0])
                        if len(parts) < 2 or parts[0] not in ("goaway", "refuse"):
                            connection.send_headers(event.stream_id, [(":status", "404"), ("content-length", "0")], end_stream=True)
                            continue
                        index = count(target.path)
                        if index < fail and parts[0] == "goaway":
                            connection.close_connection(error_code=0, last_stream_id=event.stream_id - 1)
                            tls.sendall(connection.data_to_send())
                            tls.close()
                            return
                        if index < fail:
                            connection.reset_stream(event.stream_id, error_code=h2.errors.ErrorCodes.REFUSED_STREAM)
                            continue
                        body = ('{"ok":true,"attempt":%d}' % (index + 1)).encode()
                        connection.send_headers(event.stream_id, [(":status", "200"), ("content-type", "application/json"),
                                                                  ("content-length", str(len(body)))])
                        connection.send_data(event.stream_id, body, end_stream=True)
                    tls.sendall(connection.data_to_send())
            except Exception as error:
                print("connection failed:", error, file=sys.stderr)
            finally:
                raw.close()

        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(64)
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()
        """#
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where Python's `h2` package and openssl are installed.
    static var needsHTTP2FaultServer: Self {
        .enabled(if: HTTP2FaultServer.isInstalled, "python3's h2 package is not installed: run Tests/install-test-servers.sh")
    }
}
