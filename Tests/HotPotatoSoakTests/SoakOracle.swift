import Foundation
@testable import HotPotato
@testable import HotPotatoTestSupport

/// What every soak case must end with, from the promises in README.md and the hardening issue:
///
/// - success ⇒ the content is the resource exactly (a placed file byte-identical, `Data`,
///   `String`, `JSON` and decoded elements equal); failure ⇒ a code the fault (and the case's own
///   trouble: a cancellation, a second writer, a file in the way, a full disk) allows;
/// - the destination is the resource, or absent, or — when a file was there — untouched unless
///   the download succeeded with `.replace`;
/// - nothing is left in the directory but a resumable partial file (and its record) whose bytes
///   are a prefix of the resource, which a rejection leaves as it was;
/// - no descriptor is left open under the directory;
/// - credentials never reach another origin, and only 301/302/303/307/308 are followed;
/// - a rejection keeps at most the error-body limit of the body, a prefix of what was sent, with
///   the server's message when the body is JSON.
///
/// Each violation is a line that starts with its class in brackets, so that a run's summary can
/// count failures by class.
enum SoakOracle {
    /// The codes a case may fail with; empty when the fault alone gives no reason to fail.
    static func allowedCodes(for soakCase: SoakCase, askedForRange: Bool) -> Set<HotPotatoError.Code> {
        var codes: Set<HotPotatoError.Code>
        switch soakCase.fault {
        case .honest, .drip, .redirect: codes = []
        case .truncate, .reset: codes = [.truncatedBody, .connectionLost]
        case .stall: codes = [.timedOut]
        case .badRange: codes = askedForRange ? [.resumeMismatch, .malformedResponse] : [.malformedResponse]
        case .badContentLength(let bad): codes = bad == .identicalRepeat ? [] : [.malformedResponse]
        case .gzip:
            // Decoded, the body is the resource; a decoder fed a range of the encoded bytes fails.
            codes = [.resumeMismatch, .malformedResponse, .transportFailed]
        case .unfollowedRedirect, .serverError: codes = [.unacceptableStatus]
        case .range416: codes = [.unacceptableStatus, .resumeMismatch, .malformedResponse]
        }
        if soakCase.cancelAfter != nil { codes.insert(.cancelled) }
        if soakCase.concurrent { codes.formUnion([.destinationBusy, .destinationExists, .resumeMismatch]) }
        if soakCase.preexisting && !soakCase.replaces { codes.insert(.destinationExists) }
        if soakCase.diskFull { codes.formUnion([.writeFailed, .fileSystemError]) }
        return codes
    }

    /// Whether the case may succeed at all (with the right content).
    static func successAllowed(for soakCase: SoakCase) -> Bool {
        if soakCase.preexisting && !soakCase.replaces { return false }
        switch soakCase.fault {
        case .badContentLength(let bad): return bad == .identicalRepeat
        case .badRange(.longBody, _), .badRange(.longLength, _):
            // A download over several connections stops reading each response at the end of
            // its part: bytes past the announced range are never read, so the lie never shows.
            return soakCase.handler.isSegmented
        case .badRange, .range416, .unfollowedRedirect, .serverError: return false
        default: return true
        }
    }

    /// The violations of a run whose directory has settled: `entries` are its names, `descriptors`
    /// the paths under it still open.
    static func violations(of run: SoakRunner.Run, entries: [String], descriptors: [String]) -> [String] {
        var found: [String] = []
        let soakCase = run.soakCase
        let resource = run.resource
        let askedForRange = run.records.contains { $0.range != nil }
        let allowed = allowedCodes(for: soakCase, askedForRange: askedForRange)
        let kind = soakCase.fault.kind

        for (number, outcome) in run.outcomes.enumerated() {
            let which = run.outcomes.count > 1 ? " (writer \(number + 1))" : ""
            switch outcome.result {
            case .success(let content):
                if !successAllowed(for: soakCase) {
                    found.append("[succeeded] \(kind)\(which): succeeded where it must fail with one of \(names(allowed))")
                }
                if let problem = mismatch(content, run: run) {
                    found.append("[content] \(kind)\(which): succeeded with the wrong content: \(problem)")
                }
            case .failure(let error):
                if !allowed.contains(error.code) {
                    found.append("[code] \(kind)\(which): failed with .\(error.code), allowed: \(names(allowed)) — \(error.reason.prefix(300))")
                }
                if error.code.isRejection { found += rejectionProblems(error, run: run) }
            }
            if soakCase.handler.isElementStream, !resource.items.starts(with: outcome.items) {
                found.append("[content] \(kind)\(which): the elements delivered are not a prefix of the resource's")
            }
        }

        // The destination.
        let succeededToFile = soakCase.handler.isFile && run.outcomes.contains { if case .success = $0.result { return true } else { return false } }
        let placed = FileManager.default.contents(atPath: run.destination.path)
        if succeededToFile {
            if placed != resource.body { found.append("[destination] \(kind): the placed file is not the resource (\(placed?.count ?? -1) of \(resource.body.count) B)") }
        } else if let old = run.preexistingContent {
            if placed != old { found.append("[destination] \(kind): the file that was there was changed (\(placed?.count ?? -1) B) although the download failed") }
        } else if placed != nil {
            found.append("[destination] \(kind): a file (\(placed?.count ?? -1) B) was placed although the download failed")
        }

        // What else is in the directory.
        let partial = PartialDownload(destination: run.destination)
        var expected: Set<String> = [run.destination.lastPathComponent]
        if soakCase.handler.isResumable { expected.formUnion([partial.dataURL.lastPathComponent, partial.infoURL.lastPathComponent]) }
        if soakCase.handler == .outputStream || soakCase.handler == .fileHandle { expected.insert(run.streamFile.lastPathComponent) }
        let leftovers = entries.filter { !expected.contains($0) }
        if !leftovers.isEmpty { found.append("[leftover] \(kind): left behind \(leftovers.joined(separator: ", "))") }
        if soakCase.handler.isResumable, let kept = FileManager.default.contents(atPath: partial.dataURL.path) {
            if let info = partial.loadInfo(), info.length != nil {
                // Written over several connections: every range the record lists holds the
                // resource's bytes.
                if let ranges = info.doneRanges {
                    for range in ranges where range.upperBound > kept.count
                        || kept.subdata(in: Int(range.lowerBound)..<Int(range.upperBound)) != resource.body.subdata(in: Int(range.lowerBound)..<Int(range.upperBound)) {
                        found.append("[partial] \(kind): the partial file's range \(range) is not the resource's")
                    }
                } else {
                    found.append("[partial] \(kind): the record of a partial file written over several connections lists no ranges")
                }
            } else if !resource.body.starts(with: kept) {
                found.append("[partial] \(kind): the partial file (\(kept.count) B) is not a prefix of the resource")
            }
            if succeededToFile && run.outcomes.allSatisfy({ if case .success = $0.result { return true } else { return false } }) {
                found.append("[partial] \(kind): a partial file (\(kept.count) B) is left after the download succeeded")
            }
            if let seeded = soakCase.partial, isRejectionFault(soakCase.fault), !soakCase.concurrent, kept.count != seeded.count {
                found.append("[partial] \(kind): a rejected response changed the partial file (\(seeded.count) → \(kept.count) B)")
            }
        }

        if !descriptors.isEmpty { found.append("[descriptor] \(kind): still open: \(descriptors.joined(separator: ", "))") }

        // Redirects.
        for record in run.records where record.port != URLComponents(url: run.url, resolvingAgainstBaseURL: false)?.port.map(UInt16.init) {
            let leaked = [("Authorization", record.authorization), ("Proxy-Authorization", record.proxyAuthorization), ("Cookie", record.cookie)]
                .filter { $0.1 != nil }.map(\.0)
            if !leaked.isEmpty {
                found.append("[credentials] \(kind): \(leaked.joined(separator: ", ")) reached another origin (port \(record.port))")
            }
        }
        if case .unfollowedRedirect(let status) = soakCase.fault, run.records.contains(where: { $0.path.hasSuffix("/target") }) {
            found.append("[redirect] \(kind): a \(status) was followed")
        }
        return found
    }

    /// Whether the fault's response is one the handler rejects at its head, whatever it asked for.
    private static func isRejectionFault(_ fault: SoakFault) -> Bool {
        switch fault {
        case .serverError, .unfollowedRedirect: return true
        default: return false
        }
    }

    private static func rejectionProblems(_ error: HotPotatoError, run: SoakRunner.Run) -> [String] {
        var found: [String] = []
        let kind = run.soakCase.fault.kind
        let limit = run.soakCase.effectiveErrorBodyLimit
        guard let body = error.errorBody else {
            return ["[errorBody] \(kind): a rejection (.\(error.code), HTTP \(error.status ?? 0)) without an error body"]
        }
        if body.data.count > limit {
            found.append("[errorBody] \(kind): kept \(body.data.count) B of the error body, over the limit of \(limit)")
        }
        if case .serverError(_, let bytes, let json) = run.soakCase.fault {
            let token = run.url.lastPathComponent
            let sent = SoakServer.errorBody(bytes: bytes, json: json, token: token)
            if !sent.starts(with: body.data) {
                found.append("[errorBody] \(kind): the error body kept is not a prefix of the body sent")
            }
            if body.data.count < min(limit, bytes) {
                found.append("[errorBody] \(kind): kept \(body.data.count) B of the error body, less than min(limit \(limit), \(bytes))")
            }
            let message = #"{"error":"\#(SoakServer.errorMessage(token: token))"}"#
            if json, limit >= message.utf8.count, error.serverMessage != SoakServer.errorMessage(token: token) {
                found.append("[errorBody] \(kind): serverMessage is \(error.serverMessage.map { "\"\($0)\"" } ?? "nil")")
            }
        }
        return found
    }

    /// Why `content` is not the resource, or nil when it is.
    private static func mismatch(_ content: SoakRunner.Content, run: SoakRunner.Run) -> String? {
        let resource = run.resource
        switch content {
        case .void:
            return nil
        case .data(let data):
            return data == resource.body ? nil : "Data of \(data.count) B, not the \(resource.body.count) B of the resource"
        case .string(let text):
            return text == String(decoding: resource.body, as: UTF8.self) ? nil : "a String of \(text.utf8.count) B"
        case .json(let json):
            return json == (try? JSON(parsing: resource.body)) ? nil : "another JSON value"
        case .items(let items):
            return items == resource.items ? nil : "\(items.count) elements, not the \(resource.items.count) of the resource"
        case .file(let url):
            return url.standardizedFileURL.path == run.destination.standardizedFileURL.path ? nil : "placed at \(url.path)"
        case .count(let count):
            let written = FileManager.default.contents(atPath: run.streamFile.path)
            if count != Int64(resource.body.count) { return "\(count) bytes written, not \(resource.body.count)" }
            return written == resource.body ? nil : "the stream's file holds \(written?.count ?? -1) B that are not the resource"
        }
    }

    private static func names(_ codes: Set<HotPotatoError.Code>) -> String {
        codes.isEmpty ? "none" : codes.map { ".\($0)" }.sorted().joined(separator: ", ")
    }
}
