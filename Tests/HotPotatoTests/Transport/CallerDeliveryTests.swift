import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small response that arrived whole is delivered on the thread of the caller awaiting it, not
/// on the engine's I/O thread (``Completion/handOff(_:)``, ``TransferSink/deliverOnCaller(_:)``):
/// the caller's thread was to be woken anyway, and the I/O thread is free for the next request
/// at once. What must hold: the work runs exactly once, on the waiter, before its wait returns;
/// nobody waiting, or an outcome already settled, leaves the work to the engine; a cancel that
/// races it still ends the call.
@Suite struct CallerDeliveryTests {
    private func response(_ content: Data) -> Response<Data> {
        Response(head: ResponseHead(status: 200), content: content, timings: TransferTimings(start: Date(), head: 0, total: 0))
    }

    /// Hands `work` off from a thread of its own as soon as a waiter is parked; whether it was.
    private func handOffWhenParked(_ completion: Completion<Data>, _ body: @escaping @Sendable () -> Void) async throws -> Bool {
        let work = Job(body)
        return try await offThePool {
            for _ in 0..<10_000 {
                if completion.handOff(work) { return true }
                usleep(1000)
            }
            return false
        }
    }

    @Test func theWaiterRunsTheWorkThatSettlesItsOutcome() async throws {
        let completion = Completion<Data>()
        let ranOn = Locked<pthread_t?>(nil)
        let runs = Locked(0)
        let waiter = Task { await completion.wait() }
        let handed = try await handOffWhenParked(completion) {
            ranOn.withLock { $0 = pthread_self() }
            runs.withLock { $0 += 1 }
            completion.settle(.success(response(Data("done".utf8))))
        }
        #expect(handed, "no waiter was ever parked")
        let outcome = await waiter.value
        #expect(try outcome.get().content == Data("done".utf8))
        #expect(runs.withLock { $0 } == 1)
        #expect(ranOn.withLock { $0 } != nil)
    }

    @Test func withNobodyWaitingOrTheOutcomeSettledTheWorkStaysWithTheEngine() async {
        let completion = Completion<Data>()
        #expect(!completion.handOff(Job {}), "nobody waits: the engine must run the work itself")
        completion.settle(.failure(HotPotatoError(.cancelled, reason: "test")))
        let waiter = Task { await completion.wait() }
        _ = await waiter.value
        #expect(!completion.handOff(Job {}), "the outcome is settled: nothing to hand off")
    }

    /// Two callers await one call: one runs the work, the other gets the outcome it settles.
    @Test func aSecondWaiterGetsTheOutcomeTheFirstSettled() async throws {
        let completion = Completion<Data>()
        let first = Task { await completion.wait() }
        let second = Task { await completion.wait() }
        // Both parked: a hand-off takes one of them only.
        try await Task.sleep(nanoseconds: 50_000_000)
        let handed = try await handOffWhenParked(completion) {
            completion.settle(.success(response(Data("x".utf8))))
        }
        #expect(handed)
        #expect(try await first.value.get().content == Data("x".utf8))
        #expect(try await second.value.get().content == Data("x".utf8))
    }

    /// A cancel that settles the call while the work is on its way still ends the wait, and the
    /// work, run late, changes nothing.
    @Test func aCancelThatRacesTheHandOffEndsTheCall() async throws {
        for _ in 0..<50 {
            let completion = Completion<Data>()
            let waiter = Task { await completion.wait() }
            let handed = try await handOffWhenParked(completion) {
                completion.settle(.success(response(Data("late".utf8))))
            }
            #expect(handed)
            completion.settle(.failure(HotPotatoError(.cancelled, reason: "test")))
            let outcome = await waiter.value
            // Whichever settled first wins; the wait ends either way.
            switch outcome {
            case .success(let response): #expect(response.content == Data("late".utf8))
            case .failure(let error): #expect(error.code == .cancelled)
            }
        }
    }

    /// The transfer hands off only what runs HotPotato's code only, and only to a caller that
    /// awaits: the handler then runs on that caller's thread, and the call completes with the
    /// document.
    @Test func aJSONTransferIsDeliveredOnTheAwaitingCallersThread() async throws {
        let transfer = Transfer(handler: JSONParser<JSON>(), errorBodyLimit: 1024, progress: ProgressReporter(interval: 1))
        #expect(!transfer.deliverOnCaller(Job {}), "nobody awaits yet")
        let deliveringThread = Locked<pthread_t?>(nil)
        /// The thread handing the job off while it is inside `deliverOnCaller`: the job ran inside
        /// the hand-off only if it ran on that thread then (the resumed caller may run it while
        /// the handing thread is still on its way out of the call).
        let handingOff = Locked<pthread_t?>(nil)
        let ranWhileHandingOff = Locked(false)
        let waiter = Task { () -> (Completion<JSON>.Outcome, pthread_t) in
            let outcome = await transfer.completion.wait()
            // No suspension between the job and here: the thread that resumed the caller.
            return (outcome, pthread_self())
        }
        let handed = try await offThePool {
            for _ in 0..<10_000 {
                handingOff.withLock { $0 = pthread_self() }
                let taken = transfer.deliverOnCaller(Job {
                    deliveringThread.withLock { $0 = pthread_self() }
                    if let handing = handingOff.withLock({ $0 }), pthread_equal(handing, pthread_self()) != 0 {
                        ranWhileHandingOff.withLock { $0 = true }
                    }
                    _ = transfer.receive(head: ResponseHead(status: 200, headers: ["Content-Type": "application/json"]))
                    _ = transfer.receive(Data(#"{"a":[1,2]}"#.utf8))
                    transfer.end()
                })
                handingOff.withLock { $0 = nil }
                if taken { return true }
                usleep(1000)
            }
            return false
        }
        #expect(handed)
        let (outcome, resumed) = await waiter.value
        let document = try outcome.get().content
        #expect(document.objectValue?["a"]?.arrayValue?.count == 2)
        let delivering = try #require(deliveringThread.withLock { $0 })
        #expect(!ranWhileHandingOff.withLock { $0 }, "the response was delivered inside the hand-off, on the thread handing it off")
        #expect(pthread_equal(resumed, delivering) != 0, "the response was delivered on the thread that resumed the caller")

        let caller = Transfer(handler: JSONParser<[Int]>(decoding: [Int].self), errorBodyLimit: 1024, progress: ProgressReporter(interval: 1))
        let callerWaiter = Task { await caller.completion.wait() }
        try await Task.sleep(nanoseconds: 20_000_000)
        #expect(!caller.deliverOnCaller(Job {}), "a Decodable type's init(from:) is the caller's code: the engine keeps it")
        caller.cancel()
        _ = await callerWaiter.value
    }

    /// Through the engine: many small `.asJSON()` calls at once, a third of them cancelled at
    /// random moments, each ending with its document or `.cancelled`; nothing hangs, and the
    /// session answers afterwards.
    @Test(arguments: allEngines)
    func smallCallsCancelledAtRandomMomentsAllEnd(engine: Session.Engine) async throws {
        try #require(engine.isAvailable)
        let nginx = try await TestServers.nginx()
        let session = testSession(engine: engine, timeout: 60)
        defer { session.invalidate() }
        let url = nginx.url("small.json")
        let ended = await finishes(within: 60) {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<16 {
                    group.addTask {
                        var random = SplitMix64(seed: UInt64(worker + 1))
                        for round in 0..<12 {
                            let call = session.get(url).asJSON().start()
                            if (round + worker) % 3 == 0 {
                                if random.next() % 2 == 0 { await Task.yield() }
                                call.cancel()
                            }
                            do {
                                let content = try await call.response().content
                                #expect(content.arrayValue != nil || content.objectValue != nil)
                            } catch let error as HotPotatoError {
                                #expect(error.code == .cancelled, "\(error)")
                            } catch {
                                Issue.record("not a HotPotatoError: \(error)")
                            }
                        }
                    }
                }
            }
        }
        #expect(ended, "a call never ended")
        let after = try await session.get(url).asJSON().content
        #expect(after.arrayValue != nil || after.objectValue != nil)
    }
}

/// A job that runs a closure, as the engine's handoff runs its events.
private final class Job: DeliveryJob {
    private let body: @Sendable () -> Void

    init(_ body: @escaping @Sendable () -> Void) {
        self.body = body
    }

    func run() {
        body()
    }
}
