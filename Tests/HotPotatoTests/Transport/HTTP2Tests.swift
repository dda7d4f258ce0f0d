import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// HTTP/2 on the curl engine, against nginx over TLS with the test certificate authority:
/// negotiation and fallback, one multiplexed connection for concurrent requests, a blocked
/// handler that holds back its own stream only, large bodies, cancellation, redirects and error
/// bodies. Every wait that could hang is bounded by a gate's or the session's timeout; no
/// assertion depends on how fast anything runs.
@Suite(.needsNginx, .needsCurlHTTP2) struct HTTP2Tests {
    /// A curl session of its own (its own multi handle and connections) trusting the test CA.
    func session(_ tls: NginxServer.TLS, timeout: TimeInterval = 20, configure: (inout Session.Configuration) -> Void = { _ in }) -> Session {
        testSession(engine: .curl, timeout: timeout) {
            $0.certificateAuthorities = tls.certificateAuthority
            configure(&$0)
        }
    }

    func url(_ tls: NginxServer.TLS, _ path: String, port: UInt16? = nil) -> URL {
        URL(string: "https://127.0.0.1:\(port ?? tls.port)\(path)")!
    }

    /// nginx's `/connection`: the connection's number and how many requests it has carried.
    func connection(_ session: Session, _ url: URL) async throws -> (connection: Int, request: Int, version: HTTPVersion?) {
        let response = try await session.get(url).asString().response()
        let numbers = response.content.split(separator: " ").compactMap { Int($0) }
        try #require(numbers.count == 2, "\(response.content)")
        return (numbers[0], numbers[1], response.httpVersion)
    }

    @Test func aRequestOverTLSUsesHTTP2() async throws {
        let tls = try await TestServers.nginxTLS()
        let response = try await session(tls).get(url(tls, "/small.json")).asJSON().response()
        #expect(response.httpVersion == .http2)
        #expect(response.head.httpVersion == .http2)
        #expect(response.content["name"] == "HotPotato")
    }

    @Test func plainHTTPStaysHTTP1_1() async throws {
        let nginx = try await TestServers.nginx()
        let response = try await testSession(engine: .curl).get(nginx.url("small.json")).asJSON().response()
        #expect(response.httpVersion == .http1_1)
    }

    /// Twenty requests at once on a new session: one connection carries them all, each on a
    /// stream of its own (nginx counts twenty requests on it).
    @Test func concurrentRequestsToOneOriginShareOneConnection() async throws {
        let tls = try await TestServers.nginxTLS()
        let session = session(tls)
        let target = url(tls, "/connection")
        let count = 20
        let seen = try await withThrowingTaskGroup(of: (connection: Int, request: Int, version: HTTPVersion?).self) { group in
            for _ in 0..<count { group.addTask { try await connection(session, target) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(seen.map(\.connection)).count == 1, "connections: \(seen.map(\.connection))")
        #expect(Set(seen.map(\.request)) == Set(1...count), "requests: \(seen.map(\.request))")
        #expect(seen.allSatisfy { $0.version == .http2 })
    }

    /// A handler blocked on its first chunk of a 256 MiB body holds back that stream alone:
    /// another download over the same connection completes meanwhile, and the blocked one, once
    /// let go, still gets every byte.
    @Test func aBlockedHandlerDoesNotStallTheOtherStreams() async throws {
        let tls = try await TestServers.nginxTLS()
        let session = session(tls)
        let holding = TestGate()
        let release = TestGate()
        defer { release.open() }
        let head = Locked<ResponseHead?>(nil)
        let blocked = session.get(url(tls, "/big.bin"))
            .handled(by: GatedCounter(head: head, reached: holding, gate: release))
            .start()
        #expect(try await offThePool { holding.wait(seconds: 60) }, "the blocked download's first chunk never came")
        let other = try await session.get(url(tls, "/medium.bin")).asData().response()
        #expect(other.content.count == NginxServer.mediumFileSize)
        #expect(other.httpVersion == .http2)
        let blockedConnection = head.withLock { $0?.headers["X-Connection"] }
        #expect(blockedConnection != nil && other.headers["X-Connection"] == blockedConnection, "both streams on one connection")
        release.open()
        let received = try await blocked.response().content
        #expect(received == Int64(NginxServer.bigFileSize))
    }

    @Test func aLargeBodyArrivesIntact() async throws {
        let tls = try await TestServers.nginxTLS()
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let response = try await session(tls).get(url(tls, "/big.bin")).downloadToFile(at: scratch.file("big.bin")).response()
        #expect(response.httpVersion == .http2)
        #expect(try await offThePool { try filesAreIdentical(response.content, nginx.root.appendingPathComponent("big.bin")) })
    }

    /// Cancelled midway, the stream is reset and its connection goes on carrying the session's
    /// requests. The connection is identified while the download runs on it (a request beside it
    /// is multiplexed on the same one), so that no idle gap — a loaded machine's — lets it go
    /// before the download starts.
    @Test func cancellingMidStreamKeepsTheConnection() async throws {
        let tls = try await TestServers.nginxTLS()
        let session = session(tls) { $0.progressInterval = 0.01 }
        let midway = TestGate()
        let started = session.get(url(tls, "/slow/big.bin?rate=1m")).discardResponseContent()
            .onProgress(queue: DispatchQueue(label: "midway")) { progress in
                if progress.bytesReceived >= 256 * 1024 { midway.open() }
            }
            .start()
        #expect(try await offThePool { midway.wait(seconds: 120) }, "the download never got midway")
        let during = try await connection(session, url(tls, "/connection"))
        started.cancel()
        let error = await expectFailure { try await started.response() }
        #expect(error?.code == .cancelled, "\(error.map { "\($0)" } ?? "the download completed")")
        let after = try await connection(session, url(tls, "/connection"))
        #expect(after.connection == during.connection)
        #expect(after.request > during.request)
    }

    /// A call cancelled while its handler holds the stream (paused, nothing more coming from
    /// libcurl) settles as cancelled, and the session's next request goes through.
    @Test func cancellingWhileTheHandlerHoldsTheStream() async throws {
        let tls = try await TestServers.nginxTLS()
        let session = session(tls)
        let holding = TestGate()
        let release = TestGate()
        defer { release.open() }
        let blocked = session.get(url(tls, "/big.bin"))
            .handled(by: GatedCounter(head: Locked(nil), reached: holding, gate: release))
            .start()
        #expect(try await offThePool { holding.wait(seconds: 60) })
        blocked.cancel()
        release.open()
        let error = await expectFailure { try await blocked.response() }
        #expect(error?.code == .cancelled)
        let next = try await session.get(url(tls, "/small.json")).asJSON().response()
        #expect(next.content["name"] == "HotPotato")
    }

    /// The idle timeout does not run while a handler holds a multiplexed stream, as it does not
    /// while one holds an easy transfer's callback.
    @Test func aHandlerSlowerThanTheTimeoutIsNotAnIdleServer() async throws {
        let tls = try await TestServers.nginxTLS()
        let response = try await session(tls, timeout: 1).get(url(tls, "/medium.bin"))
            .handled(by: GatedCounter(head: Locked(nil), reached: TestGate(), gate: nil, nap: 2.5))
            .response()
        #expect(response.content == Int64(NginxServer.mediumFileSize))
    }

    /// A download over several connections gets them: its first request may be a stream of an
    /// HTTP/2 connection, but each other part goes over HTTP/1.1 on a connection that is not the
    /// first one's (streams of one connection would share its one TCP window, and a cap on it).
    /// With a rate limit too, where the parts run on the engine's main loop rather than in
    /// download lanes of their own (the limit is high enough to leave the speed alone).
    @Test(arguments: [false, true]) func aDownloadsOtherConnectionsAreConnectionsOfTheirOwn(limited: Bool) async throws {
        let tls = try await TestServers.nginxTLS()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let tag = UUID().uuidString
        let destination = scratch.file("medium.bin")
        var request = session(tls, timeout: 60).get(url(tls, "/slow/medium.bin?rate=16m&tag=\(tag)"))
        if limited { request = request.limitRate(256 << 20) }
        let response = try await request.downloadToFile(at: destination, connections: 4).response()
        #expect(response.httpVersion == .http2)
        #expect(try filesAreIdentical(destination, try await TestServers.nginx().root.appendingPathComponent("medium.bin")))
        let firstConnection = try #require(response.headers["X-Connection"])
        // A line is written as each request ends, just after its last bytes went out (the first
        // request's stream, cut short where its part ends, may still be open on the server).
        let read = { (try? String(contentsOf: tls.accessLog, encoding: .utf8))?.split(separator: "\n").filter { $0.contains(tag) } ?? [] }
        let parts = { read().map { $0.split(separator: " ").map(String.init) }.filter { $0.last != "\"bytes=0-\"" } }
        _ = PotatoProcess.waitUntil(seconds: 10) { parts().count >= 3 }
        let lines = read()
        let others = parts()
        #expect(others.count >= 3, "the file was split: \(lines)")
        #expect(others.allSatisfy { $0[1] == "HTTP/1.1" && $0[2] != firstConnection && $0[3] == "206" },
                "first connection \(firstConnection): \(lines)")
    }

    @Test func theHTTP1_1OnlyPolicyUsesHTTP1_1() async throws {
        let tls = try await TestServers.nginxTLS()
        let session = session(tls) { $0.httpVersionPolicy = .http1_1Only }
        let response = try await session.get(url(tls, "/small.json")).asJSON().response()
        #expect(response.httpVersion == .http1_1)
        #expect(try await connection(session, url(tls, "/connection")).version == .http1_1)
    }

    /// A server that offers HTTP/1.1 alone in ALPN gets HTTP/1.1, concurrent requests included
    /// (they waited to learn whether the first connection multiplexes, then open their own).
    @Test func aServerWithoutHTTP2FallsBackToHTTP1_1() async throws {
        let tls = try await TestServers.nginxTLS()
        let session = session(tls)
        let target = url(tls, "/connection", port: tls.http1Port)
        let seen = try await withThrowingTaskGroup(of: HTTPVersion?.self) { group in
            for _ in 0..<8 { group.addTask { try await connection(session, target).version } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(seen == Array(repeating: .http1_1, count: 8))
    }

    @Test func redirectsAreFollowedOverHTTP2() async throws {
        let tls = try await TestServers.nginxTLS()
        let session = session(tls)
        let response = try await session.get(url(tls, "/redirect/small.json")).asJSON().response()
        #expect(response.httpVersion == .http2)
        #expect(response.url?.path == "/small.json")
        #expect(response.content["name"] == "HotPotato")
        // To plain http: the next hop is HTTP/1.1, and the credentials stay behind.
        let downgraded = try await session.get(url(tls, "/downgrade")).header("Authorization", "Bearer s3cr3t").asString().response()
        #expect(downgraded.httpVersion == .http1_1)
        #expect(downgraded.content.contains("authorization=\n"), "\(downgraded.content)")
    }

    @Test func aRejectedStatusKeepsItsBodyOverHTTP2() async throws {
        let tls = try await TestServers.nginxTLS()
        let error = await expectFailure { try await session(tls).get(url(tls, "/missing.json")).asJSON().response() }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.status == 404)
        #expect(error?.head?.httpVersion == .http2)
        #expect(error?.errorBody?.text.contains("404 Not Found") == true, "\(error?.errorBody?.text ?? "no body")")
    }

    /// URLSession does not say which version a response came in.
    @Test func theURLSessionEngineLeavesTheVersionUnknown() async throws {
        let nginx = try await TestServers.nginx()
        let response = try await testSession(engine: .urlSession).get(nginx.url("small.json")).asJSON().response()
        #expect(response.httpVersion == nil)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where the curl engine can multiplex HTTP/2.
    static var needsCurlHTTP2: Self {
        .enabled(
            if: CurlLibrary.supportsHTTP2 && CurlLibrary.supportsMultiplexing,
            "the loaded libcurl lacks HTTP/2 or the multi functions (curl_multi_poll, curl_multi_wakeup)")
    }
}

/// A gate a thread waits at until another opens it.
final class TestGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var isOpen = false

    func open() {
        condition.lock()
        isOpen = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the gate opens or `seconds` pass; returns whether it opened.
    func wait(seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        condition.lock()
        defer { condition.unlock() }
        while !isOpen, condition.wait(until: deadline) {}
        return isOpen
    }
}

/// Counts the body's bytes; at its first chunk it records the head, opens `reached`, then waits
/// for `gate` (at most a minute) or naps for `nap` seconds.
final class GatedCounter: ContentHandler {
    private let head: Locked<ResponseHead?>
    private let reached: TestGate
    private let gate: TestGate?
    private let nap: TimeInterval
    private var received: Int64 = 0
    private var seenHead: ResponseHead?

    init(head: Locked<ResponseHead?>, reached: TestGate, gate: TestGate?, nap: TimeInterval = 0) {
        self.head = head
        self.reached = reached
        self.gate = gate
        self.nap = nap
    }

    func prepare(for head: ResponseHead) throws {
        seenHead = head
    }

    func receive(_ chunk: Data) throws {
        if received == 0 {
            head.withLock { $0 = seenHead }
            reached.open()
            if let gate { _ = gate.wait(seconds: 60) }
            if nap > 0 { Thread.sleep(forTimeInterval: nap) }
        }
        received += Int64(chunk.count)
    }

    func finish() throws -> Int64 { received }

    func cleanUp() {}
}
