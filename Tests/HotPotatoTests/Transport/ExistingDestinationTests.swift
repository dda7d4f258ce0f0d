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
