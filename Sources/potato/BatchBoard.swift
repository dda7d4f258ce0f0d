import Foundation
import HotPotato

/// A batch's progress on a terminal: one line for each download running (its name, percent,
/// bytes and rate), kept at the bottom while the results of those that end are printed above
/// (see ``Console/setOverlay(_:)``). Redrawn at most ten times a second. Off the terminal, or
/// with `-q` or `--progress none`, it draws nothing: each download's result line is all.
final class BatchBoard: @unchecked Sendable {
    private struct Row {
        var name: String
        var received: Int64 = 0
        var expected: Int64?
        let started = Date()
    }

    let isDrawn: Bool
    private let lock = NSLock()
    private var rows: [Int: Row] = [:]
    private var lastDraw = Date.distantPast

    init(isDrawn: Bool) {
        self.isDrawn = isDrawn
    }

    func begin(_ id: Int, name: String) {
        lock.withLock { rows[id] = Row(name: name) }
        draw(force: true)
    }

    func update(_ id: Int, _ progress: TransferProgress) {
        lock.withLock {
            rows[id]?.received = progress.bytesReceived
            rows[id]?.expected = progress.expectedBytes
        }
        draw(force: false)
    }

    func end(_ id: Int) {
        lock.withLock { _ = rows.removeValue(forKey: id) }
        draw(force: true)
    }

    /// Takes the lines off the terminal.
    func finish() {
        if isDrawn { Console.setOverlay([]) }
    }

    private func draw(force: Bool) {
        guard isDrawn else { return }
        let lines: [String]? = lock.withLock {
            let now = Date()
            guard force || now.timeIntervalSince(lastDraw) >= 0.1 else { return nil }
            lastDraw = now
            let width = max(20, Console.terminalWidth - 1)
            return rows.keys.sorted().compactMap { rows[$0] }.map { row in
                let seconds = now.timeIntervalSince(row.started)
                let rate = seconds > 0.05 ? Double(row.received) / seconds : 0
                let line = ProgressDisplay.line(received: row.received, expected: row.expected, rate: rate)
                return Self.fit(TerminalText.safe(row.name), line, width: width)
            }
        }
        if let lines { Console.setOverlay(lines) }
    }

    /// `name  progress`, cut to `width` columns (the name first).
    static func fit(_ name: String, _ progress: String, width: Int) -> String {
        let room = max(8, width - progress.count - 2)
        let shown = name.count > room ? String(name.prefix(room - 1)) + "…" : name
        return String((shown + "  " + progress).prefix(width))
    }
}
