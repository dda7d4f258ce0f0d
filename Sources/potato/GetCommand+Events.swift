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
    /// `--retry N`, a connection that drops or that the server ends is opened again with
    /// `Last-Event-ID`, as `EventSource` does (see `eventReconnection`).
    func streamEvents<Handler>(_ request: Request<Handler>, interruption: Interruption) async -> ExitStatus {
        let reconnection = eventReconnection
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

    /// How `--retry N`, `--retry-delay S` and `--retry-max-time T` apply to a stream: at most N
    /// reconnections since the last connection that stayed up 60 s; the first after S seconds
    /// (default 1) or the server's `retry:`, each next one twice as long (with jitter), at most
    /// 30 s; a server's `retry:` shorter than 1 s (or S, when shorter) raised to it; none starting
    /// later than T seconds after the stream began or last stayed up. `nil` without `--retry`.
    var eventReconnection: EventStreamReconnection? {
        guard let retries = options.retries, retries > 0 else { return nil }
        let delay = options.retryDelay ?? Self.defaultEventRetryDelay
        return EventStreamReconnection(
            maximumReconnections: retries, delay: delay, minimumDelay: min(delay, Self.defaultEventRetryDelay),
            maximumElapsedTime: options.retryMaximumTime)
    }

    /// The wait before the first reconnection without `--retry-delay`, and the floor under a
    /// server's `retry:`: 1 s.
    static let defaultEventRetryDelay: TimeInterval = 1

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
