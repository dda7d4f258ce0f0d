import Foundation
@testable import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `/ranged?name=N&size=S`: a resource of S bytes of the pattern (version 1; version K is the
/// pattern shifted by 7 × (K − 1) bytes) with `ETag: "vK"`, served with ranges as a file server serves
/// them: `Range: bytes=A-` or `bytes=A-B` gets a `206` unless `If-Range` names another version
/// (then a `200` of the whole current version). Faults, as the query says:
///
/// - `ignore=1` — every request gets a `200` of the whole body (a server without ranges);
/// - `weak=1` — the ETag is weak (`W/"v1"`);
/// - `segment200=1` — a range that does not start at 0 gets a `200` of the whole body;
/// - `partsAfterFirstCloses=1` — a range that does not start at 0 gets its head only once the
///   client has closed the connection of the request for the range from 0;
/// - `changeAfter=K` — from the (K+1)th request on, the resource is version 2;
/// - `changeEach=1` — every request finds a new version (request K gets version K);
/// - `ignoreIfRange=1` — `If-Range` is not looked at: a range of another version gets a `206`
///   of the current one, with its `ETag` (as some caches and CDNs answer);
/// - `busyOver=K&busyStatus=S` — while K requests of the name are being answered, another gets
///   status S (503 by default) with an empty body: a cap on connections per client, as nginx's
///   `limit_conn`;
/// - `die=K&dieAfter=B` — the first K requests for a range that does not start at 0 send B
///   bytes (64 KiB by default) and reset the connection;
/// - `chunk=C&delayMs=D` — the body in C-byte pieces every D milliseconds (see `sendPaced`);
/// - `shortParts=B` — a range that does not start at 0 gets its head without `Content-Length`,
///   B bytes of its body, and a clean close: a part cut short that no framing tells of.
///
/// A test can also make a name's resource another version from now on (`setVersion(_:of:)`), or
/// answer every range of it with a `206` of the whole body from byte 0 (`answerRangesFromZero(_:)`:
/// a server that sends the whole file as a range, which continues nothing).
///
/// Every request is recorded under its name (see `rangeRequests(_:)`).
extension FaultServer {
    /// What one request to `/ranged` asked for and got.
    struct RangeRequest: Sendable, Equatable {
        var range: String?
        var ifRange: String?
        var status: Int
        var start: Int
        var authorization: String?
    }

    static let rangeLog = Locked([String: [RangeRequest]]())

    /// 251 × 4 096 bytes of the pattern from offset 0: every stretch of the pattern is a run of
    /// slices of it (copied, not computed byte by byte, which is slow in a debug or sanitized
    /// build).
    private static let patternCycle = Data((0..<251 * 4096).map { byte(at: $0) })

    /// `count` bytes of the pattern from `offset`.
    static func patternBytes(from offset: Int, count: Int) -> Data {
        var data = Data(capacity: count)
        var position = offset
        while data.count < count {
            let start = position % 251
            let take = min(count - data.count, patternCycle.count - start)
            data.append(patternCycle[start..<start + take])
            position += take
        }
        return data
    }

    /// The requests `/ranged?name=name` received, in order.
    static func rangeRequests(_ name: String) -> [RangeRequest] { rangeLog.withLock { $0[name] ?? [] } }

    static func serveRanged(_ connection: Int32, query: [String: String], headers: [String: String]) {
        func int(_ name: String, _ fallback: Int) -> Int { query[name].flatMap(Int.init) ?? fallback }
        let name = query["name"] ?? "ranged"
        let size = int("size", 4 << 20)
        let previous = rangeLog.withLock { $0[name]?.count ?? 0 }
        var version = query["changeAfter"].flatMap(Int.init).map { previous >= $0 ? 2 : 1 } ?? 1
        if query["changeEach"] == "1" { version = previous + 1 }
        if let set = versions.withLock({ $0[name] }) { version = set }
        let etag = query["weak"] == "1" ? "W/\"v\(version)\"" : "\"v\(version)\""
        let rangeHeader = headers["range"]
        if let cap = query["busyOver"].flatMap(Int.init) {
            let admitted = inFlight.withLock { counts -> Bool in
                guard counts[name, default: 0] < cap else { return false }
                counts[name, default: 0] += 1
                return true
            }
            guard admitted else {
                let status = int("busyStatus", 503)
                rangeLog.withLock { $0[name, default: []].append(RangeRequest(
                    range: rangeHeader, ifRange: headers["if-range"], status: status, start: -1, authorization: headers["authorization"])) }
                LoopbackConnection.send(connection, self.head(status: status, headers: ["Content-Length": "0"]))
                return
            }
        }
        defer { if query["busyOver"] != nil { inFlight.withLock { $0[name, default: 1] -= 1 } } }
        var start = 0
        var end = size - 1
        var status = 200
        if let rangeHeader, query["ignore"] != "1", rangeHeader.hasPrefix("bytes="),
           query["ignoreIfRange"] == "1" || headers["if-range"].map({ $0 == etag }) ?? true {
            let bounds = rangeHeader.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
            if bounds.count == 2, let first = Int(bounds[0]), first < size {
                start = first
                end = Int(bounds[1]).map { min($0, size - 1) } ?? size - 1
                status = 206
            }
        }
        // `partsAfterFirstCloses=1`: a request for a range that does not start at 0 waits (up to
        // 30 s) until the client has closed the connection of the request that did.
        if start > 0, query["partsAfterFirstCloses"] == "1" {
            let deadline = Date().addingTimeInterval(30)
            while !firstClosed.withLock({ $0.contains(name) }), Date() < deadline { usleep(10_000) }
        }
        if status == 206, rangesFromZero.withLock({ $0.contains(name) }) {
            start = 0
            end = size - 1
        }
        if status == 206, start > 0, query["segment200"] == "1" {
            start = 0
            end = size - 1
            status = 200
        }
        rangeLog.withLock { $0[name, default: []].append(RangeRequest(
            range: rangeHeader, ifRange: headers["if-range"], status: status, start: start, authorization: headers["authorization"])) }
        var head = ["Content-Length": String(end - start + 1), "Content-Type": "application/octet-stream", "ETag": etag, "Accept-Ranges": "bytes"]
        if status == 206 { head["Content-Range"] = "bytes \(start)-\(end)/\(size)" }
        let cutShort = status == 206 && start > 0 && query["shortParts"] != nil
        if cutShort { head["Content-Length"] = nil }
        LoopbackConnection.send(connection, self.head(status: status, headers: head))
        let shift = (version - 1) * 7
        var body = patternBytes(from: start + shift, count: end - start + 1)
        if cutShort {
            _ = sendPaced(connection, body.prefix(int("shortParts", 0)), query: query)
            return
        }
        let dies = start > 0 && rangeLog.withLock { log in
            (log[name] ?? []).filter { $0.start > 0 && $0.status == 206 }.count <= int("die", 0)
        }
        if dies {
            body = body.prefix(int("dieAfter", 64 * 1024))
            _ = sendPaced(connection, body, query: query)
            usleep(20_000)
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            return
        }
        _ = sendPaced(connection, body, query: query)
        if start == 0, query["partsAfterFirstCloses"] == "1" {
            LoopbackConnection.sleepUntilClosed(connection, seconds: 30)
            firstClosed.withLock { _ = $0.insert(name) }
        }
    }

    /// The versions tests set (see `setVersion(_:of:)`), by name.
    static let versions = Locked([String: Int]())

    static let rangesFromZero = Locked(Set<String>())

    /// From now on, every range of `name` gets a `206` of the whole body from byte 0.
    static func answerRangesFromZero(_ name: String) { _ = rangesFromZero.withLock { $0.insert(name) } }

    /// From now on, the resource `name` is version `version`.
    static func setVersion(_ version: Int, of name: String) { versions.withLock { $0[name] = version } }

    /// How many requests of each name with `busyOver` are being answered.
    static let inFlight = Locked([String: Int]())

    /// The names whose request for the range from 0 the client has closed.
    static let firstClosed = Locked(Set<String>())
}
