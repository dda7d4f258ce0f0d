import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The lines a scale child prints for the harness, written straight to standard output (no
/// buffering: the process ends with `_exit`, which flushes nothing):
///
/// - `PROGRESS key=value …` about every second, so that a child killed at its deadline still
///   tells how far it got;
/// - `NOTE key text` for what is not a number (the first error of a kind);
/// - `SCALE key=value …` once, at the end, with every measured number.
public enum ScaleOutput {
    public static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    public static func fields(_ prefix: String, _ values: [(String, Double)]) -> String {
        prefix + " " + values.map { "\($0.0)=\(format($0.1))" }.joined(separator: " ")
    }

    public static func note(_ key: String, _ text: String) {
        line("NOTE \(key) \(clean(text))")
    }

    /// Prints the final line and ends the process at once: the transfers still open are not
    /// part of the measurement, and a client whose threads are all stuck must still end.
    public static func finish(_ values: [(String, Double)]) -> Never {
        line(fields("SCALE", values))
        _exit(0)
    }

    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(format: "%.6f", value)
    }

    /// One line of at most 300 characters, with no control characters (server text can carry
    /// escape sequences).
    static func clean(_ text: String) -> String {
        let scalars = text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : Character($0) }
        return String(String(scalars).prefix(300))
    }
}
