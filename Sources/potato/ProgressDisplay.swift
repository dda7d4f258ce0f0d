import Foundation
import HotPotato

/// Shows a transfer's progress on standard error — the upload's (`-T`, `-F name=@file`,
/// `--data-file`), then the download's (`-o`) — as a bar redrawn in place on a terminal (bytes,
/// percent, rate, ETA; an upload's marked `↑`), a plain line every second otherwise (an upload's
/// starting with `sent`), or nothing.
final class ProgressDisplay: @unchecked Sendable {
    enum Style {
        case bar, lines, none
    }

    let style: Style
    /// Also told of every download update (a batch's line on the board), whatever the style.
    var observer: (@Sendable (TransferProgress) -> Void)?
    /// The queue the call's progress callbacks run on (`onProgress(queue:)`,
    /// `onUploadProgress(queue:)`): ``finish()`` waits for it, so that the last update — the
    /// forced one at 100 % — is drawn before potato prints its result and exits.
    let queue = DispatchQueue(label: "potato.progress")
    private let lock = NSLock()
    private let start = Date()
    /// Recent (time, bytes) samples, for the rate over the last few seconds. The first is the
    /// first update's: a resumed download's counts start at the bytes it already has.
    private var samples: [(time: TimeInterval, bytes: Int64)] = []
    private var lastLine: TimeInterval = 0
    private var drawn = false
    /// Whether the updates drawn are an upload's; the rate starts again when the direction turns.
    private var uploading = false

    init(style: Style) {
        self.style = style
    }

    /// The byte count, total and rate of the latest update. A resumed download's progress counts
    /// the whole file, the bytes it already had included.
    func update(_ progress: TransferProgress) {
        observer?(progress)
        show(progress.bytesReceived, of: progress.expectedBytes, uploading: false)
    }

    /// The same for the request body's progress.
    func update(_ progress: UploadProgress) {
        show(progress.bytesSent, of: progress.expectedBytes, uploading: true)
    }

    private func show(_ bytes: Int64, of expected: Int64?, uploading: Bool) {
        lock.lock()
        defer { lock.unlock() }
        let now = Date().timeIntervalSince(start)
        if uploading != self.uploading {
            self.uploading = uploading
            samples.removeAll()
        }
        samples.append((now, bytes))
        while samples.count > 2, now - samples[1].time > 3 { samples.removeFirst() }
        switch style {
        case .none:
            return
        case .bar:
            Console.error("\r\u{1B}[K" + (uploading ? "↑" : "") + Self.bar(
                received: bytes, expected: expected, rate: rate(now: now),
                width: Console.terminalWidth - (uploading ? 1 : 0)))
            drawn = true
        case .lines:
            guard now - lastLine >= 1 else { return }
            lastLine = now
            Console.error((uploading ? "sent " : "") + Self.line(received: bytes, expected: expected, rate: rate(now: now)) + "\n")
        }
    }

    /// Ends the bar's line, so that what follows starts on a line of its own.
    func finish() {
        // Updates already queued are drawn first. Never called on `queue` itself.
        queue.sync {}
        lock.lock()
        defer { lock.unlock() }
        if drawn { Console.error("\n") }
        drawn = false
    }

    private func rate(now: TimeInterval) -> Double {
        guard let first = samples.first, let last = samples.last, last.time - first.time > 0.05 else { return 0 }
        return Double(last.bytes - first.bytes) / (last.time - first.time)
    }

    /// ` 42% [##########.............]  107.50 MiB / 256.00 MiB  85.30 MiB/s  ETA 0:02`, fitted to
    /// `width` columns; without a known total, the bytes and rate only.
    static func bar(received: Int64, expected: Int64?, rate: Double, width: Int) -> String {
        guard let expected, expected > 0 else {
            return "\(ByteCount.text(received))  \(ByteCount.rate(rate))"
        }
        let fraction = min(1, Double(received) / Double(expected))
        let percent = String(format: "%3d%%", Int(fraction * 100))
        let eta = rate > 0 ? ByteCount.duration((Double(expected) - Double(received)) / rate) : "--:--"
        let tail = "  \(ByteCount.text(received)) / \(ByteCount.text(expected))  \(ByteCount.rate(rate))  ETA \(eta)"
        let barWidth = max(10, min(50, width - percent.count - tail.count - 4))
        let filled = Int(fraction * Double(barWidth))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled)
        return "\(percent) [\(bar)]\(tail)"
    }

    /// `107.50 MiB of 256.00 MiB (42%), 85.30 MiB/s, ETA 0:02`.
    static func line(received: Int64, expected: Int64?, rate: Double) -> String {
        guard let expected, expected > 0 else { return "\(ByteCount.text(received)), \(ByteCount.rate(rate))" }
        let percent = Int(min(1, Double(received) / Double(expected)) * 100)
        let eta = rate > 0 ? ByteCount.duration((Double(expected) - Double(received)) / rate) : "--:--"
        return "\(ByteCount.text(received)) of \(ByteCount.text(expected)) (\(percent)%), \(ByteCount.rate(rate)), ETA \(eta)"
    }
}
