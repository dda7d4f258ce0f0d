import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Interceptors and the bearer authenticator against `RetryServer`'s `/auth/…`, which accepts one
/// token at a time, on both engines.
@Suite struct AuthenticationTests {
    static func unique(_ label: String) -> String { "\(label)-\(UUID().uuidString.prefix(8))" }

    @Test(arguments: allEngines)
    func manyConcurrent401sCauseExactlyOneRefresh(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let name = Self.unique("concurrent")
        let path = "/auth/\(name)"
        let fresh = "fresh-\(name)"
        server.setValidToken(fresh, for: name)
        let count = 12
        let authenticator = BearerAuthenticator(credential: BearerCredential(accessToken: "stale")) { _ in
            // Until every request has had its 401 (bounded), so that they all fail together.
            let deadline = Date().addingTimeInterval(10)
            while server.records(path).count < count, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
            return BearerCredential(accessToken: fresh)
        }
        let session = testSession(engine: engine) { $0.interceptors = [authenticator] }
        let results = try await withThrowingTaskGroup(of: JSON.self) { group in
            for _ in 0..<count { group.addTask { try await session.get(server.url(path)).asJSON().content } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == count)
        #expect(results.allSatisfy { $0["user"] == "ok" })
        #expect(authenticator.refreshCount == 1)
        let records = server.records(path)
        #expect(records.count == 2 * count)
        #expect(records.filter { $0.authorization == "Bearer stale" }.count == count)
        #expect(records.filter { $0.authorization == "Bearer \(fresh)" }.count == count)
    }

    @Test(arguments: allEngines)
    func aFailedRefreshFailsEveryWaitingRequestWithItsError(engine: Session.Engine) async throws {
        struct Refused: Error {}
        let server = try await TestServers.retry()
        let name = Self.unique("refused")
        let path = "/auth/\(name)"
        server.setValidToken("never-\(name)", for: name)
        let count = 6
        let authenticator = BearerAuthenticator(credential: BearerCredential(accessToken: "stale")) { _ in
            let deadline = Date().addingTimeInterval(10)
            while server.records(path).count < count, Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }
            throw Refused()
        }
        let session = testSession(engine: engine) { $0.interceptors = [authenticator] }
        let errors = await withTaskGroup(of: HotPotatoError?.self) { group in
            for _ in 0..<count {
                group.addTask { await expectFailure { try await session.get(server.url(path)).asJSON().content } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(errors.count == count)
        for error in errors {
            #expect(error?.code == .authenticationFailed)
            #expect(error?.underlying is Refused)
            #expect(error?.status == 401)
            #expect(error?.serverMessage == "invalid token")
        }
        #expect(authenticator.refreshCount == 1)
        #expect(server.records(path).count == count, "nothing is sent again after a failed refresh")
    }

    @Test(arguments: allEngines)
    func aSecond401IsTheCallsErrorNotAnotherRefresh(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let name = Self.unique("rejected")
        server.setValidToken("unreachable-\(name)", for: name)
        let authenticator = BearerAuthenticator(credential: BearerCredential(accessToken: "a")) { _ in
            BearerCredential(accessToken: "b")
        }
        let session = testSession(engine: engine) { $0.interceptors = [authenticator] }
        let error = await expectFailure { try await session.get(server.url("/auth/\(name)")).response() }
        #expect(error?.status == 401)
        #expect(error?.attempts == 2)
        #expect(authenticator.refreshCount == 1)
        #expect(server.records("/auth/\(name)").map(\.authorization) == ["Bearer a", "Bearer b"])
    }

    @Test(arguments: allEngines)
    func anExpiredCredentialIsRefreshedBeforeTheRequest(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let name = Self.unique("expired")
        server.setValidToken("renewed-\(name)", for: name)
        let expired = BearerCredential(accessToken: "old", expiresAt: Date().addingTimeInterval(5))
        let authenticator = BearerAuthenticator(credential: expired, refreshMargin: 30) { stale in
            #expect(stale?.accessToken == "old")
            return BearerCredential(accessToken: "renewed-\(name)", expiresAt: Date().addingTimeInterval(3600))
        }
        let json = try await testSession(engine: engine).get(server.url("/auth/\(name)")).intercepted(by: authenticator).asJSON().content
        #expect(json["user"] == "ok")
        #expect(server.records("/auth/\(name)").map(\.authorization) == ["Bearer renewed-\(name)"])
        #expect(authenticator.credential?.accessToken == "renewed-\(name)")
    }

    @Test(arguments: allEngines)
    func theTokenGoesOnlyToItsOrigins(engine: Session.Engine) async throws {
        let server = try await TestServers.retry()
        let name = Self.unique("origins")
        let authenticator = BearerAuthenticator(
            credential: BearerCredential(accessToken: "t"), origins: [URL(string: "http://127.0.0.1:1")!]
        ) { _ in BearerCredential(accessToken: "u") }
        let error = await expectFailure {
            try await testSession(engine: engine).get(server.url("/auth/\(name)")).intercepted(by: authenticator).response()
        }
        #expect(error?.status == 401)
        #expect(server.records("/auth/\(name)").map(\.authorization) == [nil], "another port is another origin")
        #expect(authenticator.refreshCount == 0)
    }

    @Test(arguments: allEngines)
    func interceptorsAdaptInOrderSessionFirstAndAThrowFailsTheCall(engine: Session.Engine) async throws {
        struct Header: RequestInterceptor {
            let value: String
            func adapt(_ request: URLRequest, for session: Session) async throws -> URLRequest {
                var request = request
                let earlier = request.value(forHTTPHeaderField: "X-Order").map { $0 + "," } ?? ""
                request.setValue(earlier + value, forHTTPHeaderField: "X-Order")
                return request
            }
        }
        struct Broken: Error {}
        struct Failing: RequestInterceptor {
            func adapt(_ request: URLRequest, for session: Session) async throws -> URLRequest { throw Broken() }
        }
        let bin = try await TestServers.httpbin()
        let session = testSession(engine: engine) { $0.interceptors = [Header(value: "session")] }
        struct Echo: Decodable, Sendable { let headers: [String: String] }
        let echo = try await session.get(bin.url("/anything")).intercepted(by: Header(value: "one"), Header(value: "two"))
            .as(Echo.self).content
        #expect(echo.headers["X-Order"] == "session,one,two")

        let error = await expectFailure { try await session.get(bin.url("/anything")).intercepted(by: Failing()).response() }
        #expect(error?.code == .invalidRequest)
        #expect(error?.underlying is Broken)
        #expect(error?.attempts == 0, "nothing was sent")
    }

    @Test(arguments: allEngines)
    func anInterceptorsDecisionComesBeforeThePolicys(engine: Session.Engine) async throws {
        struct Refuse: RequestInterceptor {
            func retry(_ failure: RetryContext) async -> RetryDecision {
                .fail(HotPotatoError(.invalidRequest, reason: "refused after attempt \(failure.attempt)"))
            }
        }
        let server = try await TestServers.retry()
        let name = Self.unique("refuse")
        let error = await expectFailure {
            try await testSession(engine: engine).get(server.url("/status/\(name)?fail=3"))
                .retry(RetryPolicy(maximumAttempts: 5, initialDelay: 0)).intercepted(by: Refuse()).response()
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.reason == "refused after attempt 1")
        #expect(server.records("/status/\(name)").count == 1)
    }
}
