#if canImport(Glibc)
import Foundation
import Glibc
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Every descriptor a running `potato` opens — its connections, its files, its pipes, libcurl's
/// wake-up pairs — is close-on-exec (`O_CLOEXEC` in `/proc/PID/fdinfo/N`), on every engine and
/// path. potato is started with only its standard input, output and error, so every other
/// descriptor it has is its own.
@Suite struct PotatoDescriptorTests {
    @Test(arguments: allEngineNames) func everyDescriptorOfADownloadIsCloseOnExec(engine: String) async throws {
        let server = try HoldingServer()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try await expectEveryDescriptorCloseOnExec(
            ["get", server.url.absoluteString, "-o", scratch.file("held.bin").path, "--progress", "none", "--engine", engine],
            scratch: scratch, serverPort: server.port)
    }

    /// HTTP/2 on the curl engine: the multi handle and its thread, another wake-up pair.
    @Test(.needsNginx) func everyDescriptorOfAMultiplexedDownloadIsCloseOnExec() async throws {
        let tls = try await TestServers.nginxTLS()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        try await expectEveryDescriptorCloseOnExec(
            ["get", "https://127.0.0.1:\(tls.port)/slow/medium.bin?rate=64k", "--cacert", tls.certificateAuthority.path,
             "-o", scratch.file("slow.bin").path, "--progress", "none", "--engine", "curl"],
            scratch: scratch, serverPort: tls.port)
    }

    /// Starts potato with `arguments`, waits until it has a connection to `serverPort` and its
    /// partial file open (a descriptor above 2 in `scratch`), then checks every descriptor above 2.
    private func expectEveryDescriptorCloseOnExec(_ arguments: [String], scratch: ScratchDirectory, serverPort: UInt16) async throws {
        let child = try SpawnedChild.spawn(
            [PotatoProcess.executable.path] + arguments, inheriting: false, output: scratch.file("potato.log").path)
        defer { child.kill() }
        let ready = await eventually(seconds: 60) {
            // Above 2 only: potato's standard output and error are `potato.log`, in the same
            // directory, and must not count as its file. The file is opened once the response head
            // has arrived, which is also when the URLSession engine marks the connection (its one
            // documented window is before that: see `URLSessionDescriptors`).
            let targets = Set(child.descriptors().filter { $0.key > 2 }.values)
            return !targets.isDisjoint(with: tcpConnectionInodes(toPort: serverPort))
                && targets.contains { $0.hasPrefix(scratch.file("").path) }
        }
        let log = (try? String(contentsOf: scratch.file("potato.log"), encoding: .utf8)) ?? ""
        try #require(ready, "potato never had its connection and its file open: \(log)")
        let descriptors = child.descriptors()
        for (fd, target) in descriptors.sorted(by: { $0.key < $1.key }) where fd > 2 {
            // A descriptor may close between the listing and the look-up: `nil` then.
            guard let closeOnExec = child.isCloseOnExec(fd) else { continue }
            #expect(closeOnExec, "potato's descriptor \(fd) (\(target)) is not close-on-exec")
        }
    }
}
#endif
