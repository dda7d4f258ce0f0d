import Foundation

/// A throwaway certificate authority and server certificates, made with the openssl command at
/// test time (valid for two days), for the HTTPS tests.
struct TestCertificates {
    let certificateAuthority: URL
    let serverCertificate: URL
    let wrongNameCertificate: URL
    let serverKey: URL

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
            process.waitUntilExit()
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
        return TestCertificates(
            certificateAuthority: URL(fileURLWithPath: file("ca.pem")),
            serverCertificate: URL(fileURLWithPath: file("server.pem")),
            wrongNameCertificate: URL(fileURLWithPath: file("wrong.pem")),
            serverKey: URL(fileURLWithPath: file("server.key")))
    }
}
