import Foundation

/// Sizes, rates and durations as people read them.
enum ByteCount {
    /// `512 B`, `1.5 KiB`, `256.00 MiB`, `2.00 GiB`.
    static func text(_ bytes: Int64) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return String(format: unit >= 1 ? "%.2f" : "%.1f", value) + " " + units[unit]
    }

    /// `3.2 MiB/s`.
    static func rate(_ bytesPerSecond: Double) -> String {
        text(Int64(max(0, bytesPerSecond.isFinite ? bytesPerSecond : 0))) + "/s"
    }

    /// `0:07`, `12:30`, `1:02:03`.
    static func duration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 0, seconds < 360_000 else { return "--:--" }
        let total = Int(seconds.rounded(.up))
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0
            ? String(format: "%d:%02d:%02d", hours, minutes, rest)
            : String(format: "%d:%02d", minutes, rest)
    }
}
