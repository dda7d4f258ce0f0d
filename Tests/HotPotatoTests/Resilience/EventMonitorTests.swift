import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Event monitors and the logger against real servers, on both engines: every event in order,
/// on the monitor's queue, credentials never logged.
@Suite struct EventMonitorTests {
    /// Records events, and the queue each arrived on.
    final class Recorder: EventMonitor, @unchecked Sendable {
        let queue = DispatchQueue(label: "recorder")
        private let key = DispatchSpecificKey<Bool>()
        let events = Locked<[RequestEvent]>([])
        let offQueue = Locked(0)
        private let finished = DispatchSemaphore(value: 0)

        init() { queue.setSpecific(key: key, value: true) }

        func receive(_ event: RequestEvent) {
            if DispatchQueue.getSpecific(key: key) != true { offQueue.withLock { $0 += 1 } }
            events.withLock { $0.append(event) }
            if case .finished = event.kind { finished.signal() }
        }

        /// The events once the call's `finished` has arrived (it is the last).
        func all() async -> [RequestEvent] {
            let finished = finished
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    _ = finished.wait(timeout: .now() + 20)
                    continuation.resume()
                }
            }
            return events.withLock { $0 }
        }
    }

    static func names(_ events: [RequestEvent]) -> [String] {
        events.compactMap { event in
            switch event.kind {
            case .created: return "created"
            case .attemptStarted(_, let attempt): return "attempt \(attempt)"
            case .redirected(let head, _): return "redirect \(head.status)"
            case .headReceived(let head): return "head \(head.status)"
            case .progress: return nil
            case .retryScheduled(let attempt, _, _): return "retry after \(attempt)"
            case .finished(let summary): return "finished \(summary.status ?? 0) \(summary.attempts)"
            }
        }
    }

    @Test(arguments: allEngines)
    func aRetriedCallReportsEveryStepInOrderOnTheMonitorsQueue(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let recorder = Recorder()
        let session = testSession(engine: engine) { $0.eventMonitors = [recorder] }
        let name = "monitor-\(UUID().uuidString.prefix(8))"
        _ = try await session.get(server.url("/status/\(name)?fail=1")).retry(RetryPolicy(maximumAttempts: 2, initialDelay: 0))
            .asJSON().content
        let events = await recorder.all()
        #expect(Self.names(events) == ["created", "attempt 1", "head 503", "retry after 1", "attempt 2", "head 200", "finished 200 2"])
        #expect(Set(events.map(\.requestID)).count == 1)
        #expect(events.allSatisfy { $0.method == .get && $0.url?.path == "/status/\(name)" })
        #expect(recorder.offQueue.withLock { $0 } == 0)
        if case .finished(let summary) = events.last?.kind {
            #expect(summary.error == nil)
            #expect(summary.timings != nil)
            #expect(summary.duration > 0)
        }
    }

    @Test(.needsHTTPBin, arguments: allEngines)
    func redirectsAndFailuresAreReported(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let recorder = Recorder()
        let session = testSession(engine: engine) { $0.eventMonitors = [recorder] }
        let target = bin.url("/status/418")
        let error = await expectFailure { try await session.get(bin.redirect(to: target, status: 302)).response() }
        #expect(error?.status == 418)
        let events = await recorder.all()
        #expect(Self.names(events) == ["created", "attempt 1", "redirect 302", "head 418", "finished 418 1"])
        if case .finished(let summary) = events.last?.kind {
            #expect(summary.error?.code == .unacceptableStatus)
            // The rejected attempt was sent and answered: it has its measurements, as its error.
            #expect(summary.timings != nil && summary.error?.timings != nil)
            #expect(summary.timings?.connection?.connectionsMade ?? 0 >= 1 || engine == .urlSession)
        }
    }

    /// An attempt is reported as it goes out: with what the handler adds (a download's `Range`,
    /// a conditional download's `If-None-Match`), not only the interceptors.
    @Test(.needsNginx, arguments: allEngines)
    func anAttemptIsReportedWithTheHeadersItsHandlerAdds(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let recorder = Recorder()
        let session = testSession(engine: engine) { $0.eventMonitors = [recorder] }
        _ = try await session.get(nginx.url("medium.bin")).downloadToFile(at: scratch.file("m.bin"), connections: 2).content
        let events = await recorder.all()
        let sent = events.compactMap { event -> URLRequest? in
            if case .attemptStarted(let request, _) = event.kind { return request }
            return nil
        }
        #expect(sent.first?.value(forHTTPHeaderField: "Range") == "bytes=0-", "\(sent.map { $0.allHTTPHeaderFields ?? [:] })")
    }

    /// A followed redirect is reported with the request as it goes out: with the cookie the
    /// redirect set, which the store adds (`-v` showed the next request without it).
    @Test(.needsHTTPBin, arguments: allEngines)
    func aRedirectIsReportedWithTheCookiesTheStoreAdds(engine: Session.Engine) async throws {
        let bin = try await TestServers.httpbin()
        let recorder = Recorder()
        let session = testSession(engine: engine) { $0.eventMonitors = [recorder] }
        let sent = try await session.get(bin.url("/cookies/set?flavour=russet")).as([String: String].self, atKeyPath: "cookies").content
        #expect(sent == ["flavour": "russet"])
        let events = await recorder.all()
        let next = events.compactMap { event -> URLRequest? in
            if case .redirected(_, let next) = event.kind { return next }
            return nil
        }
        #expect(next.count == 1)
        #expect(next.first?.url?.path == "/cookies")
        #expect(next.first?.value(forHTTPHeaderField: "Cookie") == "flavour=russet")
        // The engine's default User-Agent is added as each request goes out, on both engines alike.
        #expect(next.first?.value(forHTTPHeaderField: "User-Agent") == nil)
    }

    @Test(arguments: allEngines)
    func theLoggerWritesALineAnEventAndNeverACredential(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let lines = Locked<[String]>([])
        let recorder = Recorder()
        let logger = EventLogger(includesHeaders: true) { line in lines.withLock { $0.append(line) } }
        let session = testSession(engine: engine) { $0.eventMonitors = [logger, recorder] }
        let name = "logger-\(UUID().uuidString.prefix(8))"
        let url = URL(string: "http://user:hunter2@127.0.0.1:\(server.port)/status/\(name)?fail=1")!
        _ = try await session.get(url).header("Authorization", "Bearer s3cr3t").header("Cookie", "id=c00k1e")
            .retry(RetryPolicy(maximumAttempts: 2, initialDelay: 0)).asJSON().content
        _ = await recorder.all()
        // The logger shares the monitor queue with nothing that waits: one more hop for its lines.
        await withCheckedContinuation { continuation in logger.queue.async { continuation.resume() } }
        let text = lines.withLock { $0 }.joined(separator: "\n")
        for secret in ["s3cr3t", "c00k1e", "hunter2"] { #expect(!text.contains(secret), "\(secret) in \(text)") }
        #expect(text.contains("> Authorization: <redacted>"))
        #expect(text.contains("> GET http://<redacted>@127.0.0.1:\(server.port)/status/\(name)?fail=1 (attempt 1)"))
        // The curl engine knows the version of HTTP a response came in; URLSession does not say.
        let version = engine == .curl ? "HTTP/1.1" : "HTTP"
        #expect(text.contains("< \(version) 503 Service Unavailable (application/json"))
        #expect(text.contains("retrying: attempt 1 failed (unacceptableStatus, status 503, server says: busy, try later); attempt 2 in 0.00 s"))
        #expect(text.contains("done: 200 in "))
        #expect(text.contains(", 2 attempts"))
    }

    @Test func theLoggerEscapesWhatCouldSteerATerminal() {
        let logger = EventLogger(includesHeaders: true) { _ in }
        let head = ResponseHead(status: 401, headers: ["X-Evil": "\u{1B}]2;pwned\u{07}\u{1B}[2Jred \u{202E}txt"])
        let event = RequestEvent(requestID: 1, method: .get, url: nil, date: Date(), kind: .headReceived(head))
        let text = logger.lines(for: event).joined(separator: "\n")
        for forbidden: Unicode.Scalar in ["\u{1B}", "\u{07}", "\u{202E}"] {
            #expect(!text.unicodeScalars.contains(forbidden), "no \(forbidden.value) in \(text)")
        }
        #expect(text.contains("< X-Evil: \\x1B]2;pwned\\x07\\x1B[2Jred \\u{202E}txt"), "\(text)")
    }

    /// With headers, a redirect shows its own (its `Location`, the cookies it set, masked) and the
    /// next request's, as `curl -v` does.
    @Test func theLoggerShowsARedirectsHeadersAndTheNextRequests() {
        let logger = EventLogger(includesHeaders: true) { _ in }
        let head = ResponseHead(status: 302, headers: ["Location": "/next", "Set-Cookie": "session=secret"])
        var next = URLRequest(url: URL(string: "http://127.0.0.1/next")!)
        next.setValue("text/plain", forHTTPHeaderField: "Accept")
        next.setValue("session=secret", forHTTPHeaderField: "Cookie")
        let event = RequestEvent(requestID: 2, method: .get, url: nil, date: Date(), kind: .redirected(head, to: next))
        let lines = logger.lines(for: event)
        #expect(lines.first == "[#2] redirect: 302 to GET http://127.0.0.1/next", "\(lines)")
        #expect(lines.contains("[#2] < Location: /next") && lines.contains("[#2] > Accept: text/plain"), "\(lines)")
        #expect(!lines.joined().contains("secret"), "\(lines)")
        let quiet = EventLogger { _ in }.lines(for: event)
        #expect(quiet.count == 1)
    }
}
