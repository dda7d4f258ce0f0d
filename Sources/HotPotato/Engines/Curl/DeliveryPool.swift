import Foundation

/// Work a ``DeliveryPool`` thread runs — or the caller awaiting the transfer, when it is handed
/// there (``Completion/handOff(_:)``): one transfer's waiting events, delivered to its handler.
protocol DeliveryJob: AnyObject, Sendable {
    /// Delivers some of the job's events; the job submits itself again if it has more and wants
    /// another turn (so that one busy transfer does not keep a thread from the others).
    func run()
}

/// The threads on which the libcurl engine runs handlers: shared by every session of the
/// process, and only as many as handlers run at once.
///
/// The engine's I/O thread never calls a handler: it queues each transfer's events in its
/// ``CurlHandoff``, which submits itself here. A pool thread takes the job and delivers the
/// transfer's events in order — a transfer is never delivered on two threads at once — and a
/// handler may take its time or block (a slow disk, a user's work): only its own transfer waits,
/// paused once enough of its body has piled up.
///
/// **How many threads.** A thread starts when work arrives and none is free, as long as fewer
/// than ``eagerLimit`` exist; past that, only work that has waited ``starvationDelay`` for a free
/// thread, while no thread came back for more work meanwhile, starts another (handlers are
/// blocking the others: threads merely busy on two cores come back often, and more of them
/// would only share the same cores), up to ``maximumThreads``. A thread
/// with nothing to do for ``idleLifetime`` seconds ends. A burst of events from ten thousand
/// streams thus runs on a handful of threads, while handlers that block still cannot starve the
/// rest until ``maximumThreads`` of them block at once.
final class DeliveryPool: @unchecked Sendable {
    /// The pool every libcurl engine delivers on.
    static let shared = DeliveryPool()

    /// Threads started as soon as work finds none free.
    static let eagerLimit = 4
    /// The most threads; past it, work waits for a handler to return. As many as handlers that
    /// block at once may need: a thread exists only while a handler holds it, and an idle one ends.
    static let maximumThreads = 512
    /// How long work waits for a free thread, with every thread busy, before another starts.
    static let starvationDelay: TimeInterval = 0.005
    /// How long a thread with nothing to do lives.
    static let idleLifetime: TimeInterval = 10

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var jobs: [DeliveryJob] = []
    private var nextJob = 0
    private var threads = 0
    /// Threads waiting for work.
    private var idleThreads = 0
    /// Signals sent to idle threads that they have not woken from yet.
    private var wakeupsInFlight = 0
    /// When the oldest job that found no free thread was submitted (uptime nanoseconds); 0 when
    /// none waits so.
    private var starvedSince: UInt64 = 0
    private var supervising = false
    /// How many jobs threads have taken: the supervisor's sign that threads come back.
    private var jobsTaken: UInt64 = 0

    /// The number of pool threads alive now.
    var threadCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return threads
    }

    /// Queues `job` to run on a pool thread.
    func submit(_ job: DeliveryJob) {
        condition.lock()
        jobs.append(job)
        var spawn = false
        var supervise = false
        var wake = false
        if idleThreads > wakeupsInFlight {
            wakeupsInFlight += 1
            wake = true
        } else if threads < Self.eagerLimit {
            threads += 1
            spawn = true
        } else if threads < Self.maximumThreads {
            if starvedSince == 0 { starvedSince = DispatchTime.now().uptimeNanoseconds }
            if !supervising {
                supervising = true
                supervise = true
            }
        }
        condition.unlock()
        // Signalled once the lock is free: a thread woken while it was held would wake only to
        // sleep again on the lock, and cost its holder a second wake-up.
        if wake { condition.signal() }
        if spawn { startThread() }
        if supervise { scheduleSupervision() }
    }

    // MARK: - Private

    private func startThread() {
        let thread = Thread { [self] in work() }
        thread.name = "HotPotato.delivery"
        thread.start()
    }

    /// Starts the supervisor: a thread of the pool's own (never libdispatch's, whose threads the
    /// process may have blocked) that looks every ``starvationDelay`` whether work still waits
    /// with every thread busy, starts one more thread if so, and ends once no work waits.
    private func scheduleSupervision() {
        let thread = Thread { [self] in supervise() }
        thread.name = "HotPotato.delivery.supervisor"
        thread.start()
    }

    private func supervise() {
        var takenBefore = UInt64.max
        while true {
            // Not a wait on `condition`: a signal meant for an idle thread must never reach it.
            Thread.sleep(forTimeInterval: Self.starvationDelay)
            condition.lock()
            let waiting = jobs.count - nextJob
            guard waiting > 0, threads < Self.maximumThreads else {
                starvedSince = 0
                supervising = false
                condition.unlock()
                return
            }
            let now = DispatchTime.now().uptimeNanoseconds
            var spawn = false
            // Starved, and no thread came back for work since the last look: they are blocked.
            let noProgress = jobsTaken == takenBefore
            takenBefore = jobsTaken
            if noProgress, idleThreads <= wakeupsInFlight, starvedSince != 0,
               now &- starvedSince >= UInt64(Self.starvationDelay * 1e9) {
                threads += 1
                starvedSince = now
                spawn = true
            }
            condition.unlock()
            if spawn { startThread() }
        }
    }

    private func work() {
        while let job = take() {
            job.run()
        }
    }

    /// The next job, waiting for one; `nil` when this thread should end.
    private func take() -> DeliveryJob? {
        condition.lock()
        defer { condition.unlock() }
        while nextJob == jobs.count {
            idleThreads += 1
            let signalled = condition.wait(until: Date().addingTimeInterval(Self.idleLifetime))
            idleThreads -= 1
            if signalled, wakeupsInFlight > 0 { wakeupsInFlight -= 1 }
            if !signalled, nextJob == jobs.count {
                threads -= 1
                return nil
            }
        }
        let job = jobs[nextJob]
        nextJob += 1
        jobsTaken &+= 1
        if nextJob == jobs.count {
            jobs.removeAll(keepingCapacity: true)
            nextJob = 0
            starvedSince = 0
        } else if nextJob > 1024, nextJob * 2 > jobs.count {
            jobs.removeFirst(nextJob)
            nextJob = 0
        }
        return job
    }
}
