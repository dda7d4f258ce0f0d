import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Transport failures map to specific codes.
@Suite struct TransportErrorTests {

    @Test(arguments: allEngines) func connectionRefused(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let port = try freeLoopbackPort()
        let error = await expectFailure { try await session.get("http://127.0.0.1:\(port)/").response() }
        #expect(error?.code == .connectionRefused)
        #expect(error?.head == nil)
        #expect(error?.underlying is URLError || error?.underlying is CurlError)
    }

    @Test(arguments: allEngines) func hostNotFound(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let error = await expectFailure { try await session.get("http://hotpotato-test.invalid/").response() }
        #expect(error?.code == .hostNotFound)
    }

    /// The server goes silent for 30 s, far longer than the 1 s idle timeout: the call fails with
    /// `.timedOut` well before the silence would end. Were the timeout not to fire, the server's
    /// close after 30 s would end the call with `.truncatedBody` instead, and late.
    @Test(arguments: allEngines) func timeoutWhileTheServerStalls(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let fault = try await TestServers.fault()
        let stall = 30.0
        let started = Date()
        let call = session.get(fault.url("/stall?declared=100&sent=10&seconds=\(Int(stall))")).timeout(1).asData().start()
        let completed = await completionDate(of: call)
        let error = await expectFailure { try await call.response() }
        #expect(error?.code == .timedOut, "\(error.map { "\($0)" } ?? "no error")")
        // The head arrived before the silence: what was measured comes with the error.
        #expect(engine == .urlSession || error?.timings?.connection?.remoteAddress == "127.0.0.1", "\(String(describing: error?.timings))")
        // Timed on the threads that start and complete the call, not by this task, which a busy
        // machine can keep waiting for seconds (4.6-5.7 s were seen for a 1 s timeout that way).
        // It takes about a second or two.
        let elapsed = completed.timeIntervalSince(started)
        #expect(elapsed < stall / 2, "gave up after \(elapsed) s for a 1 s idle timeout, the server silent for \(stall) s")
    }

    /// `resourceTimeout` ends a transfer whose bytes keep coming (a piece every 100 ms: no idle
    /// timeout fires), on both engines: FoundationNetworking ignores it, so the engine keeps it.
    /// The body would take 20 s; were the limit not kept, the call would succeed.
    @Test(arguments: allEngines) func theResourceTimeoutEndsATransferThatTrickles(engine: Session.Engine) async throws {
        let session = testSession(engine: engine) { $0.resourceTimeout = 1 }
        let fault = try await TestServers.fault()
        let error = await expectFailure {
            try await session.get(fault.url("/drip?bytes=204800&chunk=1024&delayMs=100")).timeout(5).asData().content
        }
        #expect(error?.code == .timedOut, "\(error.map { "\($0)" } ?? "no error")")
    }

    /// A handler that holds the transfer (backpressure on the libcurl engine) is not the server
    /// being idle: a handler slower than the timeout does not time the call out.
    @Test func aHandlerSlowerThanTheTimeoutIsNotAnIdleServer() async throws {
        let session = testSession(engine: .curl)
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("dripped.bin")
        let url = try await session.get(fault.url("/drip?bytes=3000&chunk=1000&delayMs=100")).timeout(1)
            .handled(by: NappingFileWriter(destination: destination)).content
        #expect(try Data(contentsOf: url).count == 3000)
    }

    @Test(arguments: allEngines) func tlsHandshakeWithAPlainHTTPServerFails(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let fault = try await TestServers.fault()
        let error = await expectFailure { try await session.get("https://127.0.0.1:\(fault.port)/typed").response() }
        #expect(error?.code == .tlsFailure, "\(error.map { "\($0)" } ?? "no error")")
    }

    @Test(arguments: allEngines) func resetMidBody(engine: Session.Engine) async throws {
        // See FaultMatrixTests: a reset must never be read as a timeout on a busy machine.
        let session = testSession(engine: engine, timeout: 60)
        let fault = try await TestServers.fault()
        let error = await expectFailure { try await session.get(fault.url("/reset?declared=1000000&sent=50000")).asData().response() }
        #expect(error?.code == .connectionLost)
        #expect(error?.head?.status == 200)
        #expect(error?.limit == 1_000_000)
    }

    @Test(arguments: allEngines, ["not a url", "ftp://127.0.0.1/file", "/relative/path", "http://"])
    func invalidURLs(engine: Session.Engine, text: String) async throws {
        let session = testSession(engine: engine)
        let error = await expectFailure { try await session.get(text).response() }
        #expect(error?.code == .invalidRequest)
    }

    @Test(arguments: allEngines) func unencodableJSONBody(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let error = await expectFailure { try await session.post("http://127.0.0.1:1/").body(json: Double.nan).response() }
        #expect(error?.code == .invalidRequest)
        #expect(error?.underlying is EncodingError)
    }

    @Test(arguments: allEngines) func serverMessageFromARejectedCall(engine: Session.Engine) async throws {
        let session = testSession(engine: engine)
        let fault = try await TestServers.fault()
        let error = await expectFailure { try await session.get(fault.url("/typed?type=application/json&status=422")).asJSON().response() }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.status == 422)
        #expect(error?.serverMessage == "typed response")
    }
}

/// A file writer that takes 1.6 s over its first chunk.
private final class NappingFileWriter: FileWriter {
    private var napped = false

    override func receive(_ chunk: Data) throws {
        try super.receive(chunk)
        if !napped {
            napped = true
            usleep(1_600_000)
        }
    }
}
