import Foundation
import HotPotato
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `potato get`: sends the request, puts the body where it was asked, reports progress and the
/// outcome, and says why a failure happened with a distinct exit status.
struct GetCommand {
    let options: GetOptions
    /// The session's cookies: read from `-b FILE`, written to `-c FILE` at the end.
    let cookies = CookieJar()
    /// `-D FILE`, opened, or why it could not be.
    private let headerDump: Result<HeaderDump, UsageError>?

    init(options: GetOptions) {
        self.options = options
        headerDump = options.dumpHeader.map { path in Result { () throws(UsageError) in try HeaderDump(path: path) } }
    }

    /// The signal that interrupted the download, if any (set from the watcher's thread).
    final class Interruption: @unchecked Sendable {
        private let lock = NSLock()
        private var number: Int32?
        /// The calls to cancel: every download of a batch.
        private var cancels: [@Sendable () -> Void] = []

        var signal: Int32? {
            lock.lock()
            defer { lock.unlock() }
            return number
        }

        /// Records the signal and cancels the call, now or as soon as there is one.
        func interrupt(_ signal: Int32) {
            lock.lock()
            if number == nil { number = signal }
            let cancels = self.cancels
            lock.unlock()
            cancels.forEach { $0() }
        }

        func onInterrupt(_ cancel: @escaping @Sendable () -> Void) {
            lock.lock()
            cancels.append(cancel)
            let interrupted = number != nil
            lock.unlock()
            if interrupted { cancel() }
        }
    }

    /// The queue `-v`'s lines are written from. Events reach it asynchronously: it is drained
    /// before potato exits, so that no line of a call that has completed is lost.
    private let verboseQueue = DispatchQueue(label: "potato.verbose")

    func run() async -> ExitStatus {
        if options.silent && !options.showsErrors { Console.silence() }
        if case .failure(let error) = headerDump {
            Console.error("potato: \(TerminalText.safe(error.message))\n")
            return .fileError
        }
        if !options.quiet {
            for warning in options.warnings { Console.error("potato: warning: \(warning)\n") }
        }
        loadCookies(into: cookies)
        let status = await fetch()
        verboseQueue.sync {}
        // Even after a failure, as curl: the cookies a login set before failing are kept.
        return saveCookies(cookies, after: status)
    }

    private func fetch() async -> ExitStatus {
        if case .batch = options.output { return await runBatch() }
        guard let url = URL(string: options.url), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty else {
            let shown = TerminalText.safe(Redaction.redactingCredentials(inURL: options.url))
            Console.error("potato: bad URL: \"\(shown)\" is not an http or https URL\n")
            return .badURL
        }
        if let refusal = protocolRefusal(url) { return refusal }
        let interruption = Interruption()
        InterruptWatcher.install { interruption.interrupt($0) }
        let session = makeSession()
        var request = withCallersHeaders(
            session.request(HTTPMethod(rawValue: options.effectiveMethod), Self.uploadTarget(url, file: options.uploadFile)))
        do {
            if options.sendsDataInQuery {
                // -G: the -d pieces in the query, no body.
                guard let target = try options.urlWithDataInQuery(url, idleTimeout: idleTimeout) else {
                    Console.error("potato: bad URL: -G's data does not make a valid query (is it URL-encoded?)\n")
                    return .badURL
                }
                request = withCallersHeaders(session.request(HTTPMethod(rawValue: options.effectiveMethod), target))
            } else {
                request = try withBody(request)
            }
        } catch {
            switch error {
            case .unreadable(let message):
                Console.error("potato: cannot read a file to send: \(TerminalText.safe(message))\n")
                return .unreadableUpload
            case .timedOut(let message):
                Console.error("potato: timed out: \(TerminalText.safe(message))\n")
                return .timedOut
            }
        }
        let display = ProgressDisplay(style: progressStyle)
        if sendsAFile { request = request.onUploadProgress(queue: display.queue) { display.update($0) } }

        switch options.output {
        case .file(let path):
            if let failure = createOutputDirectory() { return failure }
            if Self.isDeviceOrPipe(path) { return await stream(request, toDeviceAt: path, display: display, interruption: interruption) }
            if let done = await finishedEarlier(url, at: URL(fileURLWithPath: path), session: session) { return done }
            return await download(
                request, to: URL(fileURLWithPath: path), createsDirectories: options.createsDirectories, display: display,
                interruption: interruption)
        case .standardOutput:
            let maximum = options.maximumSize ?? .max
            var writer = request.handled(by: StreamWriter(fileHandle: .standardOutput, maximumBodySize: maximum))
            if options.printsHead {
                // As `curl -I`: the status line and the headers, CRLF after each, then an empty line.
                writer = writer.onHead { head in Console.output(Self.headText(head)) }
            }
            let handled = adjusted(writer)
            return await finish(handled, display: display, interruption: interruption) { _ in }
        case .json(let keyPath):
            let observed = request
            let parsed = options.maximumSize.map { observed.asJSON(atKeyPath: keyPath, maximumBodySize: $0) } ?? observed.asJSON(atKeyPath: keyPath)
            let handled = adjusted(parsed)
            return await finish(handled, display: display, interruption: interruption) { json in
                Console.output(json.serialized(pretty: true) + "\n")
            }
        case .string:
            let observed = request
            let handled = adjusted(options.maximumSize.map { observed.asString(maximumBodySize: $0) } ?? observed.asString())
            return await finish(handled, display: display, interruption: interruption) { text in
                Console.output(text.hasSuffix("\n") || text.isEmpty ? text : text + "\n")
            }
        case .events:
            return await streamEvents(adjusted(request), interruption: interruption)
        case .batch:
            return .usage
        }
    }

    /// Where a `206`'s `Content-Range: bytes FIRST-LAST/LENGTH` starts, when it says.
    static func rangeStart(of head: ResponseHead) -> Int64? {
        guard let value = head.headers["Content-Range"]?.trimmingCharacters(in: .whitespaces),
              value.lowercased().hasPrefix("bytes ") else { return nil }
        let range = value.dropFirst("bytes ".count).trimmingCharacters(in: .whitespaces)
        return range.split(separator: "-", maxSplits: 1).first.flatMap { Int64($0) }
    }

    /// As curl's `--proto`: a URL whose protocol it leaves out is not fetched (exit 1, curl's
    /// "unsupported protocol" too); `nil` when it may be.
    func protocolRefusal(_ url: URL) -> ExitStatus? {
        let scheme = url.scheme?.lowercased() ?? ""
        guard !options.allowedSchemes.contains(scheme) else { return nil }
        Console.error("potato: \(TerminalText.safe(Redaction.redactingCredentials(inURL: url.absoluteString))): the protocol \(scheme) is left out by --proto\n")
        return .failure
    }

    /// `request` with the headers of `-H` (and `-A`, `-b`), without those `-H 'Name:'` leaves
    /// out, and with the credentials of `-u`.
    func withCallersHeaders<Handler>(_ request: Request<Handler>) -> Request<Handler> {
        var request = request
        for name in options.omittedHeaders where !options.headers.contains(where: { $0.name.lowercased() == name.lowercased() }) {
            request = request.withoutHeader(name)
        }
        for header in options.headers { request = request.header(header.name, header.value) }
        if let credentials = options.credentials {
            request = request.basicAuthentication(user: credentials.user, password: credentials.password)
        }
        return request
    }

    /// A response head as `curl -I` prints it, the server's text made safe for a terminal.
    static func headText(_ head: ResponseHead) -> String {
        var text = TerminalText.safe("\(head.httpVersion.map(String.init(describing:)) ?? "HTTP") \(head.status) \(head.reasonPhrase)")
            .trimmingCharacters(in: .whitespaces) + "\r\n"
        for field in head.headers { text += TerminalText.safe("\(field.name): \(field.value)") + "\r\n" }
        return text + "\r\n"
    }

    /// The session every request of this command goes through: its timeout, proxy, certificate
    /// authorities, retries, cookies and `-v` logger.
    func makeSession() -> Session {
        var configuration = Session.Configuration()
        if let timeout = options.timeout { configuration.requestTimeout = timeout }
        if let maximumTime = options.maximumTime { configuration.resourceTimeout = maximumTime }
        if let redirects = options.redirectBehavior { configuration.redirects = redirects }
        configuration.proxy = options.proxyConfiguration()
        if let authorities = options.certificateAuthorities {
            configuration.certificateAuthorities = URL(fileURLWithPath: authorities)
        }
        options.transport.apply(to: &configuration)
        configuration.retryPolicy = retryPolicy
        configuration.cookieStore = .jar(cookies)
        if options.verbose {
            // Every attempt, header, redirect and retry, with credentials masked and server text
            // made safe for the terminal by the logger itself.
            configuration.eventMonitors = [EventLogger(includesHeaders: true, queue: verboseQueue) { line in
                Console.error(line + "\n", evenWhenSilent: true)
            }]
        }
        if case .success(let dump) = headerDump { configuration.eventMonitors.append(dump.redirectMonitor(queue: verboseQueue)) }
        configuration.httpVersionPolicy = options.httpVersionPolicy
        return Session(configuration: configuration, engine: options.engine)
    }

    /// `--retry` (5 by default with `-o`: a download is worth finishing; none otherwise, as curl),
    /// `--retry-delay` and `--retry-max-time`. Only transient failures are retried (see
    /// `RetryPolicy`); a download continues from the bytes it has. With `--events`, only the
    /// first request's transient statuses: a failed or ended connection is the stream's
    /// reconnection's to open again (see `eventReconnection`), and it never retries a status.
    private var retryPolicy: RetryPolicy {
        let isDownload = options.writesFiles
        let retries = options.retries ?? (isDownload ? Self.defaultDownloadRetries : 0)
        // With --max-time, no attempt starts once that time has passed (each has it as its own
        // limit too).
        let elapsedLimits = [options.retryMaximumTime, options.maximumTime].compactMap { $0 }
        return RetryPolicy(
            maximumAttempts: retries + 1, initialDelay: options.retryDelay ?? 1, maximumDelay: 60,
            maximumElapsedTime: elapsedLimits.min(),
            retryableStatusCodes: options.retriesAllErrors ? Set(400...599) : RetryPolicy.transientStatusCodes,
            retryableErrorCodes: options.output == .events ? []
                : options.retriesAllErrors ? RetryPolicy.transientErrorCodes.union(Self.otherTransferFailures) : RetryPolicy.transientErrorCodes)
    }

    /// What `--retry-all-errors` retries besides the transient failures: a failure of the
    /// transfer, whatever it was (not of the command's own making: a file, a usage, a checksum).
    static let otherTransferFailures: Set<HotPotatoError.Code> = [.malformedResponse, .transportFailed, .tlsFailure]

    /// How many times `-o` retries without `--retry`.
    static let defaultDownloadRetries = 5

    /// `--accept-status` and `--accept-type`, applied to any handler.
    func adjusted<Handler>(_ request: Request<Handler>) -> Request<Handler> {
        var request = request
        if let statuses = options.acceptedStatuses { request = request.accepting(statusCodes: statuses) }
        if !options.acceptedTypes.isEmpty { request = request.accepting(contentTypes: options.acceptedTypes) }
        if let rate = options.rateLimit { request = request.limitRate(rate) }
        if case .success(let dump) = headerDump {
            // On the transfer's thread, before the body: after the redirects' heads, which the
            // monitor writes on the same queue.
            let queue = verboseQueue
            request = request.onHead { head in queue.sync { dump.write(head) } }
        }
        return request
    }

    /// How progress is shown: `--progress`, or by default a bar on a terminal, else lines.
    var progressStyle: ProgressDisplay.Style {
        switch options.progress {
        case _ where options.quiet: return .none
        case .auto: return Console.standardErrorIsTerminal ? .bar : .lines
        case .bar: return .bar
        case .lines: return .lines
        case .none: return .none
        }
    }

    func download<Handler>(
        _ request: Request<Handler>, to destination: URL, createsDirectories: Bool = false, display: ProgressDisplay,
        interruption: Interruption
    ) async -> ExitStatus {
        let partial = FileWriter.partialFileURL(for: destination)
        let keptBefore = options.resume ? FileWriter.keptBytes(for: destination) : nil
        let writer = request.downloadToFile(
            at: destination, existingFilePolicy: options.overwrite ? .replace : .fail,
            createsIntermediateDirectories: createsDirectories, resumable: options.resume,
            maximumBodySize: options.maximumSize ?? .max, checksum: options.checksum, onlyIfChanged: options.onlyIfChanged,
            keepsRemoteTime: options.remoteTime, connections: options.connections, mirrors: options.mirrors)
        let started = DispatchTime.now().uptimeNanoseconds
        var observed = adjusted(writer).onProgress(queue: display.queue) { display.update($0) }
        if let keptBefore, keptBefore > 0, !options.quiet {
            // Said once the server has answered with the rest (another download holding the
            // partial file, or a new version of the file, resumes nothing); once, not again for
            // a retried attempt. Both on the display's queue, in order.
            let said = Flag()
            observed = observed.onHead(queue: display.queue) { head in
                // A 206 from the first byte continues nothing (a server that sends the whole
                // file as a range; the download then fails or starts over).
                guard head.status == 206, (Self.rangeStart(of: head) ?? 0) > 0, said.set() else { return }
                Console.error("potato: resuming after \(ByteCount.text(keptBefore)) already downloaded\n")
            }
        }
        let call = observed.start()
        interruption.onInterrupt { call.cancel() }
        let outcome: Result<Response<URL>, HotPotatoError>
        do {
            outcome = .success(try await call.response())
        } catch {
            outcome = .failure(error)
        }
        display.finish()
        switch outcome {
        case .success(let response): printWriteOut(head: response.head, timings: response.timings)
        case .failure(let error): printWriteOut(head: error.head, timings: error.timings)
        }
        switch outcome {
        case .success(let response):
            if response.status == 304 {
                if !options.quiet { Console.error("potato: \(destination.path) is up to date (HTTP 304): nothing was downloaded\n") }
                return .success
            }
            if !options.quiet {
                let size = Self.fileSize(destination.path) ?? 0
                // Every attempt's time and every wait between them, not the last attempt's.
                let seconds = Double(DispatchTime.now().uptimeNanoseconds &- started) / 1_000_000_000
                Console.error("potato: saved \(ByteCount.text(size)) to \(destination.path) in \(String(format: "%.2f", seconds)) s"
                    + " (HTTP \(response.status))\n")
            }
            return .success
        case .failure(let error):
            let kept = options.resume ? FileWriter.keptBytes(for: destination) : nil
            let keptNote = kept.map { "; \(ByteCount.text($0)) kept in \(partial.path): run the same command with --continue to resume" }
            if let signal = interruption.signal {
                Console.error("potato: interrupted" + (keptNote ?? "; nothing was kept") + "\n")
                return signal == SIGTERM ? .terminated : .interrupted
            }
            let status = report(error)
            if let kept, error.code != .resumeMismatch, error.code != .destinationBusy {
                Console.error("potato: \(ByteCount.text(kept)) kept in \(partial.path): run the same command with --continue to resume\n")
            }
            return status
        }
    }

    private func finish<Handler: ContentHandler>(
        _ request: Request<Handler>, display: ProgressDisplay, interruption: Interruption, output: (Handler.Content) -> Void
    ) async -> ExitStatus {
        let call = request.start()
        interruption.onInterrupt { call.cancel() }
        do {
            let response = try await call.response()
            display.finish()
            output(response.content)
            printWriteOut(head: response.head, timings: response.timings)
            return .success
        } catch {
            display.finish()
            printWriteOut(head: error.head, timings: error.timings)
            if let signal = interruption.signal {
                Console.error("potato: interrupted\n")
                return signal == SIGTERM ? .terminated : .interrupted
            }
            return report(error)
        }
    }

    /// `-w`'s text, if it was given: after the body (as curl), after a failure too.
    private func printWriteOut(head: ResponseHead?, timings: TransferTimings?) {
        guard let writeOut = options.writeOut else { return }
        Console.output(writeOut.render(head: head, timings: timings, requested: options.url))
    }

    /// A flag set once, from a queue's callbacks.
    private final class Flag: @unchecked Sendable {
        private var isSet = false
        /// Sets the flag; `true` the first time.
        func set() -> Bool {
            defer { isSet = true }
            return !isSet
        }
    }

    /// Whether `path` is a character device or a named pipe (`-o /dev/null`, `-o /dev/stdout`, a
    /// FIFO): written as it is, as standard output is, rather than through a temporary file
    /// renamed into place.
    static func isDeviceOrPipe(_ path: String) -> Bool {
        var status = stat()
        guard stat(path, &status) == 0 else { return false }
        let type = status.st_mode & S_IFMT
        return type == S_IFCHR || type == S_IFIFO
    }

    /// `-o DEVICE`: the body streamed to the device or pipe at `path`, as to standard output.
    private func stream<Handler>(
        _ request: Request<Handler>, toDeviceAt path: String, display: ProgressDisplay, interruption: Interruption
    ) async -> ExitStatus {
        let refused = [(options.resume, "--continue"), (options.connections > 1, "--connections"), (options.checksum != nil, "--checksum"),
                       (options.onlyIfChanged, "--only-if-changed"), (options.remoteTime, "--remote-time"), (!options.mirrors.isEmpty, "--mirror")]
        if let (_, option) = refused.first(where: { $0.0 }) {
            Console.error("potato: \(TerminalText.safe(path)) is a device or a pipe, not a file: \(option) cannot be used with it (see --help)\n")
            return .usage
        }
        let descriptor = open(path, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            Console.error("potato: file error: cannot open \(TerminalText.safe(path)): \(reason)\n")
            return errno == EACCES || errno == EPERM ? .permissionDenied : .fileError
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        let handled = adjusted(request.handled(by: StreamWriter(fileHandle: handle, maximumBodySize: options.maximumSize ?? .max)))
        return await finish(handled, display: display, interruption: interruption) { _ in }
    }

    /// The size of the regular file at `path`, if there is one.
    static func fileSize(_ path: String) -> Int64? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(status.st_size)
    }

    /// Prints what went wrong — with the server's message for a rejected response — and returns
    /// the exit status.
    func report(_ error: HotPotatoError) -> ExitStatus {
        let (status, kind) = ExitStatus.of(error)
        // Everything below may quote the server (its message, headers, types): made safe to print.
        var text = "potato: \(kind): \(TerminalText.safe(error.reason))\n"
        if error.code.isRejection {
            if let message = error.serverMessage {
                text += "potato: the server says: \(TerminalText.safe(message))\n"
            } else if let body = error.errorBody, !body.data.isEmpty {
                let type = TerminalText.safe(error.head?.contentType?.essence ?? "unknown type")
                text += "potato: the server sent \(body.data.count) bytes of \(type)\n"
            }
        }
        if error.code == .bodyTooLarge, let limit = error.limit, options.maximumSize == limit {
            text += "potato: the limit is --max-size \(limit) bytes\n"
        }
        if let path = error.path, !error.reason.contains(path) { text += "potato: path: \(TerminalText.safe(path))\n" }
        if error.code == .destinationExists { text += "potato: use --overwrite to replace it\n" }
        if let expected = error.expectedChecksum, let actual = error.actualChecksum {
            text += "potato: expected \(expected)\npotato: received \(actual)\n"
        }
        Console.error(text)
        return status
    }
}
