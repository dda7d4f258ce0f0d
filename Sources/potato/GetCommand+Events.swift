import Foundation
import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `potato get --events`: a `text/event-stream` printed as it arrives, one event a line.
extension GetCommand {
    /// Prints each event as one line of JSON — `{"type":…,"id":…,"data":…}`, with `"retry"` when
    /// the event set one — the data as JSON when it is a JSON document, else as a string. With
    /// `--retry N`, a connection that drops is resumed with `Last-Event-ID` up to N times in a row
    /// (a body that ends normally ends the command).
    func streamEvents<Handler>(_ request: Request<Handler>, interruption: Interruption) async -> ExitStatus {
        let reconnection = (options.retries ?? 0) > 0
            ? EventStreamReconnection(
                maximumAttempts: options.retries ?? 0, delay: options.retryDelay ?? 1, reconnectsAfterEnd: false)
            : nil
        let maximum = options.maximumSize.map { Int(clamping: $0) } ?? 16 * 1024 * 1024
        let stream = request.streamEvents(reconnection: reconnection, maximumEventSize: maximum)
        let task = Task {
            do throws(HotPotatoError) {
                for try await event in stream { Console.output(Self.line(for: event) + "\n") }
                return Optional<HotPotatoError>.none
            } catch {
                return error
            }
        }
        interruption.onInterrupt { task.cancel() }
        guard let error = await task.value else { return .success }
        if let signal = interruption.signal {
            Console.error("potato: interrupted\n")
            return signal == SIGTERM ? .terminated : .interrupted
        }
        return report(error)
    }

    /// One event as a line of JSON, safe to print on a terminal: the controls and bidirectional
    /// characters JSON leaves as they are (C1, overrides, isolates) are written as `\u` escapes,
    /// which keeps the line valid JSON.
    static func line(for event: ServerSentEvent) -> String {
        var members = [JSON.Object.Member(key: "type", value: .string(event.type)), .init(key: "id", value: .string(event.id))]
        if let retry = event.retry { members.append(.init(key: "retry", value: .number(JSON.Number(retry)))) }
        let data = (try? JSON(parsing: Data(event.data.utf8))) ?? .string(event.data)
        members.append(.init(key: "data", value: data))
        return TerminalText.safe(JSON.object(JSON.Object(members)).serialized()) { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }
}
