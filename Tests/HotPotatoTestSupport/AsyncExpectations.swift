import Foundation
@testable import HotPotato

/// Runs `work`, which must throw a `HotPotatoError`, and returns that error (nil if it succeeded
/// or threw something else).
func expectFailure<T>(_ work: () async throws -> T) async -> HotPotatoError? {
    do {
        _ = try await work()
        return nil
    } catch let error as HotPotatoError {
        return error
    } catch {
        return nil
    }
}

/// The moment `call` completed, as the thread that completed it saw it. Unlike the moment a task
/// awaiting the call resumes, it does not include the wait for a cooperative thread, which on a
/// busy 2-core machine (the CPU-bound suites beside the transfer tests) can last seconds.
func completionDate<Content: Sendable>(of call: Call<Content>) async -> Date {
    await withCheckedContinuation { continuation in
        call.observe { _ in continuation.resume(returning: Date()) }
    }
}

/// Waits until every block enqueued on `queue` so far has run, without blocking a cooperative
/// thread: progress callbacks are delivered on their queue after the call that reports them.
func drain(_ queue: DispatchQueue) async {
    await withCheckedContinuation { continuation in
        queue.async { continuation.resume() }
    }
}

/// A session for tests: short timeouts so a hung transfer fails the test instead of stalling it.
func testSession(
    engine: Session.Engine, timeout: TimeInterval = 20, configure: (inout Session.Configuration) -> Void = { _ in }
) -> Session {
    var configuration = Session.Configuration()
    configuration.requestTimeout = timeout
    configuration.resourceTimeout = 120
    configure(&configuration)
    return Session(configuration: configuration, engine: engine)
}

/// Every engine that can run here: integration tests run against each.
let allEngines: [Session.Engine] = [.urlSession] + (Session.Engine.curl.isAvailable ? [.curl] : [])

/// ``allEngines`` as potato's `--engine` names them: the potato tests run against each.
let allEngineNames: [String] = allEngines.map { $0 == .curl ? "curl" : "urlsession" }

/// Runs blocking work (reading big files, waiting for a process) on a thread of its own, so that
/// it does not hold one of Swift's few cooperative threads and stall the tests running beside it.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}

/// Polls `condition` every 20 ms for at most `seconds`; whether it held.
func eventually(seconds: TimeInterval, _ condition: @escaping @Sendable () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return condition()
}
