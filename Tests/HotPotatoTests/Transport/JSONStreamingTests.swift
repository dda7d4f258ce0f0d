import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// `streamJSONLines` and `streamJSONArray` against a real server on 127.0.0.1: every element in
/// order, under a slow body, a truncated body, a malformed element, a rejected response, and a
/// consumer that stops early.
@Suite struct JSONStreamingTests {
    struct Event: Decodable, Sendable, Equatable {
        let index: Int
        let name: String
        let tags: [String]
        let ok: Bool
    }

    static func expected(_ count: Int) -> [Event] {
        (0..<count).map { Event(index: $0, name: "event \($0)", tags: ["a", "é"], ok: $0 % 2 == 0) }
    }

    /// Collects a stream: the elements delivered, and the error that ended it.
    static func collect(_ stream: JSONElementStream<Event>) async -> (events: [Event], error: HotPotatoError?) {
        var events: [Event] = []
        do {
            for try await event in stream { events.append(event) }
            return (events, nil)
        } catch {
            return (events, error)
        }
    }

    @Test(arguments: allEngines) func linesArriveInOrder(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let stream = testSession(engine: engine).get(server.url("/jsonlines?count=500")).streamJSONLines(of: Event.self)
        let (events, error) = await Self.collect(stream)
        #expect(error == nil)
        #expect(events == Self.expected(500))
    }

    @Test(arguments: allEngines) func arrayAtAKeyPathUnderASlowBody(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let url = server.url("/jsonarray?count=60&key=users&chunk=37&delayMs=2")
        let stream = testSession(engine: engine).get(url).streamJSONArray(of: Event.self, atKeyPath: "users")
        let (events, error) = await Self.collect(stream)
        #expect(error == nil)
        #expect(events == Self.expected(60), "the meta.items array before it is not streamed")
    }

    /// Many streams of a slow body at once, each on a session of its own: some consumers fall
    /// behind, their buffers fill, a chunk is set aside and the transfer held. When the last
    /// chunk set aside holds only part of an element, the consumer parses it and then waits for
    /// the transfer, which must go on: it stayed held, and 87 of 150 such streams hung, on the
    /// curl engine.
    @Test(arguments: allEngines) func manyStreamsOfASlowBodyAllEnd(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let url = server.url("/jsonarray?count=60&key=users&chunk=37&delayMs=2")
        let ended = Locked(0)
        let failures = Locked<[String]>([])
        let inTime = await finishes(within: 90) {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<100 {
                    group.addTask {
                        let stream = testSession(engine: engine).get(url).streamJSONArray(of: Event.self, atKeyPath: "users")
                        let (events, error) = await Self.collect(stream)
                        if let error { failures.withLock { $0.append("\(error)") } }
                        if events != Self.expected(60) { failures.withLock { $0.append("\(events.count) events") } }
                        ended.withLock { $0 += 1 }
                    }
                }
            }
        }
        #expect(inTime, "streams hung: \(ended.withLock { $0 }) of 100 ended")
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
    }

    @Test(arguments: allEngines) func topLevelArray(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let stream = testSession(engine: engine).get(server.url("/jsonarray?count=100")).streamJSONArray(of: Event.self)
        let (events, error) = await Self.collect(stream)
        #expect(error == nil)
        #expect(events.count == 100)
    }

    @Test(arguments: allEngines) func elementsArriveBeforeTheBodyEnds(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        // The server sends 3 of 10 lines, then holds the rest of the body until the test has
        // received those 3: a stream that waited for the end of the body would only get them
        // once the server gave up holding (10 s), which the test sees.
        let gate = UUID().uuidString
        let held = FaultServer.jsonLines(count: 3).count
        let url = server.url("/jsonlines?count=10&holdAt=\(held)&gate=\(gate)")
        var received: [Event] = []
        for try await event in testSession(engine: engine).get(url).streamJSONLines(of: Event.self) {
            received.append(event)
            if received.count == 3 { FaultServer.openGate(gate) }
        }
        #expect(received == Self.expected(10))
        #expect(!FaultServer.gateTimedOut(gate), "the first elements came only after the server stopped holding the body")
    }

    @Test(arguments: allEngines) func parsingOptionsApplyToEachElement(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        // Each element nests two deep (an object holding the tags array): a limit of 1 fails
        // the first one, and says which.
        let stream = testSession(engine: engine).get(server.url("/jsonlines?count=5"))
            .streamJSONLines(of: Event.self, parsingOptions: JSONParsingOptions(maximumDepth: 1))
        let (events, error) = await Self.collect(stream)
        #expect(events.isEmpty)
        #expect(error?.code == .invalidJSON)
        #expect(error?.elementIndex == 0)
    }

    @Test(arguments: allEngines) func truncatedBodyEndsWithAnErrorAfterTheCompleteElements(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let whole = FaultServer.jsonLines(count: 50)
        let cut = whole.count / 2
        let complete = whole.prefix(cut).filter { $0 == UInt8(ascii: "\n") }.count
        let stream = testSession(engine: engine).get(server.url("/jsonlines?count=50&cut=\(cut)&chunk=100&delayMs=1"))
            .streamJSONLines(of: Event.self)
        let (events, error) = await Self.collect(stream)
        #expect(events == Self.expected(complete), "every complete line, nothing more")
        #expect(error?.code == .truncatedBody)
    }

    @Test(arguments: allEngines) func aRetryPolicyDoesNotReplayElementsAlreadyDelivered(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let whole = FaultServer.jsonLines(count: 50)
        let cut = whole.count / 2
        let complete = whole.prefix(cut).filter { $0 == UInt8(ascii: "\n") }.count
        // A truncated body is transient for the policy; but the stream had parsed body bytes, so
        // another attempt would parse the body again from its start into the same stream.
        let session = testSession(engine: engine) { $0.retryPolicy = RetryPolicy(maximumAttempts: 3, initialDelay: 0, jitter: 0) }
        let (events, error) = await Self.collect(
            session.get(server.url("/jsonlines?count=50&cut=\(cut)")).streamJSONLines(of: Event.self))
        #expect(events == Self.expected(complete))
        #expect(error?.code == .truncatedBody)
        #expect(error?.attempts == 1)
    }

    @Test(arguments: allEngines) func truncatedArrayEndsWithAnError(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let stream = testSession(engine: engine).get(server.url("/jsonarray?count=40&key=items&cut=1500"))
            .streamJSONArray(of: Event.self, atKeyPath: "items")
        let (events, error) = await Self.collect(stream)
        #expect(!events.isEmpty)
        #expect(events == Self.expected(events.count))
        #expect(error?.code == .truncatedBody)
    }

    @Test(arguments: allEngines) func malformedElementSaysWhichAndWhere(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let stream = testSession(engine: engine).get(server.url("/jsonlines?count=30&bad=17&chunk=50"))
            .streamJSONLines(of: Event.self)
        let (events, error) = await Self.collect(stream)
        #expect(events == Self.expected(17))
        let failure = try #require(error)
        #expect(failure.code == .invalidJSON)
        #expect(failure.elementIndex == 17)
        #expect(failure.line == 18)
        let offset = FaultServer.jsonLines(count: 17).count + #"{"index":17,"name":"#.utf8.count
        #expect(failure.byteOffset == Int64(offset))
        #expect(failure.column == #"{"index":17,"name":"#.utf8.count + 1)
    }

    @Test(arguments: allEngines) func elementThatDoesNotDecode(engine: Session.Engine) async throws {
        struct Strict: Decodable, Sendable { let index: Int; let missing: String }
        let server = try await TestServers.fault()
        var iterator = testSession(engine: engine).get(server.url("/jsonarray?count=5&key=items"))
            .streamJSONArray(of: Strict.self, atKeyPath: "items").makeAsyncIterator()
        let error = await #expect(throws: HotPotatoError.self) { _ = try await iterator.next() }
        #expect(error?.code == .decodingFailed)
        #expect(error?.elementIndex == 0)
        #expect(error?.underlying is DecodingError)
        #expect(error?.line == 1)
        #expect(error?.intermediate?.text.contains(#""index":0"#) == true, "the element that failed")
    }

    @Test(arguments: allEngines) func rejectedResponseFailsTheFirstNext(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        var iterator = testSession(engine: engine).get(server.url("/typed?type=application/json&status=503"))
            .streamJSONLines(of: Event.self).makeAsyncIterator()
        let error = await #expect(throws: HotPotatoError.self) { _ = try await iterator.next() }
        #expect(error?.code == .unacceptableStatus)
        #expect(error?.errorBody?.serverMessage == "typed response")
    }

    @Test(arguments: allEngines) func missingArrayIsAnError(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let stream = testSession(engine: engine).get(server.url("/jsonarray?count=3&key=items"))
            .streamJSONArray(of: Event.self, atKeyPath: "nothing")
        let (events, error) = await Self.collect(stream)
        #expect(events.isEmpty)
        #expect(error?.code == .invalidJSON)
        #expect(error?.reason.contains("no array at the key path") == true)
    }

    @Test(arguments: allEngines) func stoppingEarlyCancelsTheTransfer(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        // 2 000 lines, of which the server sends 20 and then holds the rest until the client
        // goes away (or 60 s pass), noting that it went. Leaving the loop after 15 elements must
        // close the connection while the server holds the rest, however long that takes on a
        // busy machine; a client that read on would find the rest sent after the hold, and the
        // server would note no departure at 20 lines.
        let line = FaultServer.element(0).utf8.count + 1
        let held = line * 20
        let tag = "stop-early-\(engine)-\(UUID().uuidString)"
        let url = server.url("/jsonlines?count=2000&chunk=\(line * 10)&holdAt=\(held)&gate=\(tag)&holdSeconds=60&abandon=\(tag)")
        // An idle timeout longer than the hold, so that only leaving the loop can end the call.
        let session = testSession(engine: engine, timeout: 120)
        var taken = 0
        for try await _ in session.get(url).streamJSONLines(of: Event.self, bufferSize: 2) {
            taken += 1
            if taken == 15 { break }
        }
        #expect(taken == 15)
        let sent = await FaultServer.waitForAbandonment(tag, seconds: 90)
        #expect(sent == held, "the server had sent \(sent.map(String.init) ?? "the whole body") of \(line * 2_000) bytes when the client went away")
        #expect(!FaultServer.gateTimedOut(tag), "the client was still connected after 60 s")
    }

    @Test(arguments: allEngines) func cancellingTheTaskEndsTheStream(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        let url = server.url("/jsonlines?count=1000&chunk=200&delayMs=100")
        let session = testSession(engine: engine)
        let task = Task {
            var count = 0
            for try await _ in session.get(url).streamJSONLines(of: Event.self) { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(300))
        task.cancel()
        let result = await task.result
        guard case .failure(let error as HotPotatoError) = result else {
            Issue.record("expected a cancellation, got \(result)")
            return
        }
        #expect(error.code == .cancelled)
    }

    @Test(arguments: allEngines) func aSlowConsumerHoldsTheTransferBack(engine: Session.Engine) async throws {
        let server = try await TestServers.fault()
        // 400 elements; the consumer takes 5 ms each. With a buffer of 4 the transfer cannot run
        // ahead: when the consumer has taken 100, at most a few hundred more can have arrived.
        let session = testSession(engine: engine)
        let call = session.get(server.url("/jsonlines?count=400&chunk=64")).streamJSONLines(of: Event.self, bufferSize: 4)
        var seen = 0
        for try await event in call {
            #expect(event.index == seen)
            seen += 1
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(seen == 400)
    }

    @Test func elementLargerThanTheLimit() async throws {
        let server = try await TestServers.fault()
        let stream = testSession(engine: .urlSession).get(server.url("/jsonlines?count=3"))
            .streamJSONLines(of: Event.self, maximumElementSize: 40)
        let (events, error) = await Self.collect(stream)
        #expect(events.isEmpty)
        #expect(error?.code == .bodyTooLarge)
        #expect(error?.limit == 40)
        #expect(error?.elementIndex == 0)
    }
}
