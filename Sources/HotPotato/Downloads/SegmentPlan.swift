import Foundation

/// The bookkeeping of a segmented download (see ``FileWriter``'s "Several connections"): which
/// byte ranges of the file are on disk, which are being fetched and by which worker, and which
/// wait for one.
///
/// A worker *claims* bytes as they arrive (so that no two workers write the same byte), and
/// reports them *written* once they are on disk; only written bytes count as done (in the
/// resumable record, in the digest's prefix). When a worker stops, whatever it claimed but did
/// not write, and what it had still to fetch, wait for another.
///
/// Not thread-safe: ``SegmentedDownload`` holds it under its lock.
struct SegmentPlan {
    /// What one worker is fetching: `start..<end`, of which `start..<claimed` arrived and
    /// `start..<written` is on disk.
    struct Assignment: Equatable {
        var start: Int64
        var claimed: Int64
        var written: Int64
        var end: Int64
        /// When the assignment began (monotonic nanoseconds): its rate decides which is slowest.
        var began: UInt64
        /// Where the worker's response ends: the file's end for a response that runs on (the
        /// first), the end of the range it asked for otherwise.
        var limit: Int64

        init(_ range: Range<Int64>, began: UInt64, limit: Int64) {
            start = range.lowerBound
            claimed = range.lowerBound
            written = range.lowerBound
            end = range.upperBound
            self.began = began
            self.limit = limit
        }
    }

    /// The size of the file.
    let length: Int64
    /// The pending ranges are not cut into parts smaller than this.
    let minimumSplit: Int64
    /// A free worker takes half of a running assignment only when each half is at least this
    /// (a quarter of ``minimumSplit``): near the end, a slow connection's last megabyte is
    /// worth a new request.
    var minimumSteal: Int64 { max(1, minimumSplit / 4) }
    /// The ranges on disk: sorted, merged.
    private(set) var written: [Range<Int64>]
    /// The ranges nobody fetches: sorted.
    private(set) var pending: [Range<Int64>]
    /// What each worker fetches.
    private(set) var active: [Int: Assignment] = [:]

    /// A plan for a file of `length` bytes of which `written` are on disk already.
    init(length: Int64, written: [Range<Int64>] = [], minimumSplit: Int64) {
        self.length = length
        self.minimumSplit = max(1, minimumSplit)
        var merged: [Range<Int64>] = []
        for range in written { Self.insert(range.clamped(to: 0..<length), into: &merged) }
        self.written = merged
        pending = Self.complement(of: merged, in: 0..<length)
    }

    /// Whether every byte of the file is on disk.
    var isComplete: Bool { written == [0..<length] || length == 0 }

    /// The bytes on disk.
    var bytesWritten: Int64 { written.reduce(0) { $0 + Int64($1.count) } }

    /// The bytes on disk or arrived (claimed) but not yet written.
    var bytesReceived: Int64 {
        active.values.reduce(bytesWritten) { $0 + ($1.claimed - $1.written) }
    }

    /// How many bytes from the start of the file are on disk without a gap.
    var contiguousPrefix: Int64 {
        guard let first = written.first, first.lowerBound == 0 else { return 0 }
        return first.upperBound
    }

    /// The bytes still to fetch (pending, or assigned and not yet arrived).
    var missingBytes: Int64 {
        pending.reduce(0) { $0 + Int64($1.count) } + active.values.reduce(0) { $0 + ($1.end - $1.claimed) }
    }

    /// The first byte not on disk, if any.
    var firstMissingOffset: Int64? {
        guard !isComplete else { return nil }
        return contiguousPrefix
    }

    /// Cuts the pending ranges into pieces of about the same size, enough for `count` workers,
    /// none smaller than ``minimumSplit`` (unless a pending range is), and none larger than
    /// `largest`: small pieces taken in order keep what is written close to a prefix of the file
    /// (what a digest, which reads in order, can follow), at the cost of a request a piece.
    mutating func divide(into count: Int, largest: Int64 = .max) {
        let total = pending.reduce(Int64(0)) { $0 + Int64($1.count) }
        let count = Int64(max(1, count))
        let piece = max(minimumSplit, min(largest, (total + count - 1) / count))
        var pieces: [Range<Int64>] = []
        for range in pending {
            var start = range.lowerBound
            while start < range.upperBound {
                var end = min(range.upperBound, start + piece)
                // A short remainder joins the piece before it.
                if range.upperBound - end < minimumSplit { end = range.upperBound }
                pieces.append(start..<end)
                start = end
            }
        }
        pending = pieces
    }

    /// Assigns to `worker` the pending piece that begins at `offset` (a response that streams
    /// from there); `nil` when none does.
    mutating func assign(_ worker: Int, startingAt offset: Int64, now: UInt64) -> Range<Int64>? {
        guard let index = pending.firstIndex(where: { $0.lowerBound == offset }) else { return nil }
        let range = pending.remove(at: index)
        active[worker] = Assignment(range, began: now, limit: length)
        return range
    }

    /// Gives `worker` something to fetch: the first pending piece, else the second half of the
    /// assignment that would take longest to finish at its rate so far (the slowest), when at
    /// least two ``minimumSteal``s of it remain. `nil` when there is nothing worth taking.
    mutating func next(for worker: Int, now: UInt64) -> Range<Int64>? {
        if !pending.isEmpty {
            let range = pending.removeFirst()
            active[worker] = Assignment(range, began: now, limit: range.upperBound)
            return range
        }
        var slowest: (worker: Int, time: Double)?
        for (id, assignment) in active {
            let left = assignment.end - assignment.claimed
            guard left >= 2 * minimumSteal else { continue }
            let elapsed = Double(max(1, now &- assignment.began)) / 1e9
            // Bytes a second so far, with a floor so that one that has not started yet counts
            // as slow rather than infinitely so.
            let rate = max(Double(assignment.claimed - assignment.start) / elapsed, 1024)
            let time = Double(left) / rate
            if slowest.map({ time > $0.time }) ?? true { slowest = (id, time) }
        }
        guard let victim = slowest?.worker, var assignment = active[victim] else { return nil }
        let middle = assignment.claimed + (assignment.end - assignment.claimed) / 2
        let taken = middle..<assignment.end
        assignment.end = middle
        active[victim] = assignment
        active[worker] = Assignment(taken, began: now, limit: taken.upperBound)
        return taken
    }

    /// Gives `worker` everything from `offset` to the end of the file, pending or not: its
    /// response runs from the file's start (a server that stopped serving ranges), and writes
    /// again, with the same bytes, whatever another worker wrote there.
    mutating func takeOver(_ worker: Int, from offset: Int64, now: UInt64) -> Range<Int64> {
        pending = pending.compactMap { piece in
            if piece.upperBound <= offset { return piece }
            return piece.lowerBound < offset ? piece.lowerBound..<offset : nil
        }
        active[worker] = Assignment(offset..<length, began: now, limit: length)
        return offset..<length
    }

    /// Claims up to `count` more bytes for `worker`, at its claimed offset; returns how many it
    /// may write. At its end, the assignment grows over a pending piece that begins there, as far
    /// as its response goes (``Assignment/limit``): those bytes arrive on it anyway.
    mutating func claim(_ worker: Int, count: Int) -> Int {
        guard var assignment = active[worker] else { return 0 }
        var granted = 0
        while granted < count {
            if assignment.claimed == assignment.end, !extend(&assignment) { break }
            let more = Int(min(Int64(count - granted), assignment.end - assignment.claimed))
            assignment.claimed += Int64(more)
            granted += more
        }
        active[worker] = assignment
        return granted
    }

    /// Grows `assignment` over the pending piece that begins at its end, up to its limit.
    private mutating func extend(_ assignment: inout Assignment) -> Bool {
        guard assignment.end < assignment.limit,
              let index = pending.firstIndex(where: { $0.lowerBound == assignment.end }) else { return false }
        let piece = pending.remove(at: index)
        let end = min(piece.upperBound, assignment.limit)
        if end < piece.upperBound { Self.insertPending(end..<piece.upperBound, into: &pending) }
        assignment.end = end
        return true
    }

    /// Whether `worker` has claimed every byte it will: its assignment is claimed, and no
    /// pending piece within its response's reach begins there.
    func isFinished(_ worker: Int) -> Bool {
        guard let assignment = active[worker] else { return true }
        guard assignment.claimed == assignment.end else { return false }
        return assignment.end >= assignment.limit || !pending.contains { $0.lowerBound == assignment.end }
    }

    /// The offset at which `worker` writes next, and where its assignment ends.
    func position(of worker: Int) -> (claimed: Int64, end: Int64)? {
        active[worker].map { ($0.claimed, $0.end) }
    }

    /// `worker`'s bytes up to `offset` are on disk.
    mutating func wrote(_ worker: Int, upTo offset: Int64) {
        guard var assignment = active[worker], offset > assignment.written else { return }
        Self.insert(assignment.written..<offset, into: &written)
        assignment.written = offset
        active[worker] = assignment
    }

    /// `worker` stopped: what it did not write waits for another.
    mutating func release(_ worker: Int) {
        guard let assignment = active.removeValue(forKey: worker) else { return }
        if assignment.written < assignment.end { Self.insertPending(assignment.written..<assignment.end, into: &pending) }
    }

    /// Shortens `worker`'s assignment to end at `end` (its response holds no more); the rest
    /// waits for another.
    mutating func truncate(_ worker: Int, to end: Int64) {
        guard var assignment = active[worker], end < assignment.end, end >= assignment.claimed else { return }
        Self.insertPending(end..<assignment.end, into: &pending)
        assignment.end = end
        assignment.limit = min(assignment.limit, end)
        active[worker] = assignment
    }

    // MARK: - Ranges

    /// Adds `range` to the sorted, merged `ranges`.
    static func insert(_ range: Range<Int64>, into ranges: inout [Range<Int64>]) {
        guard !range.isEmpty else { return }
        var lower = range.lowerBound
        var upper = range.upperBound
        var kept: [Range<Int64>] = []
        kept.reserveCapacity(ranges.count + 1)
        for existing in ranges {
            if existing.upperBound < lower || existing.lowerBound > upper {
                kept.append(existing)
            } else {
                lower = min(lower, existing.lowerBound)
                upper = max(upper, existing.upperBound)
            }
        }
        let index = kept.firstIndex { $0.lowerBound > lower } ?? kept.count
        kept.insert(lower..<upper, at: index)
        ranges = kept
    }

    /// Adds `range` to the sorted pending pieces, without merging (pieces stay the size they were cut).
    private static func insertPending(_ range: Range<Int64>, into ranges: inout [Range<Int64>]) {
        guard !range.isEmpty else { return }
        let index = ranges.firstIndex { $0.lowerBound > range.lowerBound } ?? ranges.count
        ranges.insert(range, at: index)
    }

    /// The parts of `whole` not in the sorted, merged `ranges`.
    static func complement(of ranges: [Range<Int64>], in whole: Range<Int64>) -> [Range<Int64>] {
        var gaps: [Range<Int64>] = []
        var cursor = whole.lowerBound
        for range in ranges {
            if range.lowerBound > cursor { gaps.append(cursor..<min(range.lowerBound, whole.upperBound)) }
            cursor = max(cursor, range.upperBound)
        }
        if cursor < whole.upperBound { gaps.append(cursor..<whole.upperBound) }
        return gaps.filter { !$0.isEmpty }
    }
}
