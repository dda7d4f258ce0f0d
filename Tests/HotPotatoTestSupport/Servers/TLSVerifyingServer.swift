import Foundation

/// `openssl s_server` on 127.0.0.1 with the test CA's server certificate, requiring a client
/// certificate of the test CA's and failing the handshake without one (`-Verify 1
/// -verify_return_error`): the peer nginx cannot be, since nginx completes the handshake and
/// answers `400`. With a good certificate it answers `GET /` with a status page (`-www`). It
/// serves one connection at a time. Its certificates are its own (``certificates``).
final class TLSVerifyingServer: Sendable {
    let port: UInt16
    let process: ManagedProcess
    let certificates: TestCertificates

    var url: URL { URL(string: "https://127.0.0.1:\(port)/")! }

    /// With `onlyTLS12`, a server of TLS 1.2 alone that asks for no client certificate: the
    /// peer of a minimum TLS version.
    static func start(onlyTLS12: Bool = false) throws -> TLSVerifyingServer {
        guard let openssl = findExecutable("openssl") else { throw ServerError.notInstalled("openssl") }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hotpotato-s_server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let certificates = try TestCertificates.make(in: directory.appendingPathComponent("tls"))
        let port = try freeLoopbackPort()
        let process = try ManagedProcess(
            name: "s_server", executable: openssl,
            arguments: ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificates.serverCertificate.path,
                        "-key", certificates.serverKey.path, "-CAfile", certificates.certificateAuthority.path]
                + (onlyTLS12 ? ["-tls1_2"] : ["-Verify", "1", "-verify_return_error"]) + ["-www", "-quiet"],
            workingDirectory: directory)
        guard waitForPort(port, timeout: 10) else {
            process.stop()
            throw ServerError.didNotStart("openssl s_server", process.logTail())
        }
        return TLSVerifyingServer(port: port, process: process, certificates: certificates)
    }

    private init(port: UInt16, process: ManagedProcess, certificates: TestCertificates) {
        self.port = port
        self.process = process
        self.certificates = certificates
    }
}
