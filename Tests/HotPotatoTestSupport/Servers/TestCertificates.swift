import Foundation

/// A throwaway certificate authority and server certificates, made with the openssl command at
/// test time (valid for two days), for the HTTPS tests; client certificates for the mutual-TLS
/// tests (one of the test CA's, one of another CA's), and the server key's public-key pin.
struct TestCertificates {
    let certificateAuthority: URL
    let serverCertificate: URL
    let wrongNameCertificate: URL
    let serverKey: URL
    /// A client certificate signed by the test CA (`CN=HotPotato Test Client`), its key apart.
    let clientCertificate: URL
    let clientKey: URL
    /// The same certificate and key in one PKCS#12 file, with the password ``clientPassword``.
    let clientPKCS12: URL
    static let clientPassword = "potato-p12"
    /// A client certificate signed by another CA (`CN=Rogue Client`), its key apart.
    let rogueCertificate: URL
    let rogueKey: URL
    /// `sha256//` and the base64 of the SHA-256 of the server key's public key (curl's form).
    let serverKeyPin: String

    static var isAvailable: Bool { findExecutable("openssl") != nil }

    static func make(in directory: URL) throws -> TestCertificates {
        guard let openssl = findExecutable("openssl") else { throw ServerError.notInstalled("openssl") }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func file(_ name: String) -> String { directory.appendingPathComponent(name).path }
        func run(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: openssl)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try ChildProcesses.run(process)
            try ChildProcesses.waitForExit(process)
            guard process.terminationStatus == 0 else { throw ServerError.didNotStart("openssl \(arguments.first ?? "")", "") }
        }
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(["req", "-x509"] + curve + ["-keyout", file("ca.key"), "-out", file("ca.pem"), "-days", "2",
                 "-subj", "/CN=HotPotato Test CA", "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try run(["req"] + curve + ["-keyout", file("server.key"), "-out", file("server.csr"), "-subj", "/CN=127.0.0.1"])
        for (name, names) in [("server", "IP:127.0.0.1,DNS:localhost"), ("wrong", "DNS:wrong.example")] {
            let extensions = """
                subjectAltName=\(names)
                basicConstraints=CA:FALSE
                keyUsage=digitalSignature
                extendedKeyUsage=serverAuth
                """
            try extensions.write(toFile: file("\(name).ext"), atomically: true, encoding: .utf8)
            try run(["x509", "-req", "-in", file("server.csr"), "-CA", file("ca.pem"), "-CAkey", file("ca.key"),
                     "-CAcreateserial", "-out", file("\(name).pem"), "-days", "2", "-extfile", file("\(name).ext")])
        }
        // Client certificates: one of the test CA's, one of a CA the servers do not trust.
        try run(["req", "-x509"] + curve + ["-keyout", file("other-ca.key"), "-out", file("other-ca.pem"), "-days", "2",
                 "-subj", "/CN=Another CA", "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
        try "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n"
            .write(toFile: file("client.ext"), atomically: true, encoding: .utf8)
        for (name, subject, ca) in [("client", "/CN=HotPotato Test Client", "ca"), ("rogue", "/CN=Rogue Client", "other-ca")] {
            try run(["req"] + curve + ["-keyout", file("\(name).key"), "-out", file("\(name).csr"), "-subj", subject])
            try run(["x509", "-req", "-in", file("\(name).csr"), "-CA", file("\(ca).pem"), "-CAkey", file("\(ca).key"),
                     "-CAcreateserial", "-out", file("\(name).pem"), "-days", "2", "-extfile", file("client.ext")])
        }
        try run(["pkcs12", "-export", "-in", file("client.pem"), "-inkey", file("client.key"), "-out", file("client.p12"),
                 "-passout", "pass:\(clientPassword)"])
        try run(["pkey", "-in", file("server.key"), "-pubout", "-outform", "DER", "-out", file("server.pub.der")])
        let publicKey = try Data(contentsOf: URL(fileURLWithPath: file("server.pub.der")))
        return TestCertificates(
            certificateAuthority: URL(fileURLWithPath: file("ca.pem")),
            serverCertificate: URL(fileURLWithPath: file("server.pem")),
            wrongNameCertificate: URL(fileURLWithPath: file("wrong.pem")),
            serverKey: URL(fileURLWithPath: file("server.key")),
            clientCertificate: URL(fileURLWithPath: file("client.pem")),
            clientKey: URL(fileURLWithPath: file("client.key")),
            clientPKCS12: URL(fileURLWithPath: file("client.p12")),
            rogueCertificate: URL(fileURLWithPath: file("rogue.pem")),
            rogueKey: URL(fileURLWithPath: file("rogue.key")),
            serverKeyPin: "sha256//" + (try sha256(publicKey)).base64EncodedString())
    }

    /// SHA-256, with the openssl command (the tests' own, apart from the library's digests).
    private static func sha256(_ data: Data) throws -> Data {
        guard let openssl = findExecutable("openssl") else { throw ServerError.notInstalled("openssl") }
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("hotpotato-pin-\(UUID().uuidString)")
        try data.write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let (status, digest) = try ChildProcesses.output(of: openssl, ["dgst", "-sha256", "-binary", input.path])
        guard status == 0, digest.count == 32 else { throw ServerError.didNotStart("openssl dgst", "") }
        return digest
    }
}
