import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Checksums of downloads (`downloadToFile(at:…, checksum:)`): the digests themselves (FIPS 180
/// and RFC 1321 test vectors), how a checksum is written, and downloads from nginx on both engines
/// — placed only when the file matches; otherwise a `checksumMismatch` carrying both digests, and
/// nothing left behind (no file, no temporary, no partial state, a file already at the
/// destination untouched); a resumed download checked over all its bytes.
@Suite struct ChecksumTests {
    /// The digests of "abc" and of the empty string.
    @Test func theDigestsMatchTheirStandardsTestVectors() throws {
        let vectors: [(Checksum.Algorithm, String, String)] = [
            (.md5, "abc", "900150983cd24fb0d6963f7d28e17f72"),
            (.md5, "", "d41d8cd98f00b204e9800998ecf8427e"),
            (.sha1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"),
            (.sha256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (.sha256, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            (.sha512, "abc", "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
        ]
        for (algorithm, message, hex) in vectors {
            let digest = try #require(Digest(algorithm), "\(algorithm) is not available")
            Array(message.utf8).withUnsafeBytes { #expect(digest.update($0)) }
            #expect(digest.finish()?.hex == hex, "\(algorithm) of \"\(message)\"")
        }
    }

    @Test func aChecksumIsReadAsCurlAndAria2WriteIt() throws {
        let hex = "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"
        let checksum = try #require(Checksum("SHA-256=\(hex)"))
        #expect(checksum.algorithm == .sha256)
        #expect(checksum.description == "sha256=\(hex.lowercased())")
        #expect(Checksum("sha256=\(hex.lowercased())") == checksum)
        #expect(Checksum(.sha256, hex: hex) == checksum)
        #expect(Checksum("sha256=\(hex.dropLast(2))") == nil, "a digest one byte short")
        #expect(Checksum("sha256=\(hex.dropLast())x") == nil, "not hexadecimal")
        #expect(Checksum("md5=\(hex)") == nil, "a SHA-256 digest given as MD5")
        #expect(Checksum("crc32=00000000") == nil, "no such algorithm here")
        #expect(Checksum(hex) == nil, "no algorithm")
    }

    /// The checksum of `file` in the nginx root, computed here.
    private func checksum(of file: String, _ algorithm: Checksum.Algorithm, in nginx: NginxServer) throws -> Checksum {
        let data = try Data(contentsOf: nginx.root.appendingPathComponent(file))
        let digest = try #require(Digest(algorithm))
        data.withUnsafeBytes { _ = digest.update($0) }
        return try #require(digest.finish())
    }

    @Test(.needsNginx, arguments: allEngines) func aMatchingFileIsPlaced(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        for algorithm in Checksum.Algorithm.all {
            let destination = scratch.file("medium-\(algorithm).bin")
            let expected = try checksum(of: "medium.bin", algorithm, in: nginx)
            let placed = try await testSession(engine: engine).get(nginx.url("medium.bin"))
                .downloadToFile(at: destination, checksum: expected).content
            #expect(placed == destination.standardizedFileURL)
            #expect(try filesAreIdentical(destination, nginx.root.appendingPathComponent("medium.bin")))
        }
    }

    @Test(.needsNginx, arguments: allEngines) func aMismatchPlacesNothingAndSaysBothDigests(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let actual = try checksum(of: "medium.bin", .sha256, in: nginx)
        var wrongBytes = actual.digest
        wrongBytes[0] ^= 0xFF
        let wrong = try #require(Checksum(.sha256, digest: wrongBytes))

        // Nothing at the destination before: nothing after.
        let destination = scratch.file("medium.bin")
        let error = await expectFailure {
            try await testSession(engine: engine).get(nginx.url("medium.bin")).downloadToFile(at: destination, checksum: wrong).content
        }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.expectedChecksum == wrong)
        #expect(error?.actualChecksum == actual)
        #expect(error?.path == destination.standardizedFileURL.path)
        #expect(error?.reason.contains(actual.hex) == true && error?.reason.contains(wrong.hex) == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).isEmpty, "a file or temporary was left behind")

        // A file already there, to be replaced: untouched.
        try Data("keep me".utf8).write(to: destination)
        let replacing = await expectFailure {
            try await testSession(engine: engine).get(nginx.url("medium.bin"))
                .downloadToFile(at: destination, existingFilePolicy: .replace, checksum: wrong).content
        }
        #expect(replacing?.code == .checksumMismatch)
        #expect(try Data(contentsOf: destination) == Data("keep me".utf8))

        // A resumable download: its partial state is discarded, so the next attempt starts over.
        let resumable = scratch.file("resumable.bin")
        let failed = await expectFailure {
            try await testSession(engine: engine).get(nginx.url("medium.bin"))
                .downloadToFile(at: resumable, resumable: true, checksum: wrong).content
        }
        #expect(failed?.code == .checksumMismatch)
        #expect(!FileManager.default.fileExists(atPath: resumable.path))
        ResumableDownloadTests.expectNoPartialState(for: resumable)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)) == ["medium.bin"])
    }

    /// A download interrupted and continued is checked over the whole file, the bytes of the
    /// first attempt included: a right checksum places it, a wrong one discards it all.
    @Test(.needsNginx, arguments: allEngines) func aResumedDownloadIsCheckedOverAllItsBytes(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let url = try #require(URL(string: "\(nginx.baseURL)/slow/medium.bin"))
        let expected = try checksum(of: "medium.bin", .sha256, in: nginx)

        let destination = scratch.file("medium.bin")
        let kept = try await ResumableDownloadTests.interrupt(url, to: destination, engine: engine, after: 1024 * 1024)
        #expect(kept >= 1024 * 1024)
        let writer = Locked<FileWriter?>(nil)
        _ = try await testSession(engine: engine).get(url)
            .handled(by: {
                let made = FileWriter(destination: destination, resumable: true, checksum: expected)
                writer.withLock { $0 = made }
                return made
            }())
            .content
        #expect(try #require(writer.withLock { $0 }).resumedFrom == kept, "the download was not continued")
        #expect(try filesAreIdentical(destination, nginx.root.appendingPathComponent("medium.bin")))

        // The same, with a wrong checksum: the continued file is not placed, and the partial state goes.
        let second = scratch.file("second.bin")
        _ = try await ResumableDownloadTests.interrupt(url, to: second, engine: engine, after: 1024 * 1024)
        var wrongBytes = expected.digest
        wrongBytes[31] ^= 1
        let error = await expectFailure {
            try await testSession(engine: engine).get(url)
                .downloadToFile(at: second, resumable: true, checksum: Checksum(.sha256, digest: wrongBytes)).content
        }
        #expect(error?.code == .checksumMismatch)
        #expect(error?.actualChecksum == expected, "the digest must cover the bytes of the first attempt too")
        #expect(!FileManager.default.fileExists(atPath: second.path))
        ResumableDownloadTests.expectNoPartialState(for: second)
    }
}
