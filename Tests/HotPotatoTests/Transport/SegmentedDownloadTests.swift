import Foundation
import Testing
@testable import HotPotato
@testable import HotPotatoTestSupport

/// Downloads over several connections (`downloadToFile(…, connections:)`) on both engines: against
/// nginx (ranges, strong ETags, a per-connection rate), and against the fault server's `/ranged`
/// resource, whose log says which ranges were asked for and how they were answered: a server
/// without ranges, a weak validator, a segment answered `200`, a resource that changes midway,
/// connections that die, a cancel, and a resumable download continued range by range.
@Suite struct SegmentedDownloadTests {
    private static let size = 6 << 20

    private func ranged(_ fault: FaultServer, _ name: String, _ options: String = "") -> URL {
        fault.url("/ranged?name=\(name)&size=\(Self.size)\(options)")
    }

    /// Starts a resumable download over 4 connections and cancels it once more than 1 MiB is on
    /// disk (as a rule, at several places), leaving the partial file and its record.
    private func interruptResumableDownload(_ session: Session, from url: URL, to destination: URL) async {
        let call = session.get(url).downloadToFile(at: destination, resumable: true, connections: 4).start()
        #expect(PotatoProcess.waitUntil(seconds: 20) { (FileWriter.keptBytes(for: destination) ?? 0) > 1 << 20 })
        call.cancel()
        _ = await expectFailure { try await call.response() }
    }

    private func expectPattern(_ file: URL, size: Int = SegmentedDownloadTests.size, shift: Int = 0) throws {
        let data = try Data(contentsOf: file)
        #expect(data.count == size)
        let expected = FaultServer.patternBytes(from: shift, count: size)
        if data != expected {
            let first = zip(data, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            let last = zip(data, expected).enumerated().reversed().first { $0.element.0 != $0.element.1 }?.offset
            var what = ""
            if let first, let last {
                let region = data[first...last]
                if region.allSatisfy({ $0 == 0 }) {
                    what = " (all zero: never written)"
                } else {
                    let shifts = (0..<251).filter { shift in FaultServer.patternBytes(from: first + shift, count: 4096) == data[first..<first + 4096] }
                    what = " (the pattern shifted by \(shifts) mod 251 at its start)"
                }
            }
            Issue.record("the file is not the resource's bytes: they differ from byte \(first.map(String.init) ?? "?") to \(last.map(String.init) ?? "?")\(what)")
        }
    }

    @Test(.needsNginx, arguments: allEngines) func aFileArrivesWholeOverSeveralConnections(engine: Session.Engine) async throws {
        let nginx = try await TestServers.nginx()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let destination = scratch.file("medium.bin")
        let response = try await testSession(engine: engine, timeout: 60).get(nginx.url("slow/medium.bin"))
            .header("X-Rate", "16m")
            .downloadToFile(at: destination, connections: 4).response()
        #expect(response.status == 206)
        #expect(response.headers["Content-Range"] == "bytes 0-\(NginxServer.mediumFileSize - 1)/\(NginxServer.mediumFileSize)")
        #expect(try filesAreIdentical(destination, nginx.root.appendingPathComponent("medium.bin")))
        #expect(try scratch.entries() == ["medium.bin"], "something was left beside the file")
    }

    @Test(arguments: allEngines) func theFileIsSplitAndEveryPartAskedForWithItsValidator(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "split-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        let progress = Locked([TransferProgress]())
        let queue = DispatchQueue(label: "progress")
        let file = try await testSession(engine: engine, timeout: 60).get(ranged(fault, name, "&chunk=65536&delayMs=5"))
            .onProgress(queue: queue) { value in progress.withLock { $0.append(value) } }
            .downloadToFile(at: destination, connections: 4).content
        await drain(queue)  // the updates are on their way, queued before the call completed
        #expect(file == destination.standardizedFileURL)
        try expectPattern(destination)
        let requests = FaultServer.rangeRequests(name)
        #expect(requests.first?.range == "bytes=0-", "the first request asks for the whole file as a range")
        #expect(requests.first?.ifRange == nil)
        let others = requests.dropFirst()
        #expect(others.count >= 3, "\(requests)")
        #expect(others.allSatisfy { $0.status == 206 && $0.ifRange == "\"v1\"" && $0.start > 0 }, "\(requests)")
        let last = try #require(progress.withLock { $0.last })
        #expect(last.bytesReceived == Int64(Self.size) && last.expectedBytes == Int64(Self.size), "progress counts the whole file: \(last)")
        let counts = progress.withLock { $0.map(\.bytesReceived) }
        #expect(counts == counts.sorted(), "progress went backwards")
    }

    /// The caller's gate was written for the `200` of a download over one connection: the `206`
    /// its `bytes=0-` brings stands for it.
    @Test(arguments: allEngines) func aGateForTheWholeFileAcceptsTheFirstPart(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "gate-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        _ = try await testSession(engine: engine, timeout: 60).get(ranged(fault, name))
            .accepting(statusCodes: [200])
            .downloadToFile(at: destination, connections: 4).content
        try expectPattern(destination)
        #expect(FaultServer.rangeRequests(name).count > 1, "it was split: \(FaultServer.rangeRequests(name))")
    }

    @Test(arguments: allEngines) func aServerWithoutRangesIsReadOverOneConnection(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        for (label, options) in [("ignore", "&ignore=1"), ("weak", "&weak=1")] {
            let name = "\(label)-\(UUID().uuidString)"
            let destination = scratch.file("\(label).bin")
            _ = try await testSession(engine: engine, timeout: 60).get(ranged(fault, name, options))
                .downloadToFile(at: destination, connections: 4).content
            try expectPattern(destination)
            #expect(FaultServer.rangeRequests(name).count == 1, "\(label): \(FaultServer.rangeRequests(name))")
        }
    }

    @Test(arguments: allEngines) func aPartAnswered200LeavesTheRestToTheFirstConnection(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "segment200-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        _ = try await testSession(engine: engine, timeout: 60).get(ranged(fault, name, "&segment200=1&chunk=65536&delayMs=5"))
            .downloadToFile(at: destination, connections: 4).content
        try expectPattern(destination)
        let requests = FaultServer.rangeRequests(name)
        #expect(requests.filter { $0.status == 200 }.count >= 1, "\(requests)")
        #expect(try scratch.entries() == ["file.bin"])
    }

    /// A part of another version (its `If-Range` answered `200` with another `ETag`): the download
    /// starts over, and the file placed is all of the new version.
    /// The same, when the first connection has finished its part before any other answers: one
    /// connection fetches the whole file again and writes what is missing.
    @Test(arguments: allEngines) func aServerFoundToIgnoreRangesLateIsReadOnceMore(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "late200-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        _ = try await testSession(engine: engine, timeout: 60).get(ranged(fault, name, "&segment200=1&partsAfterFirstCloses=1"))
            .downloadToFile(at: destination, connections: 4).content
        try expectPattern(destination)
        let requests = FaultServer.rangeRequests(name)
        let taking = requests.filter { ($0.range?.hasSuffix("-") ?? false) && $0.range != "bytes=0-" }
        if engine == .curl {
            #expect(taking.count == 1 && taking.first?.status == 200, "one connection took over: \(requests)")
        } else {
            // URLSession reads the first response to its end whatever the handler's pace (its
            // connection closes then), so the first connection's handler may still be writing
            // when the parts are refused: it then takes the rest itself, and nothing takes over.
            #expect(taking.count <= 1 && taking.allSatisfy { $0.status == 200 }, "at most one connection took over: \(requests)")
        }
        #expect(try scratch.entries() == ["file.bin"])
    }

    @Test(arguments: allEngines) func aResourceThatChangesMidwayStartsOverAndIsNeverMixed(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "change-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        _ = try await testSession(engine: engine, timeout: 60).get(ranged(fault, name, "&changeAfter=1&chunk=65536&delayMs=5"))
            .downloadToFile(at: destination, resumable: true, connections: 4).content
        try expectPattern(destination, shift: 7)
        let requests = FaultServer.rangeRequests(name)
        #expect(requests.contains { $0.status == 200 && $0.ifRange == "\"v1\"" }, "a part found the new version: \(requests)")
        #expect(requests.filter { $0.range == "bytes=0-" && $0.ifRange == nil }.count == 2, "started over once: \(requests)")
        #expect(try scratch.entries() == ["file.bin"])
    }

    /// A resource that changes at every request: started over twice, then the download fails with
    /// `resumeMismatch` and leaves nothing.
    /// A server that does not look at `If-Range` answers a part of the changed resource with a
    /// `206` of the new version under its new `ETag`: that too is a change, and the download
    /// starts over (it used to fail with an internal error).
    @Test(arguments: allEngines) func aPartOfAnotherVersionAnswered206StartsOver(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "flip-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        _ = try await testSession(engine: engine, timeout: 60).get(ranged(fault, name, "&changeAfter=1&ignoreIfRange=1"))
            .downloadToFile(at: destination, connections: 4).content
        try expectPattern(destination, shift: 7)
        let requests = FaultServer.rangeRequests(name)
        #expect(requests.contains { $0.status == 206 && $0.ifRange == "\"v1\"" && $0.start > 0 }, "a part found the new version: \(requests)")
        #expect(requests.filter { $0.range == "bytes=0-" && $0.ifRange == nil }.count == 2, "started over once: \(requests)")
        #expect(try scratch.entries() == ["file.bin"])
    }

    /// A server that takes two connections from a client at a time (nginx's `limit_conn`) turns
    /// the others away with `503` or `429`: the download goes on with the connections it has.
    @Test(arguments: allEngines, [503, 429])
    func aServerThatCapsConnectionsGetsNoMore(engine: Session.Engine, status: Int) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "capped-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        _ = try await testSession(engine: engine, timeout: 60)
            .get(ranged(fault, name, "&busyOver=2&busyStatus=\(status)&chunk=16384&delayMs=10"))
            .downloadToFile(at: destination, connections: 8).content
        try expectPattern(destination)
        let requests = FaultServer.rangeRequests(name)
        // libcurl sends the seven other requests at once, while the first runs (half a second at
        // this pace); URLSession may hold them back itself, when none is turned away.
        if engine == .curl { #expect(requests.contains { $0.status == status }, "some were turned away: \(requests)") }
        #expect(requests.filter { $0.status == 206 && $0.start > 0 }.count >= 1, "a second connection fetched parts: \(requests)")
        #expect(try scratch.entries() == ["file.bin"])
    }

    @Test(arguments: allEngines) func aResourceThatNeverHoldsStillFails(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "unstable-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        let error = await expectFailure {
            try await testSession(engine: engine, timeout: 60).get(ranged(fault, name, "&changeEach=1&chunk=65536&delayMs=5"))
                .downloadToFile(at: destination, resumable: true, connections: 4).content
        }
        #expect(error?.code == .resumeMismatch, "\(String(describing: error))")
        #expect(error?.reason.contains("changed") == true)
        #expect(FaultServer.rangeRequests(name).filter { $0.range == "bytes=0-" }.count == 3, "\(FaultServer.rangeRequests(name))")
        let left = try scratch.entries()
        #expect(left.isEmpty, "a file of mixed versions or a partial was left: \(left)")
    }

    @Test(arguments: allEngines) func connectionsThatDieAreReplaced(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "die-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        _ = try await testSession(engine: engine, timeout: 60).get(ranged(fault, name, "&die=3&chunk=65536&delayMs=5"))
            .downloadToFile(at: destination, connections: 4).content
        try expectPattern(destination)
        #expect(FaultServer.rangeRequests(name).filter { $0.start > 0 }.count >= 4, "\(FaultServer.rangeRequests(name))")
    }

    /// Parts that end short without a `Content-Length` to tell (a clean close): each is a failure,
    /// waited for and counted, not a part that ended well and is asked for again at once — such
    /// a server kept the download asking forever (222 550 requests in 90 s). The download ends:
    /// whole, by the connection that does not fail, or failed with nothing left.
    @Test(arguments: allEngines) func partsCutShortWithoutALengthEnd(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "short-parts-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        let error = await expectFailure {
            try await testSession(engine: engine, timeout: 60).get(ranged(fault, name, "&shortParts=1000"))
                .downloadToFile(at: destination, connections: 4).content
        }
        if error == nil {
            try expectPattern(destination)
        } else {
            #expect(try scratch.entries().isEmpty)
        }
        let parts = FaultServer.rangeRequests(name).filter { $0.start > 0 }.count
        #expect(parts <= 40, "asked for parts \(parts) times")
    }

    @Test(arguments: allEngines) func aCancelledDownloadLeavesNothing(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "cancel-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        let call = testSession(engine: engine, timeout: 60).get(ranged(fault, name, "&chunk=16384&delayMs=20"))
            .downloadToFile(at: destination, connections: 4).start()
        #expect(PotatoProcess.waitUntil(seconds: 20) { FaultServer.rangeRequests(name).count >= 3 })
        call.cancel()
        let error = await expectFailure { try await call.response() }
        #expect(error?.code == .cancelled)
        let left = try scratch.entries()
        #expect(left.isEmpty, "\(left)")
    }

    /// A resumable download continued after the file changed gets the new version's `200` to its
    /// `If-Range`: the partial file is started over, and the new version is fetched over several
    /// connections too (it was fetched over the one).
    @Test(arguments: allEngines) func aChangedFileIsFetchedAgainOverSeveralConnections(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "renewed-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        let session = testSession(engine: engine, timeout: 60)
        let url = ranged(fault, name, "&chunk=16384&delayMs=10")
        await interruptResumableDownload(session, from: url, to: destination)
        let before = FaultServer.rangeRequests(name).count
        FaultServer.setVersion(2, of: name)

        _ = try await session.get(url).downloadToFile(at: destination, resumable: true, connections: 4).content
        try expectPattern(destination, shift: 7)
        let resumed = FaultServer.rangeRequests(name).dropFirst(before)
        #expect(resumed.first?.ifRange == "\"v1\"" && resumed.first?.status == 200, "\(Array(resumed))")
        #expect(resumed.dropFirst().filter { $0.status == 206 && $0.ifRange == "\"v2\"" && $0.start > 0 }.count >= 2,
                "the new version's parts: \(Array(resumed))")
        #expect(try scratch.entries() == ["file.bin"])
    }

    /// A session that ran a download over several connections is freed once it is dropped, with
    /// its engine's threads and connections (the download held itself, its request, and through
    /// it the session, for ever: 5 threads and 20 descriptors a session, in a tester's run).
    @Test(arguments: allEngines) func aSessionThatSplitADownloadIsFreed(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "freed-\(UUID().uuidString)"
        weak var dropped: Session?
        try await {
            let session = testSession(engine: engine, timeout: 60)
            dropped = session
            _ = try await session.get(ranged(fault, name)).downloadToFile(at: scratch.file("file.bin"), connections: 4).content
        }()
        try expectPattern(scratch.file("file.bin"))
        #expect(FaultServer.rangeRequests(name).count >= 3, "the file was split")
        // Its last references go as the download's queued work ends: a bounded wait.
        #expect(PotatoProcess.waitUntil(seconds: 10) { dropped == nil }, "the session was not freed")
    }

    /// A call's `limitRate` is the whole download's: its connections share it (libcurl engine; the
    /// URLSession engine cannot limit a rate). 6 MiB at 4 MiB/s takes at least 1.5 s less the
    /// connections' first reads; with the limit applied to each of 4 connections instead, it would
    /// take under half a second.
    @Test func aCallsRateLimitIsSharedByItsConnections() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "limited-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        let started = Date()
        _ = try await testSession(engine: .curl, timeout: 60).get(ranged(fault, name, "&chunk=65536&delayMs=5"))
            .limitRate(4 << 20).downloadToFile(at: destination, connections: 4).content
        let elapsed = Date().timeIntervalSince(started)
        try expectPattern(destination)
        let requests = FaultServer.rangeRequests(name)
        #expect(requests.dropFirst().filter { $0.status == 206 && $0.start > 0 }.count >= 3, "several connections: \(requests)")
        #expect(elapsed >= 1.0, "6 MiB at 4 MiB/s over 4 connections took \(elapsed) s")
        #expect(try scratch.entries() == ["file.bin"])
    }

    /// A resumable partial written over several connections is continued part by part by a call
    /// with a rate limit too (it used to start over: a limited call had no other connections).
    @Test func aLimitedCallContinuesEachPart() async throws {
        try #require(Session.Engine.curl.isAvailable)
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "limited-resume-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        let session = testSession(engine: .curl, timeout: 60)
        await interruptResumableDownload(session, from: ranged(fault, name, "&chunk=16384&delayMs=10"), to: destination)
        let info = try #require(PartialDownload(destination: destination.standardizedFileURL).loadInfo())
        let ranges = try #require(info.doneRanges)
        let before = FaultServer.rangeRequests(name).count

        _ = try await session.get(ranged(fault, name, "&chunk=16384&delayMs=10"))
            .limitRate(64 << 20).downloadToFile(at: destination, resumable: true, connections: 4).content
        try expectPattern(destination)
        let resumed = FaultServer.rangeRequests(name).dropFirst(before)
        #expect(resumed.first?.ifRange == "\"v1\"", "\(Array(resumed))")
        #expect(resumed.allSatisfy { $0.status == 206 }, "\(Array(resumed))")
        #expect(!resumed.contains { request in ranges.contains { $0.contains(Int64(request.start)) } },
                "a part already on disk was asked for again: \(Array(resumed)) with \(ranges) kept")
    }

    /// Interrupted with parts on disk (at several places, as a rule), a resumable download keeps
    /// them with a record of the ranges, and the next one asks only for what is missing.
    @Test(arguments: allEngines) func aResumableDownloadContinuesEachPart(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let name = "resume-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        let session = testSession(engine: engine, timeout: 60)
        await interruptResumableDownload(session, from: ranged(fault, name, "&chunk=16384&delayMs=10"), to: destination)
        let kept = try #require(FileWriter.keptBytes(for: destination))
        let info = try #require(PartialDownload(destination: destination.standardizedFileURL).loadInfo())
        #expect(info.length == Int64(Self.size))
        let ranges = try #require(info.doneRanges)
        #expect(kept > 0 && kept < Int64(Self.size))
        let before = FaultServer.rangeRequests(name).count

        _ = try await session.get(ranged(fault, name, "&chunk=16384&delayMs=10"))
            .downloadToFile(at: destination, resumable: true, connections: 4).content
        try expectPattern(destination)
        let resumed = FaultServer.rangeRequests(name).dropFirst(before)
        let first = try #require(resumed.first)
        #expect(first.range == "bytes=\(ranges[0].lowerBound == 0 ? ranges[0].upperBound : 0)-", "\(first) after \(ranges)")
        #expect(first.ifRange == "\"v1\"", "\(first)")
        #expect(resumed.allSatisfy { $0.status == 206 }, "\(Array(resumed))")
        #expect(!resumed.contains { request in ranges.contains { $0.contains(Int64(request.start)) } },
                "a part already on disk was asked for again: \(Array(resumed)) with \(ranges) kept")
        #expect(try scratch.entries() == ["file.bin"])
    }
}

/// Mirrors (`downloadToFile(…, mirrors:)`): parts spread over the request's URL and its mirrors
/// (each the fault server's `/ranged` resource under a name of its own, so that its log says what
/// it was asked); a mirror that resets its connections, or serves another size, is dropped; a
/// mirror of another origin gets none of the request's credentials.
@Suite struct MirroredDownloadTests {
    private static let size = 6 << 20

    private func url(_ fault: FaultServer, _ name: String, _ options: String = "") -> URL {
        fault.url("/ranged?name=\(name)&size=\(Self.size)&chunk=65536&delayMs=5\(options)")
    }

    private func expectPattern(_ file: URL) throws {
        #expect(try Data(contentsOf: file) == FaultServer.patternBytes(from: 0, count: Self.size), "the file is not the resource's bytes")
    }

    @Test(arguments: allEngines) func partsComeFromEveryMirror(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let names = (0..<3).map { "mirror\($0)-\(UUID().uuidString)" }
        let destination = scratch.file("file.bin")
        _ = try await testSession(engine: engine, timeout: 60).get(url(fault, names[0]))
            .downloadToFile(at: destination, connections: 6, mirrors: [url(fault, names[1]), url(fault, names[2])]).content
        try expectPattern(destination)
        for name in names.dropFirst() {
            let requests = FaultServer.rangeRequests(name)
            #expect(!requests.isEmpty && requests.allSatisfy { $0.status == 206 }, "\(requests)")
            #expect(requests.first?.ifRange == nil, "a mirror's first part pins its validator: \(requests)")
            // Parts asked for before the first answer have no validator yet; every later one has.
            #expect(requests.allSatisfy { $0.ifRange == nil || $0.ifRange == "\"v1\"" }, "\(requests)")
        }
        #expect(try scratch.entries() == ["file.bin"])
    }

    @Test(arguments: allEngines) func aMirrorThatResetsItsConnectionsOrServesAnotherSizeIsDropped(engine: Session.Engine) async throws {
        let fault = try await TestServers.fault()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let main = "main-\(UUID().uuidString)"
        let resetting = "resetting-\(UUID().uuidString)"
        let otherSize = "other-size-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        let mirrors = [
            url(fault, resetting, "&die=1000&dieAfter=1048576"),
            fault.url("/ranged?name=\(otherSize)&size=\(Self.size + 1)"),
        ]
        _ = try await testSession(engine: engine, timeout: 60).get(url(fault, main))
            .downloadToFile(at: destination, connections: 6, mirrors: mirrors).content
        try expectPattern(destination)
        let reset = FaultServer.rangeRequests(resetting)
        // Dropped at its second failure: asked at most by the connection that failed first and by
        // the six connections that may all be running there then (under load, the first
        // failure's part can go back to it before the second arrives).
        #expect(reset.count >= 2 && reset.count <= 7, "dropped after its second failure (a few may have been running): \(reset)")
        // Six connections over three sources: two parts go to each at first, before any answers.
        #expect(FaultServer.rangeRequests(otherSize).count <= 2, "dropped at its first answer: \(FaultServer.rangeRequests(otherSize))")
    }

    @Test func aMirrorOfAnotherOriginGetsNoCredentials() async throws {
        let fault = try await TestServers.fault()
        let other = try await TestServers.faultOnAnotherHost()
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        let main = "credentials-\(UUID().uuidString)"
        let mirror = "credentials-mirror-\(UUID().uuidString)"
        let destination = scratch.file("file.bin")
        _ = try await testSession(engine: .curl, timeout: 60).get(url(fault, main))
            .header("Authorization", "Bearer secret")
            .downloadToFile(at: destination, connections: 4, mirrors: [url(other, mirror)]).content
        try expectPattern(destination)
        #expect(FaultServer.rangeRequests(main).allSatisfy { $0.authorization == "Bearer secret" })
        let mirrored = FaultServer.rangeRequests(mirror)
        #expect(!mirrored.isEmpty && mirrored.allSatisfy { $0.authorization == nil }, "\(mirrored)")
    }
}

/// ``SegmentPlan``'s arithmetic: parts, claims, splits and what is left.
@Suite struct SegmentPlanTests {
    @Test func theMissingRangesAreDividedIntoEqualParts() {
        var plan = SegmentPlan(length: 100, written: [10..<20], minimumSplit: 10)
        #expect(plan.pending == [0..<10, 20..<100])
        plan.divide(into: 4)
        #expect(plan.pending.reduce(0) { $0 + $1.count } == 90)
        #expect(plan.pending.allSatisfy { $0.count >= 10 && $0.count <= 30 }, "\(plan.pending)")
        #expect(plan.contiguousPrefix == 0 && plan.firstMissingOffset == 0)
    }

    @Test func aClaimStopsAtTheAssignmentsEndUnlessAPendingPartFollowsWithinReach() {
        var plan = SegmentPlan(length: 100, minimumSplit: 10)
        plan.divide(into: 2)
        #expect(plan.assign(0, startingAt: 0, now: 0) == 0..<50)
        // The first connection's response runs to the end of the file: it goes on into 50..<100.
        #expect(plan.claim(0, count: 60) == 60)
        #expect(plan.pending.isEmpty)
        #expect(plan.claim(0, count: 60) == 40)
        #expect(plan.isFinished(0))
        plan.wrote(0, upTo: 100)
        plan.release(0)
        #expect(plan.isComplete)
    }

    @Test func aSlowConnectionsLastPartIsSplitToo() {
        var plan = SegmentPlan(length: 100, minimumSplit: 40)
        _ = plan.next(for: 1, now: 0)
        _ = plan.claim(1, count: 70)
        // 30 left: under two minimum splits, but over two minimum steals (10 each).
        #expect(plan.next(for: 2, now: 1_000_000_000) == 85..<100)
        _ = plan.claim(1, count: 10)
        #expect(plan.next(for: 3, now: 1_000_000_000) == nil, "5 left: not worth a request")
    }

    @Test func aFreeWorkerTakesHalfOfTheSlowestRest() {
        var plan = SegmentPlan(length: 1000, minimumSplit: 10)
        plan.divide(into: 2)
        _ = plan.assign(0, startingAt: 0, now: 0)
        #expect(plan.next(for: 1, now: 0) == 500..<1000)
        // Worker 0 is fast, worker 1 slow.
        _ = plan.claim(0, count: 400)
        _ = plan.claim(1, count: 100)
        #expect(plan.next(for: 2, now: 1_000_000_000) == 800..<1000, "half of the slow one's rest")
        #expect(plan.position(of: 1)?.end == 800)
        #expect(plan.claim(1, count: 500) == 200, "the slow one stops at its new end")
        #expect(plan.isFinished(1))
    }

    @Test func whatAStoppedWorkerDidNotWriteWaitsForAnother() {
        var plan = SegmentPlan(length: 100, minimumSplit: 10)
        _ = plan.next(for: 1, now: 0)
        _ = plan.claim(1, count: 30)
        plan.wrote(1, upTo: 20)
        plan.release(1)
        #expect(plan.written == [0..<20])
        #expect(plan.pending == [20..<100])
        #expect(plan.bytesWritten == 20 && plan.missingBytes == 80)
    }

    @Test func rangesMerge() {
        var ranges: [Range<Int64>] = []
        SegmentPlan.insert(10..<20, into: &ranges)
        SegmentPlan.insert(30..<40, into: &ranges)
        SegmentPlan.insert(20..<30, into: &ranges)
        #expect(ranges == [10..<40])
        #expect(SegmentPlan.complement(of: ranges, in: 0..<50) == [0..<10, 40..<50])
    }
}
