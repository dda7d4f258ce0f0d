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
func testSession(timeout: TimeInterval = 20, configure: (inout Session.Configuration) -> Void = { _ in }) -> Session {
    var configuration = Session.Configuration()
    configuration.requestTimeout = timeout
    configuration.resourceTimeout = 120
    configure(&configuration)
    return Session(configuration: configuration)
}
