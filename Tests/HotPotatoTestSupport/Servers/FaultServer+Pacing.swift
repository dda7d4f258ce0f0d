import Foundation
@testable import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FaultServer {
    static let progress = Locked([String: Int]())

    /// How many body bytes the response tagged `track=name` has sent so far (its socket accepted
    /// them), or `nil` before the first piece.
    static func bytesSent(_ name: String) -> Int? { progress.withLock { $0[name] } }

    /// Sends `body` as the query says: in `chunk=C`-byte pieces every `delayMs=D` milliseconds;
    /// with `holdAt=B&gate=G`, the first B bytes, then the rest once the test opens gate G (at
    /// most `holdSeconds=S`, 30 by default), only while the client is there. `abandon=name` notes
    /// how far it got when the client went away; `track=name` notes how far it has got after each
    /// piece (see `bytesSent(_:)`). Each piece goes through `frame` (chunked
    /// encoding wraps it). Returns whether the client was still there at the end.
    static func sendPaced(
        _ connection: Int32, _ body: Data, query: [String: String], frame: (Data) -> Data = { $0 }
    ) -> Bool {
        func int(_ name: String, _ fallback: Int) -> Int { query[name].flatMap(Int.init) ?? fallback }
        let body = Data(body)
        let chunk = max(1, int("chunk", 64 * 1024))
        let holdAt = query["gate"] == nil ? nil : query["holdAt"].flatMap(Int.init)
        func abandoned(at offset: Int) -> Bool {
            if let name = query["abandon"] { abandonments.withLock { $0[name] = offset } }
            return false
        }
        var offset = 0
        while offset < body.count {
            var end = min(body.count, offset + chunk)
            if let holdAt, offset < holdAt { end = min(end, holdAt) }
            guard LoopbackConnection.send(connection, frame(body[offset..<end])) else { return abandoned(at: offset) }
            offset = end
            if let name = query["track"] { progress.withLock { $0[name] = offset } }
            if let holdAt, let gate = query["gate"], offset == holdAt,
               gates.wait(gate, seconds: int("holdSeconds", 30), connection: connection) == .clientLeft {
                return abandoned(at: offset)
            }
            if let delay = query["delayMs"].flatMap(Int.init), offset < body.count { usleep(UInt32(delay * 1000)) }
        }
        return true
    }
}
