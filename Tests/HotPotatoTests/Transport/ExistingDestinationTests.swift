import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// A download that may not replace the file at its destination fails before its request is sent
/// (wget's `-nc`), on both engines and in potato: nothing listens on 127.0.0.1:1, so a request
/// that went out would fail with `connectionRefused` instead.
@Suite struct ExistingDestinationTests {
    static let unreachable = URL(string: "http://127.0.0.1:1/file.bin")!

    @Test(arguments: allEngines) func anExistingFileFailsTheCallBeforeItIsSent(engine: Session.Engine) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("kept.bin")
        try Data("mine".utf8).write(to: destination)
        let session = testSession(engine: engine)
        for resumable in [false, true] {
            let error = await expectFailure {
                try await session.get(Self.unreachable).downloadToFile(at: destination, resumable: resumable).content
            }
            #expect(error?.code == .destinationExists, "\(String(describing: error))")
            #expect(error?.path == destination.path)
        }
        #expect(try Data(contentsOf: destination) == Data("mine".utf8))
        #expect(try scratch.entries() == ["kept.bin"])
        // A file that may be replaced, or is asked for only if changed, does send the request.
        let replacing = await expectFailure {
            try await session.get(Self.unreachable).downloadToFile(at: destination, existingFilePolicy: .replace).content
        }
        #expect(replacing?.code == .connectionRefused)
        let conditional = await expectFailure {
            try await session.get(Self.unreachable).downloadToFile(at: destination, onlyIfChanged: true).content
        }
        #expect(conditional?.code == .connectionRefused)
        #expect(try Data(contentsOf: destination) == Data("mine".utf8))
    }

    /// A link at the destination, even one to nothing, is there: placing would not replace it.
    /// A directory is no destination, whatever the policy. Both before anything is sent.
    @Test(arguments: allEngines) func aDanglingLinkOrADirectoryFailsBeforeItIsSent(engine: Session.Engine) async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let link = scratch.file("dangling")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: scratch.file("nowhere").path)
        let session = testSession(engine: engine)
        let linked = await expectFailure { try await session.get(Self.unreachable).downloadToFile(at: link).content }
        #expect(linked?.code == .destinationExists, "\(String(describing: linked))")
        for policy in [ExistingFilePolicy.fail, .replace] {
            let directory = await expectFailure {
                try await session.get(Self.unreachable).downloadToFile(at: scratch.url, existingFilePolicy: policy).content
            }
            #expect(directory?.code == .fileSystemError, "\(String(describing: directory))")
        }
        #expect(try scratch.entries() == ["dangling"])
    }

    @Test func potatoRefusesAnExistingOutputBeforeConnecting() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("kept.bin")
        try Data("mine".utf8).write(to: destination)
        let outcome = try await PotatoProcess.run(["get", Self.unreachable.absoluteString, "-o", destination.path, "--retry", "0"])
        #expect(outcome.status == 16, "\(outcome.error)")
        #expect(outcome.error.contains("exists"), "\(outcome.error)")
        #expect(try Data(contentsOf: destination) == Data("mine".utf8))
    }
}
