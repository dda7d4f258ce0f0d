import Foundation
@testable import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 server of the project's own, in the test process, for what real servers do
/// not do on purpose. Each connection serves one request and closes. Paths:
///
/// - `/short?declared=N&sent=M` — `Content-Length: N`, then M bytes, then a clean close.
/// - `/reset?declared=N&sent=M` — M bytes of an N-byte body, then a TCP reset.
/// - `/stall?declared=N&sent=M&seconds=S` — M bytes, then silence for S seconds.
/// - `/drip?bytes=N&chunk=C&delayMs=D` — N bytes in C-byte pieces every D milliseconds; with
///   `abandon=name`, notes how far it got if the client goes away (see `abandonedAfter(_:)`);
///   `status=S&location=L` makes it a redirect with that body.
/// - `/coded?file=PATH&coding=C&cut=N` — the bytes of the file at PATH labelled
///   `Content-Encoding: C`, less their last N bytes, with a `Content-Length` that says so.
/// - `/typed?type=T&status=S` — a small JSON body with the given `Content-Type` and status.
/// - `/chunked-cut?sent=M` — a chunked body whose last chunk never comes, then a clean close.
/// - `/raw?status=S&h=Name:%20value&sent=M&from=F` — exactly that status and those header lines
///   (`h` repeats, in order), then M bytes of the pattern from offset F (or the text `body=T`),
///   then a clean close: for heads no honest server sends.
/// - `/verbatim?head=T&padLines=N&padLength=L&body=B` — the text T as it is (a status line and
///   header lines, CRLF-separated, no blank line), then N header lines `X-Pad: aaa…` of L bytes
///   each, a blank line, the text B, and a clean close: for heads that break HTTP.
/// - `/text?charset=C` — "Grüße, Zoë" encoded in C (`iso-8859-1` or `utf-16le`), labelled C.
/// - `/jsonlines?count=N` and `/jsonarray?count=N&key=K` — N elements (see
///   `FaultServer.element(_:)`) as JSON Lines, or as an array at key K of an object with other
///   members around it (top level when K is empty). Options: `chunk=C&delayMs=D` sends the
///   body in C-byte pieces every D milliseconds; `cut=M` declares the whole length but sends
///   M bytes and closes; `bad=I` makes element I malformed; `type=T` sets the Content-Type;
///   `holdAt=B&gate=G` sends the first B bytes, then waits until the test calls
///   `FaultServer.openGate(G)` before it sends the rest — at most 30 s (`holdSeconds=S` changes
///   that), and only while the client is there: one that closes the connection meanwhile is
///   noted as gone after B bytes (with `abandon`). `abandon=name` notes how far the response got
///   when the client went away.
/// - `/ranged?name=N&size=S` — a resource served with ranges, and ways to serve them wrong (see
///   `FaultServer+Ranges.swift`).
/// - `/events?count=N` — a `text/event-stream` of N events (see `FaultServer+Events.swift`),
///   resumed after the request's `Last-Event-ID`, and cut, dropped or held as its options say.
///
/// A TLS handshake gets a plain-HTTP answer, as from a server without TLS on that port.
///
/// Bodies are the repeating bytes of `FaultServer.byte(at:)`, so tests can check what arrived —
/// or, with `json=1` on `/short`, `/reset`, `/stall` and `/chunked-cut`, the start of a JSON array
/// (`[0,0,0,…`), so that a JSON handler meets the fault rather than a syntax error.
final class FaultServer: @unchecked Sendable {
    let port: UInt16
    private let listener: LoopbackSocket

    /// The loopback address it listens on: 127.0.0.1, or another standing for another host.
    let host: String

    var baseURL: URL { URL(string: "http://\(host):\(port)")! }

    func url(_ pathAndQuery: String) -> URL { URL(string: "http://\(host):\(port)\(pathAndQuery)")! }

    static func byte(at offset: Int) -> UInt8 { UInt8(truncatingIfNeeded: offset % 251) }

    static let gates = Gates()

    /// Lets a response held with `holdAt=B&gate=name` send the rest of its body.
    static func openGate(_ name: String) { gates.open(name) }

    /// Whether the response held at gate `name` gave up waiting before the test opened it.
    static func gateTimedOut(_ name: String) -> Bool { gates.timedOut(name) }

    static let abandonments = Locked([String: Int]())

    /// How many body bytes a `/drip`, `/jsonlines` or `/jsonarray` response tagged
    /// `abandon=name` had sent when the client went away (a send failed, or the client closed the
    /// connection while the response was held at a gate), or `nil` while it has not.
    static func abandonedAfter(_ name: String) -> Int? { abandonments.withLock { $0[name] } }

    /// Waits (at most `seconds`, without holding a cooperative thread) until the response tagged
    /// `abandon=name` notes that its client went away; returns how many body bytes it had sent
    /// then, or `nil` if it did not within `seconds`.
    static func waitForAbandonment(_ name: String, seconds: TimeInterval) async -> Int? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let sent = abandonedAfter(name) { return sent }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return abandonedAfter(name)
    }

    /// Named one-shot gates that a response waits at until a test opens them.
    final class Gates: @unchecked Sendable {
        /// How a wait at a gate ended.
        enum Outcome { case opened, expired, clientLeft }

        private let lock = NSLock()
        private var semaphores: [String: DispatchSemaphore] = [:]
        private var expired: Set<String> = []

        private func semaphore(_ name: String) -> DispatchSemaphore {
            lock.lock()
            defer { lock.unlock() }
            if let semaphore = semaphores[name] { return semaphore }
            let semaphore = DispatchSemaphore(value: 0)
            semaphores[name] = semaphore
            return semaphore
        }

        func open(_ name: String) { semaphore(name).signal() }

        /// Waits at most `seconds` for the gate to open, looking every 20 ms whether the client
        /// on `connection` has gone.
        func wait(_ name: String, seconds: Int, connection: Int32) -> Outcome {
            let semaphore = semaphore(name)
            let deadline = Date().addingTimeInterval(TimeInterval(seconds))
            while Date() < deadline {
                if semaphore.wait(timeout: .now() + .milliseconds(20)) == .success { return .opened }
                if FaultServer.clientLeft(connection) { return .clientLeft }
            }
            lock.lock()
            expired.insert(name)
            lock.unlock()
            return .expired
        }

        func timedOut(_ name: String) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            return expired.contains(name)
        }
    }

    /// Whether the client closed `connection` (it sends nothing after its request).
    static func clientLeft(_ connection: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(connection, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    static func body(count: Int) -> Data { Data((0..<count).map(byte(at:))) }

    /// Byte `offset` of a JSON body: `[0,0,0,…`, a valid start of an array at any length.
    static func jsonByte(at offset: Int) -> UInt8 {
        offset == 0 ? UInt8(ascii: "[") : offset % 2 == 1 ? UInt8(ascii: "0") : UInt8(ascii: ",")
    }

    static func body(count: Int, json: Bool) -> Data {
        json ? Data((0..<count).map(jsonByte(at:))) : body(count: count)
    }

    init(host: String = "127.0.0.1") throws {
        self.host = host
        listener = try LoopbackSocket.listening(port: 0, host: host)
        port = listener.port
        LoopbackConnection.acceptForever(listener) { FaultServer.serve($0) }
    }

    private static func serve(_ connection: Int32) {
        defer { _ = systemClose(connection) }
        var yes: Int32 = 1
        setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard let (target, requestHeaders) = readRequest(connection), let components = URLComponents(string: target) else { return }
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
        func int(_ name: String, _ fallback: Int) -> Int { query[name].flatMap(Int.init) ?? fallback }
        let json = query["json"] == "1"

        switch components.path {
        case "/short":
            LoopbackConnection.send(connection, head(status: 200, headers: ["Content-Length": String(int("declared", 1000)), "Content-Type": "application/json"]))
            sendBody(connection, count: int("sent", 100), json: json)
            shutdown(connection, Int32(SHUT_WR))
            LoopbackConnection.drain(connection)
        case "/reset":
            LoopbackConnection.send(connection, head(status: 200, headers: ["Content-Length": String(int("declared", 1_000_000)), "Content-Type": "application/json"]))
            sendBody(connection, count: int("sent", 50_000), json: json)
            usleep(50_000)
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
        case "/stall":
            LoopbackConnection.send(connection, head(status: 200, headers: ["Content-Length": String(int("declared", 1000)), "Content-Type": "application/json"]))
            sendBody(connection, count: int("sent", 10), json: json)
            LoopbackConnection.sleepUntilClosed(connection, seconds: int("seconds", 10))
        case "/drip":
            let total = int("bytes", 1000)
            let chunk = max(1, int("chunk", 100))
            // `status` and `location`: a redirect with a body that long.
            var dripHeaders = ["Content-Length": String(total), "Content-Type": "application/octet-stream"]
            if let location = query["location"] { dripHeaders["Location"] = location }
            LoopbackConnection.send(connection, head(status: int("status", 200), headers: dripHeaders))
            var offset = 0
            while offset < total {
                let count = min(chunk, total - offset)
                guard LoopbackConnection.send(connection, Data((offset..<offset + count).map(byte(at:)))) else {
                    if let name = query["abandon"] { abandonments.withLock { $0[name] = offset } }
                    return
                }
                offset += count
                usleep(UInt32(int("delayMs", 10) * 1000))
            }
        case "/typed":
            let body = Data(#"{"message":"typed response"}"#.utf8)
            LoopbackConnection.send(connection, head(status: int("status", 200), headers: [
                "Content-Length": String(body.count), "Content-Type": query["type"] ?? "text/html",
            ]))
            LoopbackConnection.send(connection, body)
        case "/chunked-cut":
            LoopbackConnection.send(connection, head(status: 200, headers: ["Transfer-Encoding": "chunked", "Content-Type": "application/json"]))
            let sent = int("sent", 100)
            LoopbackConnection.send(connection, Data(String(sent, radix: 16).utf8) + Data("\r\n".utf8) + body(count: sent, json: json) + Data("\r\n".utf8))
            shutdown(connection, Int32(SHUT_WR))
            LoopbackConnection.drain(connection)
        case "/text":
            let charset = query["charset"] ?? "iso-8859-1"
            let encoding: String.Encoding = charset == "utf-16le" ? .utf16LittleEndian : .isoLatin1
            let body = "Grüße, Zoë".data(using: encoding) ?? Data()
            LoopbackConnection.send(connection, head(status: 200, headers: [
                "Content-Length": String(body.count), "Content-Type": "text/plain; charset=\(charset)",
            ]))
            LoopbackConnection.send(connection, body)
        case "/jsonlines", "/jsonarray":
            let document = components.path == "/jsonlines"
                ? jsonLines(count: int("count", 10), bad: query["bad"].flatMap(Int.init))
                : jsonArray(count: int("count", 10), key: query["key"] ?? "", bad: query["bad"].flatMap(Int.init))
            LoopbackConnection.send(connection, head(status: 200, headers: [
                "Content-Length": String(document.count),
                "Content-Type": query["type"] ?? (components.path == "/jsonlines" ? "application/x-ndjson" : "application/json"),
            ]))
            let sent = min(document.count, int("cut", document.count))
            guard sendPaced(connection, document.prefix(sent), query: query) else { return }
            if sent < document.count {
                shutdown(connection, Int32(SHUT_WR))
                LoopbackConnection.drain(connection)
            }
        case "/events":
            serveEvents(connection, query: query, headers: requestHeaders)
        case "/ranged":
            serveRanged(connection, query: query, headers: requestHeaders)
        case "/raw":
            // Exactly the head asked for: `h=Name: value` (repeatable, in order), then `sent`
            // bytes of the pattern starting at offset `from` (or the text `body`), then a close.
            var text = "HTTP/1.1 \(int("status", 200)) Raw\r\nConnection: close\r\n"
            for item in components.queryItems ?? [] where item.name == "h" { text += (item.value ?? "") + "\r\n" }
            LoopbackConnection.send(connection, Data((text + "\r\n").utf8))
            if let literal = query["body"] {
                LoopbackConnection.send(connection, Data(literal.utf8))
            } else {
                let from = int("from", 0)
                let count = int("sent", 0)
                var offset = 0
                while offset < count {
                    let size = min(64 * 1024, count - offset)
                    guard LoopbackConnection.send(connection, Data((from + offset..<from + offset + size).map(byte(at:)))) else { return }
                    offset += size
                }
            }
            shutdown(connection, Int32(SHUT_WR))
            LoopbackConnection.drain(connection)
        case "/coded":
            // The bytes of the file at `file` as the body, labelled `Content-Encoding: coding`,
            // without their last `cut` bytes — and framed for those (a stream cut short that the
            // framing calls whole).
            guard let path = query["file"], let coded = FileManager.default.contents(atPath: path) else {
                LoopbackConnection.send(connection, head(status: 404, headers: ["Content-Length": "0"]))
                return
            }
            let sent = coded.prefix(max(0, coded.count - int("cut", 0)))
            LoopbackConnection.send(connection, head(status: int("status", 200), headers: [
                "Content-Length": String(sent.count), "Content-Encoding": query["coding"] ?? "gzip", "Content-Type": "text/plain",
            ]) + sent)
        case "/request-headers":
            // What went out: the request's header fields as a JSON object, names lowercased, and
            // its target as `:path` (no field has that name).
            var echoed = requestHeaders
            echoed[":path"] = target
            let body = (try? JSONSerialization.data(withJSONObject: echoed, options: [.sortedKeys])) ?? Data("{}".utf8)
            LoopbackConnection.send(connection, head(status: 200, headers: ["Content-Length": String(body.count), "Content-Type": "application/json"]) + body)
        case "/verbatim":
            var text = query["head"] ?? ""
            let pad = "X-Pad: " + String(repeating: "a", count: max(0, int("padLength", 0) - 7))
            for _ in 0..<int("padLines", 0) { text += "\r\n" + pad }
            // `cut=1`: the head exactly as given, without the empty line that ends it, then a close.
            let end = query["cut"] == "1" ? "" : "\r\n\r\n"
            LoopbackConnection.send(connection, Data((text + end + (query["body"] ?? "")).utf8))
            shutdown(connection, Int32(SHUT_WR))
            LoopbackConnection.drain(connection)
        default:
            LoopbackConnection.send(connection, head(status: 404, headers: ["Content-Length": "0"]))
        }
    }

    /// Element `index` of the JSON documents: `{"index":…,"name":"event …","tags":["a","é"],"ok":…}`.
    static func element(_ index: Int) -> String {
        #"{"index":\#(index),"name":"event \#(index)","tags":["a","é"],"ok":\#(index % 2 == 0)}"#
    }

    private static func elementOrBroken(_ index: Int, bad: Int?) -> String {
        index == bad ? #"{"index":\#(index),"name":}"# : element(index)
    }

    static func jsonLines(count: Int, bad: Int? = nil) -> Data {
        Data((0..<count).map { elementOrBroken($0, bad: bad) + "\n" }.joined().utf8)
    }

    static func jsonArray(count: Int, key: String, bad: Int? = nil) -> Data {
        let array = "[" + (0..<count).map { elementOrBroken($0, bad: bad) }.joined(separator: ",\n") + "]"
        if key.isEmpty { return Data(array.utf8) }
        return Data(#"{"meta":{"count":\#(count),"items":[{"not":"these"}]},"\#(key)":\#(array),"after":{"done":true}}"#.utf8)
    }

    static func head(status: Int, headers: [String: String]) -> Data {
        LoopbackConnection.head(status: status, phrase: "Fault", headers: headers)
    }

    private static func sendBody(_ connection: Int32, count: Int, json: Bool = false) {
        var offset = 0
        while offset < count {
            let size = min(64 * 1024, count - offset)
            guard LoopbackConnection.send(connection, Data((offset..<offset + size).map(json ? jsonByte(at:) : byte(at:)))) else { return }
            offset += size
        }
    }


    /// The request target and header fields (names lowercased) of the request on `connection`.
    private static func readRequest(_ connection: Int32) -> (target: String, headers: [String: String])? {
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while received.range(of: Data("\r\n\r\n".utf8)) == nil {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { return nil }
            received.append(buffer, count: count)
            if received.first == 0x16 {
                // A TLS ClientHello: answer in plain HTTP, as a misconfigured server would.
                LoopbackConnection.send(connection, Data("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n".utf8))
                return nil
            }
            if received.count > 64 * 1024 { return nil }
        }
        let head = String(decoding: received, as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        guard let target = requestTarget(lines[0]) else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (target, headers)
    }

    private static func requestTarget(_ requestLine: String) -> String? {
        let parts = requestLine.split(separator: " ")
        return parts.count >= 2 ? String(parts[1]) : nil
    }

}
