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

/// Seconds `work` took.
func measure(_ work: () async -> Void) async -> TimeInterval {
    let start = Date()
    await work()
    return Date().timeIntervalSince(start)
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

/// Runs blocking work (reading big files, waiting for a process) on a thread of its own, so that
/// it does not hold one of Swift's few cooperative threads and stall the tests running beside it.
func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
