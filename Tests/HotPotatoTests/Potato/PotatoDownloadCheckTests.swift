import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `potato get -o FILE --checksum ALG=HEX`: the file is placed when it matches; on a mismatch
/// nothing is placed, both digests are printed, and the exit status is 22; a malformed checksum,
/// or one without `-o`, is a usage error. `--only-if-changed` and `--remote-time`: a second run
/// finds FILE up to date (exit 0, FILE untouched), and FILE gets the server's time.
@Suite(.needsNginx) struct PotatoDownloadCheckTests {
    private func sha256(of file: String, in nginx: NginxServer) throws -> Checksum {
        let data = try Data(contentsOf: nginx.root.appendingPathComponent(file))
        let digest = try #require(Digest(.sha256))
        data.withUnsafeBytes { _ = digest.update($0) }
        return try #require(digest.finish())
    }

    @Test(arguments: allEngines) func aMatchingDownloadIsPlacedAndAMismatchIsNot(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let right = try sha256(of: "medium.bin", in: nginx)
        let file = scratch.file("medium.bin")
        let engineName = engine == .curl ? "curl" : "urlsession"
        let placed = try await PotatoProcess.run(
            ["get", nginx.url("medium.bin").absoluteString, "-o", file.path, "--checksum", "SHA256=\(right.hex.uppercased())",
             "--engine", engineName, "-q"])
        #expect(placed.status == 0, "\(placed.error)")
        #expect(try filesAreIdentical(file, nginx.root.appendingPathComponent("medium.bin")))

        var bytes = right.digest
        bytes[5] ^= 0x10
        let wrong = try #require(Checksum(.sha256, digest: bytes))
        let other = scratch.file("other.bin")
        let refused = try await PotatoProcess.run(
            ["get", nginx.url("medium.bin").absoluteString, "-o", other.path, "--checksum", wrong.description,
             "--engine", engineName, "--continue"])
        #expect(refused.status == 22, "\(refused.error)")
        #expect(refused.error.contains("expected \(wrong)"), "\(refused.error)")
        #expect(refused.error.contains("received \(right)"), "\(refused.error)")
        #expect(!FileManager.default.fileExists(atPath: other.path))
        #expect(!FileManager.default.fileExists(atPath: FileWriter.partialFileURL(for: other).path), "the partial file was kept")
    }

    @Test func aMalformedChecksumOrOneWithoutAFileIsAUsageError() async throws {
        let nginx = try await TestServers.nginx()
        let url = nginx.url("small.json").absoluteString
        for arguments in [["-o", "/tmp/x", "--checksum", "sha256=abc"], ["-o", "/tmp/x", "--checksum", "crc32=00000000"],
                          ["--checksum", "md5=d41d8cd98f00b204e9800998ecf8427e"]] {
            let outcome = try await PotatoProcess.run(["get", url] + arguments)
            #expect(outcome.status == 2, "\(arguments): \(outcome.error)")
            #expect(outcome.error.contains("--checksum"), "\(arguments): \(outcome.error)")
        }
    }

    @Test(arguments: allEngines) func onlyIfChangedLeavesAnUpToDateFile(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "potato-conditional-\(UUID().uuidString).txt"
        let source = nginx.root.appendingPathComponent(name)
        try Data("version one".utf8).write(to: source)
        defer { try? FileManager.default.removeItem(at: source) }
        let past = Date(timeIntervalSince1970: 1_200_000_000)
        try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: source.path)
        let file = scratch.file("file.txt")
        let arguments = ["get", nginx.url(name).absoluteString, "-o", file.path, "--only-if-changed", "--remote-time",
                         "--engine", engine == .curl ? "curl" : "urlsession"]

        let first = try await PotatoProcess.run(arguments)
        #expect(first.status == 0, "\(first.error)")
        let time = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
        #expect(time == past, "--remote-time")

        let second = try await PotatoProcess.run(arguments)
        #expect(second.status == 0, "\(second.error)")
        #expect(second.error.contains("up to date"), "\(second.error)")
        #expect(try String(contentsOf: file, encoding: .utf8) == "version one")

        try Data("version two".utf8).write(to: source)
        let third = try await PotatoProcess.run(arguments)
        #expect(third.status == 0, "\(third.error)")
        #expect(!third.error.contains("up to date"), "\(third.error)")
        #expect(try String(contentsOf: file, encoding: .utf8) == "version two")

        let noFile = try await PotatoProcess.run(["get", nginx.url(name).absoluteString, "--only-if-changed"])
        #expect(noFile.status == 2 && noFile.error.contains("--only-if-changed needs -o"), "\(noFile.error)")
    }
}
