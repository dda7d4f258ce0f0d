import Foundation
import Testing

/// The servers integration tests talk to, started once per test process on first use and
/// stopped when it exits. Tests that need nginx or httpbin are enabled only when they are
/// installed (`Tests/run-all.sh` installs them); one that cannot start fails with its log.
enum TestServers {
    static let nginxInstalled = NginxServer.isInstalled
    static let httpbinInstalled = HTTPBinServer.isInstalled

    private static let nginxResult = Result { try NginxServer.start() }
    private static let httpbinResult = Result { try HTTPBinServer.start() }
    private static let faultResult = Result { try FaultServer() }

    static func nginx() throws -> NginxServer { try nginxResult.get() }
    static func httpbin() throws -> HTTPBinServer { try httpbinResult.get() }
    static func fault() throws -> FaultServer { try faultResult.get() }
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
