import Foundation

/// Where a segmented download's parts come from: the request's own URL (source 0) and the
/// mirrors given with it (see "Mirrors" in ``FileWriter``). Each source's strong `ETag` is pinned
/// by its first answer (the request's own by the first response), and every later part from it
/// must carry it. A mirror that fails twice, answers what does not fit (another size, no ranges,
/// another version, an error status), or is far slower than the best is dropped; its parts go to
/// the others. The request's own URL is never dropped: its failures count against the
/// download's budget of failures.
///
/// Not thread-safe: ``SegmentedDownload`` holds it under its lock.
struct SegmentSources {
    struct Source {
        /// `nil` for the request's own URL.
        let url: URL?
        var validator: String?
        var failures = 0
        var dropped = false
        var why: String?
        var active = 0
        /// Bytes fetched, and seconds spent, by the parts it finished.
        var bytes: Int64 = 0
        var seconds: Double = 0
        var parts = 0

        /// Bytes a second over the parts it finished, once there are two.
        var rate: Double? { parts >= 2 && seconds > 0 ? Double(bytes) / seconds : nil }
    }

    private(set) var sources: [Source]
    /// Whether the request's own URL serves parts (not when it answered one with a `200`).
    var ownURLServesParts = true
    /// How many failures drop a mirror.
    static let failuresToDrop = 2
    /// A mirror this many times slower than the fastest source is dropped.
    static let slownessToDrop = 10.0

    init(validator: String, mirrors: [URL]) {
        sources = [Source(url: nil, validator: validator)] + mirrors.map { Source(url: $0) }
    }

    /// The source for a new part: of those not dropped, the one with the fewest parts running
    /// (the earliest given, among equals).
    mutating func choose() -> Int? {
        var best: Int?
        for index in sources.indices where !sources[index].dropped && (index > 0 || ownURLServesParts) {
            if best.map({ sources[index].active < sources[$0].active }) ?? true { best = index }
        }
        if let best { sources[best].active += 1 }
        return best
    }

    /// The first connection runs on the request's own URL.
    mutating func firstConnectionStarted() {
        sources[0].active += 1
    }

    /// Whether any source may serve another part.
    var anyServesParts: Bool {
        sources.indices.contains { !sources[$0].dropped && ($0 > 0 || ownURLServesParts) }
    }

    /// A part from `source` ended; with `bytes` in `seconds` when it finished.
    mutating func ended(_ source: Int, bytes: Int64?, seconds: Double) {
        sources[source].active = max(0, sources[source].active - 1)
        guard let bytes, bytes > 0 else { return }
        sources[source].bytes += bytes
        sources[source].seconds += seconds
        sources[source].parts += 1
        let fastest = sources.compactMap(\.rate).max() ?? 0
        for index in sources.indices.dropFirst() where !sources[index].dropped {
            if let rate = sources[index].rate, rate * Self.slownessToDrop < fastest {
                drop(index, "it ran at \(Int(rate)) bytes/s, under a tenth of the fastest source's")
            }
        }
    }

    /// Pins `source`'s validator at its first answer; `false` when it has another.
    mutating func pin(_ source: Int, _ validator: String) -> Bool {
        if let pinned = sources[source].validator { return pinned == validator }
        sources[source].validator = validator
        return true
    }

    /// A part from `source` failed; returns whether the mirror is dropped for it.
    @discardableResult
    mutating func failed(_ source: Int, _ why: String, dropsAtOnce: Bool) -> Bool {
        sources[source].failures += 1
        guard source > 0, dropsAtOnce || sources[source].failures >= Self.failuresToDrop else { return false }
        drop(source, why)
        return true
    }

    private mutating func drop(_ source: Int, _ why: String) {
        guard source > 0, !sources[source].dropped else { return }
        sources[source].dropped = true
        sources[source].why = why
    }

    /// The mirrors dropped, and why.
    var droppedMirrors: [(url: URL, why: String)] {
        sources.compactMap { source in source.dropped ? source.url.map { ($0, source.why ?? "") } : nil }
    }
}
