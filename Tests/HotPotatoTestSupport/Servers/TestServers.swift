import Foundation
import Testing
@testable import HotPotato

/// The servers integration tests talk to, started once per test process on first use and
/// stopped when it exits. Tests that need nginx or httpbin are enabled only when they are
/// installed (`Tests/run-all.sh` installs them); one that cannot start fails with its log.
///
/// Starting a server blocks (nginx's files are generated, ports are polled), so it happens on a
/// thread of its own: blocking Swift's cooperative threads would stall every other test.
enum TestServers {
    static let nginxInstalled = NginxServer.isInstalled
    static let httpbinInstalled = HTTPBinServer.isInstalled

    private static let nginxServer = StartOnce { try NginxServer.start() }
    private static let httpbinServer = StartOnce { try HTTPBinServer.start() }
    private static let faultServer = StartOnce { try FaultServer() }
    private static let otherHostFaultServer = StartOnce { try FaultServer(host: "127.0.0.2") }
    private static let retryServer = StartOnce { try RetryServer() }
    private static let reuseServer = StartOnce { try ReuseServer() }
    private static let http2FaultServer = StartOnce { try HTTP2FaultServer.start() }
    private static let bodyHoldingServer = StartOnce { try BodyHoldingServer() }
    private static let tlsVerifyingServer = StartOnce { try TLSVerifyingServer.start() }
    private static let tls12Server = StartOnce { try TLSVerifyingServer.start(onlyTLS12: true) }

    static func nginx() async throws -> NginxServer { try await nginxServer.value() }
    /// nginx's HTTPS side; the test fails, saying why, where openssl could not make the test CA.
    static func nginxTLS() async throws -> NginxServer.TLS {
        try #require(try await nginx().tls, "nginx has no TLS server: is openssl installed?")
    }
    static func httpbin() async throws -> HTTPBinServer { try await httpbinServer.value() }
    static func fault() async throws -> FaultServer { try await faultServer.value() }
    /// The same fault server on 127.0.0.2: another host.
    static func faultOnAnotherHost() async throws -> FaultServer { try await otherHostFaultServer.value() }
    static func retry() async throws -> RetryServer { try await retryServer.value() }
    static func reuse() async throws -> ReuseServer { try await reuseServer.value() }
    static func http2Fault() async throws -> HTTP2FaultServer { try await http2FaultServer.value() }
    static func bodyHolding() async throws -> BodyHoldingServer { try await bodyHoldingServer.value() }
    /// `openssl s_server` requiring a client certificate in the handshake.
    static func tlsVerifying() async throws -> TLSVerifyingServer { try await tlsVerifyingServer.value() }
    /// `openssl s_server` that speaks TLS 1.2 alone.
    static func tls12Only() async throws -> TLSVerifyingServer { try await tls12Server.value() }
}

/// Runs a blocking start-up once, off the cooperative thread pool, and hands the result to every
/// caller.
final class StartOnce<Value: Sendable>: Sendable {
    private struct State {
        var result: Result<Value, any Error>?
        var waiters: [CheckedContinuation<Value, any Error>] = []
        var started = false
    }

    private let make: @Sendable () throws -> Value
    private let state = Locked(State())

    init(_ make: @escaping @Sendable () throws -> Value) {
        self.make = make
    }

    func value() async throws -> Value {
        try await withCheckedThrowingContinuation { continuation in
            let (ready, start) = state.withLock { state -> (Result<Value, any Error>?, Bool) in
                if let result = state.result { return (result, false) }
                state.waiters.append(continuation)
                defer { state.started = true }
                return (nil, !state.started)
            }
            if let ready {
                continuation.resume(with: ready)
                return
            }
            guard start else { return }
            let thread = Thread { [self] in
                let result = Result { try make() }
                let waiters = state.withLock { state in
                    state.result = result
                    defer { state.waiters = [] }
                    return state.waiters
                }
                for waiter in waiters { waiter.resume(with: result) }
            }
            thread.start()
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where nginx is installed.
    static var needsNginx: Self {
        .enabled(if: TestServers.nginxInstalled, "nginx is not installed: run Tests/run-all.sh to install it")
    }

    /// Runs the test only where httpbin is installed.
    static var needsHTTPBin: Self {
        .enabled(if: TestServers.httpbinInstalled, "httpbin is not installed: run Tests/run-all.sh to install it")
    }
}
