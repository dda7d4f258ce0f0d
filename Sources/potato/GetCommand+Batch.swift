import Foundation
import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Several downloads in one run (`potato get URL URL … -O`, `--output-dir DIR`, `-i FILE`):
/// each to a file of its own, up to `--parallel N` at a time, each with its line of progress on
/// a terminal and its result, then a summary. One failure does not stop the others; the exit
/// status is the first failure's (in the order given), or 0 when every download succeeded.
extension GetCommand {
    /// One download of the batch, where it goes, and why it cannot run when it cannot.
    private struct Job: Sendable {
        let index: Int
        let entry: BatchEntry
        let destination: String
        /// Another download of the batch writes the same file.
        let isDuplicate: Bool
    }

    /// `--output-dir DIR`, created with its parents when missing; the exit status when it cannot
    /// be, else `nil`.
    func createOutputDirectory() -> ExitStatus? {
        guard let directory = options.outputDirectory else { return nil }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return nil
        } catch {
            Console.error("potato: cannot create the directory \(TerminalText.safe(directory)): \(error)\n")
            return .missingDirectory
        }
    }

    func runBatch() async -> ExitStatus {
        var entries = options.batch
        if let input = options.inputFile {
            do {
                entries += try Self.readEntries(input)
            } catch {
                let reason = (error as? UsageError)?.message ?? "\(error)"
                Console.error("potato: cannot read the input file \(TerminalText.safe(input)): \(TerminalText.safe(reason))\n")
                return .usage
            }
        }
        guard !entries.isEmpty else {
            Console.error("potato: nothing to download: the input file lists no URL\n")
            return .usage
        }
        if let failure = createOutputDirectory() { return failure }
        var claimed = Set<String>()
        let jobs = entries.enumerated().map { index, entry in
            let destination = CommandLineParser.destination(for: entry.url, name: entry.name, in: options.outputDirectory)
            let key = URL(fileURLWithPath: destination).standardizedFileURL.path
            return Job(index: index, entry: entry, destination: destination, isDuplicate: !claimed.insert(key).inserted)
        }
        let interruption = Interruption()
        InterruptWatcher.install { interruption.interrupt($0) }
        let session = makeSession()
        let board = BatchBoard(isDrawn: progressStyle == .bar)
        let statuses = await run(jobs, session: session, board: board, interruption: interruption)
        board.finish()
        return summarize(jobs, statuses, interruption: interruption)
    }

    /// Runs the jobs, `--parallel` at a time, in the order given; returns their statuses.
    private func run(_ jobs: [Job], session: Session, board: BatchBoard, interruption: Interruption) async -> [ExitStatus] {
        await withTaskGroup(of: (Int, ExitStatus).self) { group in
            var results = [ExitStatus](repeating: .failure, count: jobs.count)
            var next = 0
            func startNext() {
                guard next < jobs.count else { return }
                let job = jobs[next]
                next += 1
                group.addTask { (job.index, await self.run(job, session: session, board: board, interruption: interruption)) }
            }
            for _ in 0..<min(options.parallel, jobs.count) { startNext() }
            for await (index, status) in group {
                results[index] = status
                startNext()
            }
            return results
        }
    }

    private func run(_ job: Job, session: Session, board: BatchBoard, interruption: Interruption) async -> ExitStatus {
        if let signal = interruption.signal { return signal == SIGTERM ? .terminated : .interrupted }
        let shownURL = TerminalText.safe(Redaction.redactingCredentials(inURL: job.entry.url))
        if let name = job.entry.name, !Self.staysInside(name) || !Self.followsNoLink(name, in: options.outputDirectory) {
            // A list may come from anywhere: its names stay in the directory it is fetched to.
            Console.error("potato: \(shownURL): the name \(TerminalText.safe(name.debugDescription)) leaves the output directory "
                + "(an absolute path, a .., or a symbolic link in it) or names a directory; this one was not made\n")
            return .usage
        }
        if job.isDuplicate {
            Console.error("potato: \(shownURL): another download of this batch writes \(TerminalText.safe(job.destination)); "
                + "this one was not made\n")
            return .destinationBusy
        }
        guard let url = URL(string: job.entry.url), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            Console.error("potato: bad URL: \"\(shownURL)\" is not an http or https URL\n")
            return .badURL
        }
        if let refusal = protocolRefusal(url) { return refusal }
        let request = withCallersHeaders(session.request(.get, url))
        if let done = await finishedEarlier(url, at: URL(fileURLWithPath: job.destination), session: session) { return done }
        board.begin(job.index, name: job.destination)
        defer { board.end(job.index) }
        let display = ProgressDisplay(style: .none)
        display.observer = { board.update(job.index, $0) }
        // A NAME with directories in it (`docs/a.pdf`) gets them, as aria2's `out=` does.
        let status = await download(
            request, to: URL(fileURLWithPath: job.destination), createsDirectories: job.entry.name?.contains("/") == true,
            display: display, interruption: interruption)
        if status != .success, interruption.signal == nil {
            // Several run at once: say which one the lines above were about.
            Console.error("potato: \(shownURL) was not saved to \(TerminalText.safe(job.destination)) (exit \(status.rawValue))\n")
        }
        return status
    }

    /// Prints how the batch went (unless `-q`); returns the first failure's status, or success.
    private func summarize(_ jobs: [Job], _ statuses: [ExitStatus], interruption: Interruption) -> ExitStatus {
        let failed = zip(jobs, statuses).filter { $0.1 != .success }
        if !options.quiet {
            var text = "potato: \(jobs.count) download\(jobs.count == 1 ? "" : "s"): \(jobs.count - failed.count) succeeded"
            if !failed.isEmpty {
                text += ", \(failed.count) failed: " + failed.map { "\(TerminalText.safe($0.0.destination)) (exit \($0.1.rawValue))" }
                    .joined(separator: ", ")
            }
            Console.error(text + "\n")
        }
        if let signal = interruption.signal { return signal == SIGTERM ? .terminated : .interrupted }
        return failed.first?.1 ?? .success
    }

    /// Whether an `-i` line's NAME names a file inside the output directory (the current one
    /// without `--output-dir`): a relative path without `..` among its parts.
    static func staysInside(_ name: String) -> Bool {
        !name.hasPrefix("/") && !name.hasSuffix("/") && !name.split(separator: "/").contains("..")
            && !name.split(separator: "/").allSatisfy { $0 == "." }
    }

    /// Whether no directory on the way to an `-i` line's NAME, in `directory` (the current one
    /// without `--output-dir`), is a symbolic link, which could lead out of it.
    static func followsNoLink(_ name: String, in directory: String?) -> Bool {
        var path = URL(fileURLWithPath: directory ?? FileManager.default.currentDirectoryPath)
        for component in name.split(separator: "/").dropLast() where component != "." {
            path.appendPathComponent(String(component))
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: path.path)) != nil { return false }
        }
        return true
    }

    /// The downloads `-i FILE` lists (`-` for standard input): a URL a line, or `URL<TAB>NAME`;
    /// blank lines and lines starting with `#` are skipped.
    static func readEntries(_ path: String) throws -> [BatchEntry] {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            // Read as a stream, so that a pipe, a FIFO or /dev/stdin works as a file does
            // (`-i <(generate-urls)`); close-on-exec, as every descriptor potato opens.
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw UsageError(String(cString: strerror(errno))) }
            data = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).readDataToEndOfFile()
        }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }  // a byte order mark, as some editors write
        var entries: [BatchEntry] = []
        for line in text.split(whereSeparator: \.isNewline) {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty, !text.hasPrefix("#") else { continue }
            let parts = text.split(separator: "\t", maxSplits: 1)
            let url = parts[0].trimmingCharacters(in: .whitespaces)
            let name = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            entries.append(BatchEntry(url: url, name: name.isEmpty ? nil : name))
        }
        return entries
    }
}
