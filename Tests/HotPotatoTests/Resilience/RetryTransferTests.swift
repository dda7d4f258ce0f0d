import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Retries against a server that fails on purpose (`RetryServer`), on both engines: a download
/// cut several times continues where each attempt stopped and ends byte-identical; statuses with
/// `Retry-After`; methods that are not retried; the attempt count in the final error;
/// cancellation during the wait.
@Suite struct RetryTransferTests {
    /// A policy that retries at once (no backoff), so that tests do not wait.
    static func quick(_ attempts: Int) -> RetryPolicy {
        RetryPolicy(maximumAttempts: attempts, initialDelay: 0, jitter: 0)
    }

    static func unique(_ label: String) -> String { "\(label)-\(UUID().uuidString.prefix(8))" }

    @Test(arguments: allEngines)
    func aDownloadCutFourTimesContinuesEachTimeAndEndsByteIdentical(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size = 3 * 1024 * 1024 + 17
        // Random offsets, from a seed, so that a failure can be replayed.
        var generator = SeededGenerator(seed: UInt64(size))
        let drops = (0..<4).map { _ in Int(generator.next() % UInt64(size - 1)) + 1 }.sorted()
        let name = Self.unique("cut")
        let url = server.url("/download/\(name)?size=\(size)&drops=\(drops.map(String.init).joined(separator: ","))")
        let destination = scratch.file("file.bin")
        let seen = Locked<[Int64]>([])
        let beside = Locked<[[String]]>([])
        let response = try await testSession(engine: engine).get(url)
            .downloadToFile(at: destination)
            .retry(Self.quick(6))
            .onProgress { progress in seen.withLock { $0.append(progress.bytesReceived) } }
            .onHead { _ in beside.withLock { $0.append((try? scratch.entries()) ?? ["?"]) } }
            .response()
        #expect(response.content == destination)
        let data = try Data(contentsOf: destination)
        #expect(data == FaultServer.body(count: size), "the file is the resource, byte for byte")

        let records = server.records("/download/\(name)")
        #expect(records.count == 5)
        #expect(records.first?.range == nil)
        // Each attempt after the first asks for the rest from exactly where the last one stopped.
        for (index, drop) in drops.enumerated() {
            #expect(records[index + 1].range == "bytes=\(drop)-")
            #expect(records[index + 1].ifRange == RetryServer.etag(size: size))
        }
        // Progress counts the whole file across attempts: it never jumps back to 0 after the
        // first response, and ends at the size.
        let updates = seen.withLock { $0 }
        #expect(updates.last == Int64(size))
        #expect(!FileManager.default.fileExists(atPath: FileWriter.partialFileURL(for: destination).path))
        #expect(try scratch.entries() == ["file.bin"], "no partial file or record is left")
        // Between attempts the bytes live in an anonymous file: nothing beside the destination
        // that a killed process would leave.
        #expect(beside.withLock { $0 } == Array(repeating: [], count: 5))
    }

    @Test(arguments: allEngines)
    func aDownloadThatRunsOutOfAttemptsLeavesNothingAndSaysHowManyAttempts(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = Self.unique("exhausted")
        let url = server.url("/download/\(name)?size=200000&drops=1000,2000,3000,4000")
        let error = await expectFailure {
            try await testSession(engine: engine).get(url).downloadToFile(at: scratch.file("out")).retry(Self.quick(3)).response()
        }
        #expect(error?.code == .truncatedBody)
        #expect(error?.attempts == 3)
        #expect(error?.description.contains("after 3 attempts") == true)
        #expect(server.records("/download/\(name)").count == 3)
        #expect(try scratch.entries() == [], "a download that is not resumable keeps no partial file")
    }

    @Test(arguments: allEngines)
    func aResumableDownloadThatRunsOutOfAttemptsKeepsItsPartialFile(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = Self.unique("kept")
        let url = server.url("/download/\(name)?size=200000&drops=1000,2000")
        let destination = scratch.file("out")
        let error = await expectFailure {
            try await testSession(engine: engine).get(url).downloadToFile(at: destination, resumable: true)
                .retry(Self.quick(2)).response()
        }
        #expect(error?.attempts == 2)
        #expect(PartialDownload(destination: destination).dataSize() == 2000)
        // The next call continues it.
        _ = try await testSession(engine: engine).get(url).downloadToFile(at: destination, resumable: true).response()
        #expect(try Data(contentsOf: destination) == FaultServer.body(count: 200_000))
        #expect(server.records("/download/\(name)").last?.range == "bytes=2000-")
    }

    @Test(arguments: allEngines)
    func otherHandlersStartCleanOnEachAttempt(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let name = Self.unique("data")
        let url = server.url("/download/\(name)?size=100000&drops=5000,60000")
        let data = try await testSession(engine: engine).get(url).asData().retry(Self.quick(3)).content
        #expect(data == FaultServer.body(count: 100_000))
        let records = server.records("/download/\(name)")
        #expect(records.map(\.range) == [nil, nil, nil], "an Accumulator asks for the whole body each time")
    }

    @Test(arguments: allEngines, ["2", "date"])
    func aServiceUnavailableWithRetryAfterIsRetriedAfterTheWait(engine: Session.Engine, form: String) async throws {
        let server = try await TestServers.retry()
        let name = Self.unique("busy")
        // An HTTP date has a resolution of a second: one two seconds ahead waits one to two.
        let retryAfter = form == "2" ? "1" : RetryAfterTests.httpDate(Date().addingTimeInterval(2))
        let url = server.url("/status/\(name)?fail=1&status=503").appending(queryItems: [URLQueryItem(name: "retryAfter", value: retryAfter)])
        let started = Date()
        let json = try await testSession(engine: engine).get(url).asJSON().retry(RetryPolicy(maximumAttempts: 2, initialDelay: 0)).content
        #expect(json["ok"] == true)
        #expect(json["attempt"] == 2)
        // The backoff alone would have retried at once: the wait is the server's.
        #expect(Date().timeIntervalSince(started) >= 0.9)
    }

    @Test(arguments: allEngines)
    func aTooManyRequestsIsRetriedAndTheFinalErrorKeepsTheServersMessage(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let name = Self.unique("limited")
        let url = server.url("/status/\(name)?fail=5&status=429&retryAfter=0")
        let error = await expectFailure {
            try await testSession(engine: engine).get(url).asJSON().retry(Self.quick(3)).response()
        }
        #expect(error?.status == 429)
        #expect(error?.serverMessage == "busy, try later")
        #expect(error?.attempts == 3)
        #expect(server.records("/status/\(name)").count == 3)
    }

    @Test(arguments: allEngines)
    func aPostIsNotRetriedUnlessThePolicySaysSo(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let once = Self.unique("post-once")
        let error = await expectFailure {
            try await testSession(engine: engine).post(server.url("/status/\(once)?fail=5")).body(Data("x".utf8))
                .retry(Self.quick(3)).response()
        }
        #expect(error?.status == 503)
        #expect(error?.attempts == 1)
        #expect(server.records("/status/\(once)").count == 1)

        let allowed = Self.unique("post-allowed")
        var policy = Self.quick(3)
        policy.retryableMethods.insert(.post)
        let json = try await testSession(engine: engine).post(server.url("/status/\(allowed)?fail=2")).body(Data("x".utf8))
            .retry(policy).asJSON().content
        #expect(json["attempt"] == 3)
        #expect(server.records("/status/\(allowed)").map(\.method) == ["POST", "POST", "POST"])
    }

    @Test(arguments: allEngines)
    func aStatusThatIsNotTransientIsNotRetried(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let name = Self.unique("missing")
        let error = await expectFailure {
            try await testSession(engine: engine).get(server.url("/status/\(name)?fail=5&status=404")).retry(Self.quick(3)).response()
        }
        #expect(error?.status == 404)
        #expect(error?.attempts == 1)
    }

    @Test(arguments: allEngines)
    func aSessionPolicyAppliesAndARequestCanTurnItOff(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let session = testSession(engine: engine) { $0.retryPolicy = Self.quick(3) }
        let retried = Self.unique("session")
        let json = try await session.get(server.url("/status/\(retried)?fail=2")).asJSON().content
        #expect(json["attempt"] == 3)
        let notRetried = Self.unique("never")
        let error = await expectFailure { try await session.get(server.url("/status/\(notRetried)?fail=2")).retry(.never).response() }
        #expect(error?.status == 503)
        #expect(error?.attempts == nil, "a call made once without a policy or interceptor does not count attempts")
    }

    @Test(arguments: allEngines)
    func cancellingDuringTheWaitEndsTheCallPromptly(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let name = Self.unique("wait")
        let call = testSession(engine: engine).get(server.url("/status/\(name)?fail=1&retryAfter=30"))
            .retry(RetryPolicy(maximumAttempts: 2)).start()
        // Wait until the first attempt has failed and the wait has begun.
        let deadline = Date().addingTimeInterval(10)
        while server.records("/status/\(name)").isEmpty, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        let cancelled = Date()
        call.cancel()
        let error = await expectFailure { try await call.response() }
        #expect(error?.code == .cancelled)
        #expect(Date().timeIntervalSince(cancelled) < 10, "not the 30 s the server asked for")
        #expect(server.records("/status/\(name)").count == 1, "no second attempt after the cancel")
    }

    /// `Session.invalidate()` cancels the calls in flight, those waiting to retry too: they end
    /// cancelled, promptly, and make no further attempt; a call started afterwards is refused.
    @Test(arguments: allEngines)
    func invalidatingTheSessionDuringTheWaitCancelsTheCall(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let name = Self.unique("invalidated")
        let session = testSession(engine: engine)
        let call = session.get(server.url("/status/\(name)?fail=1&retryAfter=30"))
            .retry(RetryPolicy(maximumAttempts: 2)).start()
        let deadline = Date().addingTimeInterval(10)
        while server.records("/status/\(name)").isEmpty, Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try await Task.sleep(for: .milliseconds(100))
        let invalidated = Date()
        session.invalidate()
        let error = await expectFailure { try await call.response() }
        #expect(error?.code == .cancelled)
        #expect(Date().timeIntervalSince(invalidated) < 10, "not the 30 s the server asked for")
        #expect(server.records("/status/\(name)").count == 1, "no second attempt after the invalidation")
        let after = await expectFailure {
            try await session.get(server.url("/status/\(Self.unique("after"))")).retry(RetryPolicy(maximumAttempts: 2)).response()
        }
        #expect(after?.code == .invalidRequest)
    }
}
