import Foundation
import HotPotato

/// `--continue` on a FILE that is already there, with no partial file to continue: an earlier
/// run finished it. As `wget -c` and `curl -C -` do, potato asks the server for the file's
/// length (a `HEAD`, for the bytes as they are stored: `Accept-Encoding: identity`) and, when it
/// is the file's, says so and succeeds without a download. With `--checksum`, FILE's digest
/// decides instead, and nothing is asked. Any other answer leaves the download to refuse the
/// existing FILE (exit 16), as before.
extension GetCommand {
    /// `.success` when `destination` is the whole of `url` already (its length is the server's),
    /// after saying so; `nil` when the download is to go ahead.
    func finishedEarlier(_ url: URL, at destination: URL, session: Session) async -> ExitStatus? {
        guard options.resume, !options.overwrite, !options.onlyIfChanged, FileWriter.keptBytes(for: destination) == nil,
              let attributes = try? FileManager.default.attributesOfItem(atPath: destination.path),
              attributes[.type] as? FileAttributeType == .typeRegular,
              let size = (attributes[.size] as? NSNumber)?.int64Value
        else { return nil }
        if let checksum = options.checksum {
            guard (try? Checksum.ofFile(at: destination, algorithm: checksum.algorithm)) == checksum else { return nil }
            if !options.quiet {
                Console.error("potato: \(TerminalText.safe(destination.path)) is already complete (its \(checksum.algorithm.name) "
                    + "is the one given): nothing to continue\n")
            }
            return .success
        }
        let head = withCallersHeaders(session.head(url).retry(RetryPolicy(maximumAttempts: 1)).header("Accept-Encoding", "identity"))
        guard let response = try? await head.response(), response.head.status == 200,
              response.head.contentEncodings.isEmpty, response.head.contentLength == size
        else { return nil }
        if !options.quiet {
            Console.error("potato: \(TerminalText.safe(destination.path)) is already complete (\(ByteCount.text(size)), "
                + "the length the server gives): nothing to continue\n")
        }
        return .success
    }
}
