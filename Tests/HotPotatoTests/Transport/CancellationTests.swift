import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Cancellation is authoritative: the call completes promptly with `.cancelled`, the handler
/// cleans up (no partial file), and nothing waits for URLSession.
@Suite(.needsNginx, .serialized) struct CancellationTests {
    /// "Promptly", as the threads that cancel and complete a call see it (never a task, which a
    /// busy machine can keep waiting for a cooperative thread): the handler call in progress
    /// takes milliseconds; the bound leaves room for a 2-core machine busy with much else.
    static let prompt: TimeInterval = 3

    /// A ``SlowFileWriter`` that counts the chunks it begins to take once `cancelled` is set.
    static func countingWriter(_ destination: URL, cancelled: Locked<Bool>, count: Locked<Int>) -> SlowFileWriter {
        SlowFileWriter(destination: destination) {
            if cancelled.withLock({ $0 }) { count.withLock { $0 += 1 } }
        }
    }

    enum Point: String, CaseIterable, Sendable {
        case immediately, afterTheHead, midway, nearTheEnd
    }

    @Test(arguments: allEngines, Point.allCases)
    func cancellingADownload(engine: Session.Engine, at point: Point) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let size = Int64(NginxServer.bigFileSize)
        let threshold: Int64 = point == .afterTheHead ? 1 : point == .midway ? size / 2 : size * 9 / 10
        let session = testSession(engine: engine) { $0.progressInterval = 0.01 }
        // The cancel comes from the progress callback, on a queue of its own, so that it lands at
        // the intended point however busy the test process is; the latency is measured from that
        // cancel() to the moment the call settles, both on the threads that make them.
        let call = Locked<Call<URL>?>(nil)
        let cancelledAt = Locked<Date?>(nil)
        let cancelReturned = Locked(false)
        let cancelOnce: @Sendable () -> Void = {
            guard let current = call.withLock({ $0 }) else { return }
            guard cancelledAt.recordFirst() else { return }
            current.cancel()
            cancelReturned.withLock { $0 = true }
        }
        let late = Locked(0)
        let destination = scratch.file("big.bin")
        let started = session.get(nginx.url("big.bin"))
            .handled(by: Self.countingWriter(destination, cancelled: cancelReturned, count: late))
            .onProgress(queue: DispatchQueue(label: "canceller")) { progress in
                if point != .immediately, progress.bytesReceived >= threshold { cancelOnce() }
            }
            .start()
        let settledAt = Locked<Date?>(nil)
        started.observe { _ in settledAt.withLock { $0 = Date() } }
        call.withLock { $0 = started }
        if point == .immediately { cancelOnce() }
        let error = await expectFailure { try await started.response() }
        #expect(error?.code == .cancelled, "\(error.map { "\($0)" } ?? "the download completed first")")
        if let cancelled = cancelledAt.withLock({ $0 }), let settled = settledAt.withLock({ $0 }) {
            let latency = settled.timeIntervalSince(cancelled)
            #expect(latency < Self.prompt, "settled \(latency) s after cancel()")
        }
        // What "promptly" means whatever the load: once cancel() has returned, the handler takes
        // no more chunks but for the one whose call may already hold the transfer's lock.
        let chunks = late.withLock { $0 }
        #expect(chunks <= 1, "the handler took \(chunks) chunks after cancel() returned")
        #expect(try scratch.entries().isEmpty, "no partial file")
        #expect(openDescriptors(under: scratch.url).isEmpty)
    }

    @Test(arguments: allEngines) func cancellingTheAwaitingTask(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let session = testSession(engine: engine) { $0.progressInterval = 0.01 }
        let cancelReturned = Locked(false)
        let late = Locked(0)
        let cancelledAt = Locked<Date?>(nil)
        let task = Locked<Task<Response<URL>, any Error>?>(nil)
        let awaitingSince = Locked<Date?>(nil)
        let destination = scratch.file("big.bin")
        // The awaiting task is cancelled from the progress callback, on a queue of its own, once
        // 1 MiB has arrived: mid-download however long this task waits for a cooperative thread.
        // Its cancellation handler then cancels the call right there, within cancel() — once the
        // task awaits the response: a task cancelled before it runs cancels the call only when it
        // gets a thread, which a busy machine can delay for seconds. So the cancel waits until
        // the task has been about to await for 50 ms (it gets there in microseconds). At 16 MiB/s
        // the download lasts 16 s: time enough for the task to start.
        let call = session.get(nginx.url("slow/big.bin")).query("rate", "16m")
            .handled(by: Self.countingWriter(destination, cancelled: cancelReturned, count: late))
            .onProgress(queue: DispatchQueue(label: "canceller")) { progress in
                guard progress.bytesReceived >= 1 << 20, let current = task.withLock({ $0 }),
                      let since = awaitingSince.withLock({ $0 }), Date().timeIntervalSince(since) > 0.05 else { return }
                guard cancelledAt.recordFirst() else { return }
                current.cancel()
                cancelReturned.withLock { $0 = true }
            }
            .start()
        let awaiting = Task {
            awaitingSince.withLock { $0 = Date() }
            return try await call.response()
        }
        task.withLock { $0 = awaiting }
        let completed = await completionDate(of: call)
        let result = await awaiting.result
        #expect((result.failure as? HotPotatoError)?.code == .cancelled, "\(result)")
        let cancelled = try #require(cancelledAt.withLock { $0 }, "the download completed before 1 MiB was reported")
        let latency = completed.timeIntervalSince(cancelled)
        #expect(latency < Self.prompt, "completed \(latency) s after the task was cancelled")
        let chunks = late.withLock { $0 }
        #expect(chunks <= 1, "the handler took \(chunks) chunks after the task was cancelled")
        #expect(try scratch.entries().isEmpty)
    }

    @Test(arguments: allEngines) func cancelWaitsOnlyForTheHandlerCallInProgress(engine: Session.Engine) async throws {
        /// Takes 300 ms over its first chunk, during which the test cancels; notes when that
        /// call returns and how many chunks it is given.
        final class BlockingHandler: SelectiveDiscarder<Void> {
            let entered: DispatchSemaphore
            let calls: Locked<Int>
            let firstReturned: Locked<Date?>
            init(entered: DispatchSemaphore, calls: Locked<Int>, firstReturned: Locked<Date?>) {
                self.entered = entered
                self.calls = calls
                self.firstReturned = firstReturned
                super.init(accepting: .successful)
            }
            override func receive(_ chunk: Data) throws {
                guard calls.withLock({ count -> Bool in count += 1; return count == 1 }) else { return }
                entered.signal()
                usleep(300_000)
                firstReturned.withLock { $0 = Date() }
            }
        }
        let nginx = try await TestServers.nginx()
        let entered = DispatchSemaphore(value: 0)
        let calls = Locked(0)
        let firstReturned = Locked<Date?>(nil)
        let call = testSession(engine: engine).get(nginx.url("big.bin"))
            .handled(by: BlockingHandler(entered: entered, calls: calls, firstReturned: firstReturned)).start()
        // Cancelled from a thread of its own while the handler call is in progress, not from this
        // task, which a busy machine could keep waiting until the download is over.
        let cancelledAt = Locked<Date?>(nil)
        Thread {
            entered.wait()
            cancelledAt.withLock { $0 = Date() }
            call.cancel()
        }.start()
        let completed = await completionDate(of: call)
        let cancelled = try #require(cancelledAt.withLock { $0 })
        let error = await expectFailure { try await call.response() }
        #expect(error?.code == .cancelled)
        // The call completes once the handler call in progress has returned, and before any other.
        let returned = try #require(firstReturned.withLock { $0 }, "the call completed while the handler call was in progress")
        #expect(completed >= returned)
        #expect(calls.withLock { $0 } == 1, "no chunk after the cancel")
        let latency = completed.timeIntervalSince(cancelled)
        #expect(latency < Self.prompt, "the 300 ms handler call finishes, then the call completes: \(latency) s")
    }

    /// A cancel that lands while the call is starting, on a body small enough to finish at once:
    /// on Linux, URLSession with a `URLCache` crashes the process in this race
    /// ("Trying to access a behaviour for a task that in not in the registry"), so the engine
    /// runs URLSession without one (the cancel races of a cache-less task are the
    /// URLSessionTaskCanceller's; see its tests). Many rounds, since each one hits the window
    /// only sometimes.
    @Test(arguments: allEngines) func cancellingCallsAsTheyStartNeverCrashes(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: engine)
        var cancelled = 0
        for round in 0..<400 {
            let call = session.get(nginx.url("small.json")).asData().start()
            if round % 3 == 1 { try await Task.sleep(for: .microseconds(round % 7 * 50)) }
            DispatchQueue.global().async { call.cancel() }
            do {
                let response = try await call.response()
                #expect(!response.content.isEmpty)
            } catch {
                #expect(error.code == .cancelled, "\(error)")
                cancelled += 1
            }
        }
        #expect(cancelled > 0, "no cancel landed before its call completed")
    }

    @Test(arguments: allEngines) func cancellingACompletedCallChangesNothing(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let call = testSession(engine: engine).get(nginx.url("small.json")).asJSON().start()
        let json = try await call.response().content
        call.cancel()
        #expect(try await call.response().content == json)
        #expect(call.isComplete)
    }
}

extension Locked where Value == Date? {
    /// Records the time now if none is recorded yet; returns whether this call recorded it.
    func recordFirst() -> Bool {
        withLock { date in
            defer { if date == nil { date = Date() } }
            return date == nil
        }
    }
}
