import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// The libcurl engine's download lanes (`Session.Configuration.downloadLanes`): a bulk download
/// runs on a lane's thread of its own while one is free, and on the shared I/O thread's delivery
/// threads otherwise; a lane whose handler blocks holds back its own download only; lanes are
/// freed for the next download; with no lanes, nothing runs in one.
@Suite struct DownloadLaneTests {
    static let laneThread = "HotPotato.lane"

    private func session(lanes: Int) throws -> Session {
        try #require(Session.Engine.curl.isAvailable)
        return testSession(engine: .curl, timeout: 120) { $0.downloadLanes = lanes }
    }

    /// Starts a download of `medium.bin` through a `ThreadRecordingFileWriter` stopped at `gate`
    /// (when given) on its first chunk, and waits until it got there.
    private func startBlocked(
        _ session: Session, _ nginx: NginxServer, _ scratch: ScratchDirectory, _ name: String, gate: TestGate
    ) async throws -> (Call<URL>, ThreadRecordingFileWriter) {
        let reached = TestGate()
        let writer = ThreadRecordingFileWriter(destination: scratch.file(name), reached: reached, gate: gate)
        let call = session.get(nginx.url("medium.bin")).handled(by: writer).start()
        #expect(try await offThePool { reached.wait(seconds: 60) }, "\(name) never got its first chunk")
        return (call, writer)
    }

    @Test func aBulkDownloadRunsInALaneAndWithoutLanesOnADeliveryThread() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        for lanes in [1, 0] {
            let session = try session(lanes: lanes)
            defer { session.invalidate() }
            let writer = ThreadRecordingFileWriter(destination: scratch.file("lanes-\(lanes).bin"))
            let file = try await session.get(nginx.url("medium.bin")).handled(by: writer).content
            #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int == NginxServer.mediumFileSize)
            let threads = writer.threadNames
            if lanes > 0 {
                #expect(threads == [Self.laneThread], "with a lane: \(threads)")
            } else {
                #expect(!threads.contains(Self.laneThread) && !threads.isEmpty, "without lanes: \(threads)")
            }
        }
    }

    /// With one lane taken by a download whose handler blocks, the session's other requests —
    /// small ones, and another bulk download, which runs on the shared I/O thread — complete;
    /// then the blocked one completes whole, and the freed lane takes the next download.
    @Test func aBlockedLaneHoldsBackOnlyItsOwnDownload() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let session = try session(lanes: 1)
        defer { session.invalidate() }
        let gate = TestGate()
        defer { gate.open() }
        let (blocked, blockedWriter) = try await startBlocked(session, nginx, scratch, "blocked.bin", gate: gate)
        #expect(blockedWriter.threadNames == [Self.laneThread])

        let completed = await finishes(within: 60) {
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask { _ = try? await session.get(nginx.url("small.json")).asJSON().content }
                }
            }
        }
        #expect(completed, "small requests waited for the blocked lane")
        let other = ThreadRecordingFileWriter(destination: scratch.file("other.bin"))
        let otherFile = try await session.get(nginx.url("medium.bin")).handled(by: other).content
        #expect(try Data(contentsOf: otherFile).count == NginxServer.mediumFileSize)
        #expect(!other.threadNames.contains(Self.laneThread), "a second download went to the busy lane: \(other.threadNames)")

        gate.open()
        let file = try await blocked.response().content
        #expect(try Data(contentsOf: file) == Data(contentsOf: otherFile))

        let next = ThreadRecordingFileWriter(destination: scratch.file("next.bin"))
        _ = try await session.get(nginx.url("medium.bin")).handled(by: next).content
        #expect(next.threadNames == [Self.laneThread], "the lane was not freed: \(next.threadNames)")
    }

    /// Six downloads blocked at once with two lanes: two of them in lanes, four on delivery
    /// threads; all complete whole once released.
    @Test func lanesAreBounded() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let session = try session(lanes: 2)
        defer { session.invalidate() }
        let gate = TestGate()
        defer { gate.open() }
        var started: [(Call<URL>, ThreadRecordingFileWriter)] = []
        for index in 0..<6 {
            started.append(try await startBlocked(session, nginx, scratch, "bounded-\(index).bin", gate: gate))
        }
        let inLanes = started.filter { $0.1.threadNames.contains(Self.laneThread) }.count
        #expect(inLanes == 2)
        gate.open()
        for (call, _) in started {
            let file = try await call.response().content
            #expect(try Data(contentsOf: file).count == NginxServer.mediumFileSize)
        }
    }

    /// Cancelling a download whose lane thread is blocked in its handler ends the call as
    /// cancelled, leaves no file, and frees the lane once the handler has returned (the call ends
    /// at the cancel, the lane a moment later: the next downloads are tried until one gets it).
    @Test func aCancelledLaneDownloadLeavesNothingAndFreesTheLane() async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let session = try session(lanes: 1)
        defer { session.invalidate() }
        let gate = TestGate()
        defer { gate.open() }
        let (call, _) = try await startBlocked(session, nginx, scratch, "cancelled.bin", gate: gate)
        call.cancel()
        gate.open()
        await #expect(throws: HotPotatoError.self) { _ = try await call.response() }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("cancelled.bin").path))
        var inLane = false
        for attempt in 0..<50 where !inLane {
            let next = ThreadRecordingFileWriter(destination: scratch.file("after-\(attempt).bin"))
            _ = try await session.get(nginx.url("medium.bin")).handled(by: next).content
            inLane = next.threadNames == [Self.laneThread]
            if !inLane { try await Task.sleep(nanoseconds: 100_000_000) }
        }
        #expect(inLane, "the lane was never freed after the cancel")
    }
}

/// A `FileWriter` that records the names of the threads its chunks arrive on, and, given a gate,
/// waits there on its first chunk after opening `reached`.
private final class ThreadRecordingFileWriter: FileWriter, @unchecked Sendable {
    private let reached: TestGate?
    private let release: TestGate?
    private let names = Locked(Set<String>())

    init(destination: URL, reached: TestGate? = nil, gate: TestGate? = nil) {
        self.reached = reached
        release = gate
        super.init(destination: destination)
    }

    var threadNames: Set<String> { names.withLock { $0 } }

    /// The calling thread's name as the system has it (what the engine sets; Foundation's
    /// `Thread.name` does not read it on Linux).
    static func currentThreadName() -> String {
        #if os(Linux)
        let descriptor = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return "" }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = read(descriptor, &bytes, bytes.count)
        guard count > 0 else { return "" }
        return String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .newlines)
        #else
        return Thread.current.name ?? ""
        #endif
    }

    override func receive(_ chunk: Data) throws {
        let first = names.withLock { names in
            defer { names.insert(Self.currentThreadName()) }
            return names.isEmpty
        }
        if first {
            reached?.open()
            _ = release?.wait(seconds: 60)
        }
        try super.receive(chunk)
    }
}
