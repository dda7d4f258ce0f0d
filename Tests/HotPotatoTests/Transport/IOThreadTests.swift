import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The libcurl engine delivers a small response that arrived whole on its I/O thread when its
/// handler runs HotPotato's code only (`.asJSON()`, `.asString()`, `.asData()`), saving a thread
/// hop. The caller's code must never run there: a head callback or a handler subclass that blocks
/// holds back its own call only, while the session's other calls complete.
@Suite struct IOThreadTests {
    /// `block` starts a call whose caller code waits at `release`, after opening `reached`; twenty
    /// small `.asJSON()` calls of the same session must complete meanwhile, then the blocked one.
    private func expectOnlyItsOwnCallWaits(
        _ name: String, block: (Session, URL, _ reached: TestGate, _ release: TestGate) -> Call<Data>
    ) async throws {
        let engine = Session.Engine.curl
        try #require(engine.isAvailable)
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: engine, timeout: 120)
        let reached = TestGate()
        let release = TestGate()
        defer { release.open() }
        let blocked = block(session, nginx.url("small.json"), reached, release)
        #expect(try await offThePool { reached.wait(seconds: 60) }, "\(name): the caller's code was never reached")
        let completed = await finishes(within: 30) {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask { _ = try? await session.get(nginx.url("small.json")).asJSON().content }
                }
            }
        }
        #expect(completed, "\(name): the session's other calls waited for the caller's blocked code")
        let others = try await session.get(nginx.url("small.json")).asJSON().content
        #expect(others.arrayValue != nil || others.objectValue != nil)
        release.open()
        let body = try await blocked.response().content
        #expect(!body.isEmpty, "\(name): the blocked call never completed")
    }

    @Test func aHeadCallbackThatBlocksHoldsBackOnlyItsOwnCall() async throws {
        try await expectOnlyItsOwnCallWaits("onHead") { session, url, reached, release in
            session.get(url).asData()
                .onHead { _ in
                    reached.open()
                    _ = release.wait(seconds: 60)
                }
                .start()
        }
    }

    /// The I/O thread ends once it has had no transfer for its idle lifetime, and the next
    /// transfer starts another. With a lifetime of zero it ends after every request, so the next
    /// request arrives while the old thread still tears its loop down (a clean-clone
    /// ThreadSanitizer run caught two threads sharing the loop's handles then). Every request
    /// must be answered, and under ThreadSanitizer nothing may be touched by both threads.
    @Test func theThreadEndsAndStartsAgainBetweenRequests() async throws {
        let engine = Session.Engine.curl
        try #require(engine.isAvailable)
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: engine) { $0.ioThreadIdleLifetime = 0 }
        defer { session.invalidate() }
        let answered = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var count = 0
                    // 100 requests in all: each starts a thread and a connection, which under
                    // ThreadSanitizer cost enough (400 took 54 s there) to starve the suites
                    // running beside it; ThreadSanitizer caught the race at 160 as often as at 400.
                    for round in 0..<25 {
                        if (round + worker) % 3 == 0 { try? await Task.sleep(nanoseconds: UInt64(round % 4) * 500_000) }
                        if let content = try? await session.get(nginx.url("small.json")).asJSON().content,
                           content.arrayValue != nil || content.objectValue != nil {
                            count += 1
                        }
                    }
                    return count
                }
            }
            return await group.reduce(0, +)
        }
        #expect(answered == 100)
    }

    #if os(Linux)
    /// The I/O thread polls a while before it sleeps when answers come quickly (see `spin_wait`
    /// in CCurlLoop.c), but never for long: after a burst of small requests has earned it every
    /// credit, a transfer whose server goes quiet must cost the thread next to no CPU. A thread
    /// that kept polling while its transfers wait would spend the whole second (it did, 1 000 ms,
    /// with the poll's time limit taken out).
    @Test func theThreadStopsPollingOnceAnswersStopComing() async throws {
        let engine = Session.Engine.curl
        try #require(engine.isAvailable)
        let nginx = try await TestServers.nginx()
        let server = try HoldingServer(declared: 1_000_000, sent: 1024, holdSeconds: 30)
        let session = testSession(engine: engine, timeout: 60)
        defer { session.invalidate() }
        for _ in 0..<200 {
            _ = try await session.get(nginx.url("small.json")).asJSON().content
        }
        let quiet = session.get(server.url).asData().start()
        defer { quiet.cancel() }
        #expect(await server.waitUntilServed(seconds: 30))
        let loop = try #require((session.transport as? CurlEngine)?.loop)
        // Past the polls the burst paid for: a few sweeps of the idle timer.
        try await Task.sleep(nanoseconds: 200_000_000)
        let before = try #require(loop.threadCPUNanoseconds)
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let after = try #require(loop.threadCPUNanoseconds)
        let spent = Double(after - before) / 1e6
        #expect(spent < 250, "the I/O thread spent \(spent) ms of CPU in a second with nothing to do")
        #expect(!quiet.isComplete)
    }
    #endif

    @Test func aHandlerSubclassThatBlocksHoldsBackOnlyItsOwnCall() async throws {
        try await expectOnlyItsOwnCallWaits("subclass") { session, url, reached, release in
            session.get(url).handled(by: BlockingAccumulator(reached: reached, release: release)).start()
        }
    }
}

/// `.asData()`'s handler, but a subclass of it — the caller's code — whose `finish()` blocks.
private final class BlockingAccumulator: Accumulator<Data>, @unchecked Sendable {
    private let reached: TestGate
    private let release: TestGate

    init(reached: TestGate, release: TestGate) {
        self.reached = reached
        self.release = release
        super.init(accepting: .successful)
    }

    override func finish() throws -> Data {
        reached.open()
        _ = release.wait(seconds: 60)
        return try super.finish()
    }
}

/// What each kind of transfer tells the engine: a download takes large chunks; an event stream
/// does not, and runs the caller's code; `.asJSON()`'s handler runs HotPotato's code only.
@Suite struct TransferTraitTests {
    @Test func aDownloadAnEventStreamAndAJSONCallSayWhatTheyAre() throws {
        let progress = ProgressReporter(interval: 1)
        func transfer<Handler: ContentHandler>(_ handler: Handler) -> Transfer<Handler> {
            Transfer(handler: handler, errorBodyLimit: 1024, progress: progress)
        }
        let parser = EventStreamElementParser<ServerSentEvent>(
            maximumEventSize: 1024, lastEventID: "", endMarker: nil, now: { 0 }, transform: { $0 })
        let events = transfer(ElementStreamer(state: ElementStreamState(parser: parser, capacity: 4), gate: .eventStream))
        #expect(!events.prefersLargeChunks && !events.runsOnlyLibraryCode)
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let file = transfer(FileWriter(destination: scratch.file("f.bin")))
        #expect(file.prefersLargeChunks && file.suitsDownloadLane && !file.runsOnlyLibraryCode)
        // A streaming subclass of the caller's reads in bulk, on the session's loop (no lane: its
        // requests may count on the session's connections); in-memory handlers and event-stream
        // parsers, subclassed or not, keep small reads.
        let counting = transfer(ByteCounter())
        #expect(counting.prefersLargeChunks && !counting.suitsDownloadLane)
        #expect(!transfer(JSONParser<JSON>()).prefersLargeChunks && !transfer(LineCounter()).prefersLargeChunks)
        #expect(!transfer(EventStreamParser(onEvent: { _ in })).prefersLargeChunks)
        #expect(!events.suitsDownloadLane)
        // An event stream is open for long and mostly idle: a small read buffer. A JSON Lines
        // stream may be an export read as fast as it comes, and nothing else asks.
        #expect(events.prefersSmallReads)
        let lines = JSONElementParser<Int>(
            mode: .lines, keyPath: nil, decoder: JSONDecoder(), parsingOptions: JSONParsingOptions(), maximumElementSize: 1024)
        #expect(!transfer(ElementStreamer(state: ElementStreamState(parser: lines, capacity: 4), gate: .eventStream)).prefersSmallReads)
        #expect(!file.prefersSmallReads && !transfer(Accumulator<Data>()).prefersSmallReads)
        #expect(transfer(JSONParser<JSON>()).runsOnlyLibraryCode)
        #expect(transfer(Accumulator<Data>()).runsOnlyLibraryCode)
        #expect(!transfer(JSONParser<[Int]>(decoding: [Int].self)).runsOnlyLibraryCode, "a Decodable type's init(from:) is the caller's code")
        let withHead = Transfer(handler: JSONParser<JSON>(), errorBodyLimit: 1024, progress: progress, onHead: { _ in })
        #expect(!withHead.runsOnlyLibraryCode, "a head callback is the caller's code")
    }
}

/// A streaming handler of a caller's: counts the body's bytes.
private final class ByteCounter: SelectiveDiscarder<Int64> {
    private var count: Int64 = 0
    init() { super.init() }
    override func receive(_ chunk: Data) throws { count += Int64(chunk.count) }
    override func finish() throws -> Int64 { count }
}

/// An in-memory handler of a caller's.
private final class LineCounter: Accumulator<Int> {
    override func content(from body: Data) throws -> Int { body.filter { $0 == 10 }.count }
}
