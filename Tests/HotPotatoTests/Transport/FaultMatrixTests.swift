import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Every handler against every fault the fault server produces: the specific error, no partial
/// file, no descriptor left open.
@Suite struct FaultMatrixTests {
    enum Kind: String, CaseIterable, Sendable {
        case discard, data, string, json, decodable, stream, file
    }

    enum Fault: String, CaseIterable, Sendable {
        case shortBody, resetMidBody, stall, cutChunked, wrongContentType, slowDrip

        var path: String {
            switch self {
            case .shortBody: return "/short?declared=100000&sent=30000"
            case .resetMidBody: return "/reset?declared=1000000&sent=50000"
            case .stall: return "/stall?declared=1000&sent=10&seconds=10"
            case .cutChunked: return "/chunked-cut?sent=500"
            case .wrongContentType: return "/typed?type=text/html"
            case .slowDrip: return "/drip?bytes=3000&chunk=100&delayMs=5"
            }
        }

        func expected(for kind: Kind) -> HotPotatoError.Code? {
            switch self {
            case .shortBody: return .truncatedBody
            case .resetMidBody: return .connectionLost
            case .stall: return .timedOut
            case .cutChunked: return .truncatedBody
            case .wrongContentType, .slowDrip:
                // Neither is JSON (text/html, application/octet-stream); the other handlers take anything.
                return kind == .json || kind == .decodable ? .unacceptableContentType : nil
            }
        }
    }

    struct Message: Decodable, Sendable { let message: String }

    static let cases: [(Session.Engine, Kind, Fault)] = allEngines.flatMap { engine in
        Kind.allCases.flatMap { kind in Fault.allCases.map { (engine, kind, $0) } }
    }

    @Test(arguments: cases)
    func handlerMeetsFault(engine: Session.Engine, kind: Kind, fault: Fault) async throws {
        let server = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        // A tight timeout only where the server stalls on purpose: elsewhere a slow machine (or
        // ThreadSanitizer) must not turn a fault into a timeout. 20 s was once not enough for
        // the URLSession engine to see a reset, in a ThreadSanitizer pass on a machine loaded far
        // beyond CI (FoundationNetworking's work queue is shared by every session in the process,
        // and other suites' URLSession uploads wait on it for their producers).
        let session = testSession(engine: engine, timeout: fault == .stall ? 1 : 60)
        // JSON handlers get bytes that are JSON so far, so that they meet the fault itself.
        let json = (kind == .json || kind == .decodable) && [.shortBody, .resetMidBody, .stall, .cutChunked].contains(fault)
        let request = session.get(server.url(fault.path + (json ? "&json=1" : "")))
        let streamFile = scratch.file("stream.out")
        let outcome: HotPotatoError?
        switch kind {
        case .discard: outcome = await expectFailure { try await request.discardResponseContent().response() }
        case .data: outcome = await expectFailure { try await request.asData().response() }
        case .string: outcome = await expectFailure { try await request.asString(encoding: .isoLatin1).response() }
        case .json: outcome = await expectFailure { try await request.asJSON().response() }
        case .decodable: outcome = await expectFailure { try await request.as(Message.self).response() }
        case .stream:
            let stream = try #require(OutputStream(url: streamFile, append: false))
            outcome = await expectFailure { try await request.downloadToStream(stream).response() }
        case .file: outcome = await expectFailure { try await request.downloadToFile(at: scratch.file("download.bin")).response() }
        }
        #expect(outcome?.code == fault.expected(for: kind), "\(outcome.map { "\($0)" } ?? "success")")
        if let outcome {
            #expect(try !scratch.entries().contains("download.bin"), "no partial file")
            #expect(try scratch.entries().allSatisfy { !$0.hasSuffix(".part") })
            if outcome.code == .unacceptableContentType {
                if fault == .wrongContentType { #expect(outcome.errorBody?.json?["message"] == "typed response") }
                #expect(!FileManager.default.fileExists(atPath: streamFile.path), "a rejected response never opens the stream")
            }
            if outcome.code == .truncatedBody, fault == .shortBody {
                #expect(outcome.limit == 100_000)
                #expect(outcome.byteCount == 30_000)
            }
        }
        #expect(openDescriptors(under: scratch.url).isEmpty, "no descriptor left open")
        if outcome == nil, kind == .file, fault == .slowDrip {
            #expect(try Data(contentsOf: scratch.file("download.bin")) == FaultServer.body(count: 3000))
        }
    }

    @Test(arguments: allEngines) func bytesThatAreNotJSONFailBeforeTheFaultIsReached(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        // The parser reads the body as it arrives: the first byte that is not JSON stops the
        // transfer, before the short body is noticed.
        let error = await expectFailure {
            try await testSession(engine: engine).get(server.url(Fault.shortBody.path)).asJSON().response()
        }
        #expect(error?.code == .invalidJSON)
        #expect(error?.byteOffset == 0)
    }

    @Test(arguments: allEngines) func rejectionStopsTheTransferOnceTheErrorBodyIsKept(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        // A 2 MB body dripping for about 20 s; the rejection needs only its first 2 000 bytes.
        let size = 2_000_000
        let tag = "rejection-\(engine)-\(UUID().uuidString)"
        let error = await expectFailure {
            try await testSession(engine: engine).get(server.url("/drip?bytes=\(size)&chunk=1000&delayMs=10&abandon=\(tag)"))
                .asJSON().errorBodyLimit(2_000).response()
        }
        #expect(error?.code == .unacceptableContentType)
        #expect(error?.errorBody?.data == FaultServer.body(count: 2_000))
        #expect(error?.errorBody?.isTruncated == true)
        // The server notes how far it got when the client went away: the transfer stopped if it
        // did so before the end of the body, whatever the time that took on a busy machine. A
        // client that read on would leave no note, and the wait would end with the drip.
        let sent = await FaultServer.waitForAbandonment(tag, seconds: 60)
        #expect(sent.map { $0 < size } == true, "the server sent \(sent.map(String.init) ?? "the whole body") of \(size) bytes")
    }
}
