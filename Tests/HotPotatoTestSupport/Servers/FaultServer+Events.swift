import Foundation
@testable import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `/events`: a `text/event-stream` of the fault server's own, for the Server-Sent Events tests.
///
/// The stream has events 1 through `count=N` (default 10), each `FaultServer.event(_:)`; a
/// request with `Last-Event-ID: K` gets K+1 onwards. Options:
/// - `perConnection=K`: this connection sends K events, then half of the next, then closes
///   early (the declared length, or the chunked body's last chunk, never comes): a dropped
///   connection, to be resumed with `Last-Event-ID`. With `endEach=1`, it ends normally after
///   its K events instead (the body complete): a stream the server ends, to be resumed likewise.
/// - `framing=chunked` (default: `Content-Length`); `lineEnd=crlf` or `cr` (default LF);
///   `bom=1` starts the body with a byte-order mark; `retry=R` sends `retry: R` first.
/// - `done=1` ends with `data: [DONE]`, then keeps the connection open, its body unfinished,
///   until the client leaves (at most 30 s), noting with `abandon=name` that it did.
/// - `hostile=1` sends first an event whose data would steer a terminal (ESC, CSI, an override);
/// - `bad=I` makes event I's data invalid JSON; `pad=P` adds P spaces to each event's data;
///   `fat=F` gives the first event an `id:` and an `event:` of F bytes each (`i…`, `e…`), before
///   its data: an event whose fields, not its data, are large.
/// - `status=S` answers S: a `2xx` other than `204` with the stream itself, a `204` with no
///   body, anything else with a JSON error body (`{"error":{"message":"token expired"}}`);
///   `type=T` sets the Content-Type (default `text/event-stream`).
/// - `reconnectStatus=S` and `reconnectType=T`: the same, for a request that carries a
///   `Last-Event-ID` (a reconnection); `finalStatus=S`: status S for a request whose
///   `Last-Event-ID` is `count` or more (nothing is left to send: `204` says "stop").
/// - `record=name`: notes each request's header fields and arrival (see `eventRequests(_:)`).
/// - `chunk`, `delayMs`, `holdAt`, `gate`, `holdSeconds`, `abandon`: as for `/jsonlines`
///   (see `sendPaced`), over the body bytes.
extension FaultServer {
    /// Event `index`: a comment, its ID, type `tick`, and its JSON data on two `data:` lines —
    /// `{"index":I,` and `"name":"event I"}` — which join into one document.
    static func event(_ index: Int, bad: Bool = false, pad: Int = 0, fat: Int = 0, lineEnd: String = "\n") -> String {
        let second = bad ? #""name":}"# : #""name":"event \#(index)"\#(String(repeating: " ", count: pad))}"#
        let fields = fat > 0
            ? ["id: " + String(repeating: "i", count: fat), "event: " + String(repeating: "e", count: fat)]
            : ["id: \(index)", "event: tick"]
        return ([": tick \(index)"] + fields + [#"data: {"index":\#(index),"#, "data: \(second)", ""])
            .map { $0 + lineEnd }.joined()
    }

    static func serveEvents(_ connection: Int32, query: [String: String], headers: [String: String]) {
        func int(_ name: String, _ fallback: Int) -> Int { query[name].flatMap(Int.init) ?? fallback }
        let lastEventID = headers["last-event-id"]
        if let name = query["record"] { recordEventRequest(name, headers: headers) }
        let count = int("count", 10)
        let resumedAfter = lastEventID.flatMap(Int.init) ?? 0
        var status = int("status", 200)
        var type = query["type"] ?? "text/event-stream"
        if lastEventID != nil {
            status = query["reconnectStatus"].flatMap(Int.init) ?? status
            type = query["reconnectType"] ?? type
        }
        if resumedAfter >= count, let final = query["finalStatus"].flatMap(Int.init) { status = final }
        if status == 204 {
            LoopbackConnection.send(connection, head(status: 204, headers: [:]))
            return
        }
        guard (200...299).contains(status) else {
            let body = Data(#"{"error":{"message":"token expired"}}"#.utf8)
            LoopbackConnection.send(connection, head(status: status, headers: [
                "Content-Length": String(body.count), "Content-Type": query["type"] ?? "application/json",
            ]))
            LoopbackConnection.send(connection, body)
            return
        }
        let lineEnd = query["lineEnd"] == "crlf" ? "\r\n" : query["lineEnd"] == "cr" ? "\r" : "\n"
        let first = resumedAfter + 1
        let perConnection = query["perConnection"].flatMap(Int.init)
        var text = query["bom"] == "1" ? "\u{FEFF}" : ""
        if let retry = query["retry"] { text += "retry: \(retry)" + lineEnd + lineEnd }
        if query["hostile"] == "1" { text += "data: red \u{1B}[31m, \u{9B}2J and \u{202E}reversed" + lineEnd + lineEnd }
        var last = count
        if let perConnection { last = min(count, first + perConnection - 1) }
        for index in first...max(first, last) where index <= last {
            text += event(index, bad: index == int("bad", -1), pad: int("pad", 0), fat: index == 1 ? int("fat", 0) : 0, lineEnd: lineEnd)
        }
        let dropped = perConnection != nil && last < count && query["endEach"] != "1"
        if query["done"] == "1" && !dropped { text += "data: [DONE]" + lineEnd + lineEnd }
        var body = Data(text.utf8)
        // With an end marker, the body goes on (as far as its framing says) after it.
        var declared = query["done"] == "1" ? body.count + 1_000_000 : body.count
        if dropped {
            // Half of the next event, then the connection ends before its declared end.
            let next = Data(event(last + 1, lineEnd: lineEnd).utf8)
            body += next.prefix(next.count / 2)
            declared = body.count + next.count
        }
        let chunked = query["framing"] == "chunked"
        LoopbackConnection.send(connection, head(status: status, headers: [
            (chunked ? "Transfer-Encoding" : "Content-Length"): chunked ? "chunked" : String(declared),
            "Content-Type": type, "Cache-Control": "no-cache",
        ]))
        let frame: (Data) -> Data = { piece in
            chunked ? Data((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Data("\r\n".utf8) : piece
        }
        guard sendPaced(connection, body, query: query, frame: frame) else { return }
        if dropped {
            shutdown(connection, Int32(SHUT_WR))
            LoopbackConnection.drain(connection)
            return
        }
        if query["done"] == "1" {
            // A stream that goes on after its end marker: only the client leaving ends it.
            LoopbackConnection.sleepUntilClosed(connection, seconds: 30)
            if clientLeft(connection), let name = query["abandon"] { abandonments.withLock { $0[name] = body.count } }
            return
        }
        if chunked { LoopbackConnection.send(connection, Data("0\r\n\r\n".utf8)) }
    }
}
