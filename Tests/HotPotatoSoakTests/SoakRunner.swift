import Foundation
@testable import HotPotato

/// The client side of the fault soak: prepares a case's directory (a file in the way, a partial
/// download to resume), runs its handler — twice at once for two writers, cancelled when the case
/// says — and collects what the oracle needs.
struct SoakRunner: Sendable {
    /// What a handler produced.
    enum Content: Sendable {
        case void
        case data(Data)
        case string(String)
        case json(JSON)
        case items([SoakResource.Item])
        case file(URL)
        case count(Int64)
    }

    /// One call's outcome; for the element streams, the elements delivered before it ended.
    struct Outcome: Sendable {
        var result: Result<Content, HotPotatoError>
        var items: [SoakResource.Item] = []
    }

    /// Everything a case left behind, for ``SoakOracle``.
    struct Run: Sendable {
        let soakCase: SoakCase
        let resource: SoakResource
        let url: URL
        let directory: URL
        let destination: URL
        let streamFile: URL
        let preexistingContent: Data?
        let outcomes: [Outcome]
        let records: [SoakServer.Record]
        let elapsed: TimeInterval
    }

    static let authorization = "Bearer soak-secret"
    static let proxyAuthorization = "Basic c29hazpzZWNyZXQ="
    static let cookie = "soak=secret"

    let server: SoakServer
    let sessions: [Session.Engine: Session]

    /// Prepares the case in `directory` and runs it; returns what it left.
    func run(_ soakCase: SoakCase, resource: SoakResource, in directory: URL) async throws -> Run {
        let destination = directory.appendingPathComponent("download.bin")
        let streamFile = directory.appendingPathComponent("stream.out")
        var preexistingContent: Data?
        if soakCase.preexisting {
            let old = Data("an older file, case \(soakCase.index)\n".utf8)
            try old.write(to: destination)
            preexistingContent = old
        }
        let url = server.register(SoakServer.Plan(resource: resource, fault: soakCase.fault, holdForSecondRequest: soakCase.concurrent))
        if let partial = soakCase.partial {
            let state = PartialDownload(destination: destination)
            try resource.body.prefix(partial.count).write(to: state.dataURL)
            try state.saveInfo(PartialDownload.Info(url: url.absoluteString, etag: partial.staleValidator ? "\"stale\"" : resource.etag))
        }
        let start = Date()
        let outcomes: [Outcome]
        if soakCase.concurrent {
            async let first = call(soakCase, url: url, destination: destination, streamFile: streamFile, cancelAfter: soakCase.cancelAfter)
            async let second = call(soakCase, url: url, destination: destination, streamFile: streamFile, cancelAfter: nil)
            outcomes = await [first, second]
        } else {
            outcomes = [await call(soakCase, url: url, destination: destination, streamFile: streamFile, cancelAfter: soakCase.cancelAfter)]
        }
        return Run(
            soakCase: soakCase, resource: resource, url: url, directory: directory, destination: destination,
            streamFile: streamFile, preexistingContent: preexistingContent, outcomes: outcomes,
            records: server.records(for: url), elapsed: Date().timeIntervalSince(start))
    }

    /// A resumable download of the case's URL, served honestly now: what a user's retry does.
    func followUp(_ run: Run) async -> Outcome {
        server.makeHonest(run.url)
        // The server is honest now: no stall to time out on, so a loaded machine gets the usual
        // generous timeout rather than the stall case's short one.
        return await call(run.soakCase, url: run.url, destination: run.destination, streamFile: run.streamFile, cancelAfter: nil,
                          timeout: SoakCase.generousTimeout)
    }

    /// Runs the case's handler once, in a task of its own that is cancelled after `cancelAfter`.
    private func call(
        _ soakCase: SoakCase, url: URL, destination: URL, streamFile: URL, cancelAfter: Double?, timeout: TimeInterval? = nil
    ) async -> Outcome {
        guard let session = sessions[soakCase.engine] else {
            return Outcome(result: .failure(HotPotatoError(.engineUnavailable, reason: "no session for \(soakCase.engine)")))
        }
        var request = session.get(url).timeout(timeout ?? soakCase.timeout)
            .header("Authorization", Self.authorization)
            .header("Proxy-Authorization", Self.proxyAuthorization)
            .header("Cookie", Self.cookie)
        if let limit = soakCase.errorBodyLimit { request = request.errorBodyLimit(limit) }
        let prepared = request
        let task = Task { await Self.perform(soakCase, prepared, destination: destination, streamFile: streamFile) }
        if let cancelAfter {
            try? await Task.sleep(nanoseconds: UInt64(cancelAfter * 1e9))
            task.cancel()
        }
        return await task.value
    }

    private static func perform(
        _ soakCase: SoakCase, _ request: Request<Accumulator<Data>>, destination: URL, streamFile: URL
    ) async -> Outcome {
        func outcome<Value>(_ work: () async throws(HotPotatoError) -> Value, _ wrap: (Value) -> Content) async -> Outcome {
            do throws(HotPotatoError) {
                return Outcome(result: .success(wrap(try await work())))
            } catch {
                return Outcome(result: .failure(error))
            }
        }
        switch soakCase.handler {
        case .discard:
            return await outcome({ () async throws(HotPotatoError) in try await request.discardResponseContent().content }) { _ in .void }
        case .data:
            return await outcome({ () async throws(HotPotatoError) in try await request.asData().content }) { .data($0) }
        case .string:
            return await outcome({ () async throws(HotPotatoError) in try await request.asString().content }) { .string($0) }
        case .json:
            return await outcome({ () async throws(HotPotatoError) in try await request.asJSON().content }) { .json($0) }
        case .document:
            return await outcome({ () async throws(HotPotatoError) in try await request.asJSONDocument().content }) { .json($0.json) }
        case .decodable:
            return await outcome({ () async throws(HotPotatoError) in try await request.as([SoakResource.Item].self).content }) { .items($0) }
        case .jsonLines:
            return await stream(request.streamJSONLines(of: SoakResource.Item.self))
        case .jsonArray:
            return await stream(request.streamJSONArray(of: SoakResource.Item.self))
        case .outputStream:
            guard let stream = OutputStream(url: streamFile, append: false) else {
                return Outcome(result: .failure(HotPotatoError(.invalidRequest, reason: "no OutputStream for \(streamFile.path)")))
            }
            return await outcome({ () async throws(HotPotatoError) in try await request.downloadToStream(stream).content }) { .count($0) }
        case .fileHandle:
            guard FileManager.default.createFile(atPath: streamFile.path, contents: nil),
                  let handle = try? FileHandle(forWritingTo: streamFile) else {
                return Outcome(result: .failure(HotPotatoError(.invalidRequest, reason: "no FileHandle for \(streamFile.path)")))
            }
            defer { try? handle.close() }
            return await outcome({ () async throws(HotPotatoError) in try await request.downloadToStream(handle).content }) { .count($0) }
        case .file, .resumableFile:
            let download = request.downloadToFile(
                at: destination, existingFilePolicy: soakCase.replaces ? .replace : .fail, resumable: soakCase.handler == .resumableFile)
            return await outcome({ () async throws(HotPotatoError) in try await download.content }) { .file($0) }
        case .segmentedFile, .mirroredFile:
            let mirrors = soakCase.handler == .mirroredFile ? [request.url].compactMap { $0?.appendingPathComponent("mirror") } : []
            let download = request.downloadToFile(
                at: destination, existingFilePolicy: soakCase.replaces ? .replace : .fail, resumable: true,
                connections: 2 + Int(soakCase.contentSeed % 5), mirrors: mirrors)
            return await outcome({ () async throws(HotPotatoError) in try await download.content }) { .file($0) }
        }
    }

    private static func stream(_ elements: JSONElementStream<SoakResource.Item>) async -> Outcome {
        var items: [SoakResource.Item] = []
        do throws(HotPotatoError) {
            var iterator = elements.makeAsyncIterator()
            while let item = try await iterator.next() { items.append(item) }
            return Outcome(result: .success(.items(items)), items: items)
        } catch {
            return Outcome(result: .failure(error), items: items)
        }
    }
}
