import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a scale job against a client in this process and ends it with the job's `SCALE` line
/// (see ``ScaleOutput``).
///
/// The client's tasks run in Swift concurrency; the clock, the time limits and the report run on
/// a thread of their own (the monitor), so that a client that holds every thread it has — as
/// HotPotato's curl engine did before issue 29, blocked at its cap — cannot keep the job from
/// ending on time and saying how far it got.
public enum ScaleDriver {
    public static func run(_ job: ScaleJob, client: some ScaleClient) async -> Never {
        FileLimit.raiseToHardLimit()
        let start = ScaleTally.now()
        let tally = ScaleTally(streams: job.kind == .fanOut ? 0 : job.count, start: start)
        let monitor = Thread {
            switch job.kind {
            case .streams: monitorStreams(job, tally, start)
            case .headOfLine: monitorHeadOfLine(job, client, tally, start)
            case .fanOut: monitorFanOut(job, tally, start)
            }
        }
        monitor.name = "scale monitor"
        monitor.start()
        switch job.kind {
        case .streams, .headOfLine:
            for index in 0..<job.count {
                let url = job.url(index)
                Task {
                    do {
                        try await client.stream(url) { tally.event(stream: index) }
                        tally.ended()
                    } catch {
                        tally.failed("stream", error)
                    }
                }
            }
        case .fanOut:
            for index in 0..<job.count {
                let url = job.url(index)
                Task {
                    do {
                        _ = try await client.get(url)
                        tally.answered()
                    } catch {
                        tally.failed("get", error)
                    }
                }
            }
        }
        while true { try? await Task.sleep(nanoseconds: 3_600_000_000_000) }
    }

    /// Waits until `done` or `limit` seconds after `start`, printing progress about every second.
    static func wait(until limit: Double, from start: UInt64, _ tally: ScaleTally, done: (ScaleTally.Snapshot) -> Bool) {
        var nextProgress = 1.0
        while true {
            let elapsed = tally.seconds(since: start)
            let snapshot = tally.current
            if done(snapshot) || elapsed >= limit { return }
            if elapsed >= nextProgress {
                ScaleOutput.line(ScaleOutput.fields("PROGRESS", [
                    ("t", (elapsed * 10).rounded() / 10), ("opened", Double(snapshot.opened)),
                    ("events", Double(snapshot.events)), ("answered", Double(snapshot.answered)),
                    ("failed", Double(snapshot.failed)),
                ]))
                nextProgress += 1
            }
            usleep(10_000)
        }
    }

    /// Phase one of the stream jobs: until every stream has delivered its first event, or the
    /// open limit. The fields that tell how it went.
    static func awaitOpening(_ job: ScaleJob, _ tally: ScaleTally, _ start: UInt64) -> [(String, Double)] {
        wait(until: job.openLimit, from: start, tally) { $0.opened >= job.count }
        let snapshot = tally.current
        let allOpen = snapshot.opened >= job.count
        let (median, maximum) = tally.firstEventTimes
        return [
            ("count", Double(job.count)), ("opened", Double(snapshot.opened)), ("all_open", allOpen ? 1 : 0),
            ("open_s", allOpen ? snapshot.lastFirstEvent : tally.seconds(since: start)),
            ("first_p50_s", median), ("first_max_s", maximum),
        ]
    }

    static func monitorStreams(_ job: ScaleJob, _ tally: ScaleTally, _ start: UInt64) -> Never {
        var fields = awaitOpening(job, tally, start)
        // Half an interval (of 1 s) later, so that the window's ends fall between two events of
        // streams that opened together, not on them.
        usleep(500_000)
        let windowStart = ScaleTally.now()
        let before = tally.current.events
        wait(until: job.window, from: windowStart, tally) { _ in false }
        let after = tally.current
        fields += [
            ("window_s", tally.seconds(since: windowStart)), ("window_events", Double(after.events - before)),
            ("failed", Double(after.failed)), ("ended", Double(after.ended)),
        ]
        ScaleOutput.finish(fields)
    }

    static func monitorHeadOfLine(_ job: ScaleJob, _ client: some ScaleClient, _ tally: ScaleTally, _ start: UInt64) -> Never {
        var fields = awaitOpening(job, tally, start)
        let probeStart = ScaleTally.now()
        for host in job.probeHosts {
            let url = job.probe(host: host)
            Task {
                do {
                    _ = try await client.get(url)
                    tally.probe(host: host, .success(tally.seconds(since: probeStart)))
                } catch {
                    tally.probe(host: host, .failure(ScaleClientError(String(describing: error))))
                }
            }
        }
        wait(until: job.probeLimit, from: probeStart, tally) { _ in
            job.probeHosts.allSatisfy { tally.probeResult(host: $0) != nil }
        }
        // The streams held a second more, so that the thread count sampled from outside (every
        // 100 ms) sees the process with them open, however fast the probes answered.
        wait(until: tally.seconds(since: probeStart) + 1, from: probeStart, tally) { _ in false }
        let snapshot = tally.current
        fields += [("opened_at_probe_end", Double(snapshot.opened)), ("failed", Double(snapshot.failed)),
                   ("probe_limit_s", job.probeLimit)]
        for host in job.probeHosts {
            switch tally.probeResult(host: host) {
            case .success(let seconds): fields.append(("probe\(host)_ms", seconds * 1000))
            case .failure(let error):
                fields.append(("probe\(host)_failed", 1))
                ScaleOutput.note("probe\(host)_error", error.description)
            case nil: fields.append(("probe\(host)_unanswered", 1))
            }
        }
        ScaleOutput.finish(fields)
    }

    static func monitorFanOut(_ job: ScaleJob, _ tally: ScaleTally, _ start: UInt64) -> Never {
        wait(until: job.openLimit, from: start, tally) { $0.answered + $0.failed >= job.count }
        let snapshot = tally.current
        let allDone = snapshot.answered + snapshot.failed >= job.count
        ScaleOutput.finish([
            ("count", Double(job.count)), ("answered", Double(snapshot.answered)), ("failed", Double(snapshot.failed)),
            ("all_done", allDone ? 1 : 0), ("total_s", allDone ? snapshot.lastCompletion : tally.seconds(since: start)),
            ("last_answer_s", snapshot.lastAnswer), ("limit_s", job.openLimit),
        ])
    }
}
