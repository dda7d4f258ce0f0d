/// Counts the events of a `text/event-stream` body by their terminating blank line (`\n\n`,
/// `\r\n\r\n`), across chunk boundaries: what the peers without an event-stream parser of their
/// own (AsyncHTTPClient, URLSession) do to count events. It parses nothing else.
public struct EventCounter: Sendable {
    private var lineIsEmpty = true
    private var eventHasLines = false

    public init() {}

    /// Feeds the next bytes of the body; the number of events they completed.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> Int where Bytes.Element == UInt8 {
        var completed = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n"):
                // A line ends: an empty line after a non-empty one ends an event.
                if lineIsEmpty, eventHasLines {
                    completed += 1
                    eventHasLines = false
                }
                lineIsEmpty = true
            case UInt8(ascii: "\r"):
                break
            default:
                lineIsEmpty = false
                eventHasLines = true
            }
        }
        return completed
    }
}
