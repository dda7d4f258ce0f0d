import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes to standard output and standard error, unbuffered, from any thread.
enum Console {
    private static let lock = NSLock()

    /// Whether standard error is a terminal (where the progress bar goes).
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    /// The terminal's width in columns, or 80.
    static var terminalWidth: Int {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }

    /// Lines kept at the bottom of the terminal (a batch's progress, one line a download):
    /// every message to standard error is written above them. Guarded by `lock`.
    nonisolated(unsafe) private static var overlay: [String] = []

    /// curl's `-s` without `-S`: messages to standard error (errors, warnings, summaries) are
    /// dropped; `-v`'s lines are still written. Set once, before the request. Guarded by `lock`.
    nonisolated(unsafe) private static var silenced = false

    /// Drops every later message to standard error, except those written `evenWhenSilent`.
    static func silence() {
        lock.lock()
        silenced = true
        lock.unlock()
    }

    /// Writes `text` to standard error (above the kept lines of a batch), unless ``silence()``
    /// was asked and the text is not written `evenWhenSilent` (`-v`'s lines are).
    static func error(_ text: String, evenWhenSilent: Bool = false) {
        lock.lock()
        defer { lock.unlock() }
        if silenced && !evenWhenSilent { return }
        if overlay.isEmpty {
            unlockedWrite(STDERR_FILENO, Data(text.utf8))
        } else {
            unlockedWrite(STDERR_FILENO, Data((erasure + text + overlay.map { $0 + "\n" }.joined()).utf8))
        }
    }

    /// Replaces the lines kept at the bottom of the terminal (none: `[]`).
    static func setOverlay(_ lines: [String]) {
        lock.lock()
        defer { lock.unlock() }
        let text = erasure + lines.map { $0 + "\n" }.joined()
        overlay = lines
        unlockedWrite(STDERR_FILENO, Data(text.utf8))
    }

    /// Moves up over the kept lines and clears to the end of the screen. Under `lock`.
    private static var erasure: String {
        overlay.isEmpty ? "" : "\u{1B}[\(overlay.count)F\u{1B}[J"
    }

    static func output(_ text: String) { write(STDOUT_FILENO, Data(text.utf8)) }

    static func write(_ descriptor: Int32, _ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        unlockedWrite(descriptor, data)
    }

    private static func unlockedWrite(_ descriptor: Int32, _ data: Data) {
        data.withUnsafeBytes { buffer in
            guard var base = buffer.baseAddress else { return }
            var remaining = buffer.count
            while remaining > 0 {
                #if canImport(Glibc)
                let written = Glibc.write(descriptor, base, remaining)
                #else
                let written = Darwin.write(descriptor, base, remaining)
                #endif
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                base += written
                remaining -= written
            }
        }
    }
}
