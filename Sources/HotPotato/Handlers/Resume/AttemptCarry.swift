import Foundation

/// The body a download that is not resumable received in the earlier attempts of one retried
/// call, handed from each attempt's ``FileWriter`` to the next: the open temporary file (an
/// anonymous one where the system has them, so that a killed process leaves nothing), how it
/// ends, and the validator of the response it came from.
///
/// The attempts of a call run one after another: a writer takes the file at the start of its
/// attempt (``take()``) and gives it back if it fails (``keep(_:)``); the call closes it at its end
/// (``discard()``), whatever happened.
final class AttemptCarry: @unchecked Sendable {
    /// A temporary file and what it holds.
    struct File {
        let descriptor: Int32
        let output: FileWriter.Output
        /// The URL and validator of the response its bytes came from.
        let info: PartialDownload.Info?
    }

    private let lock = NSLock()
    private var file: File?

    /// Takes the file kept by the attempt before, if any: the caller owns it from now on.
    func take() -> File? {
        lock.lock()
        defer { lock.unlock() }
        defer { file = nil }
        return file
    }

    /// Keeps `file` for the next attempt; one kept already is discarded.
    func keep(_ file: File) {
        lock.lock()
        let earlier = self.file
        self.file = file
        lock.unlock()
        if let earlier { Self.close(earlier) }
    }

    /// Closes the kept file, if any (an anonymous file vanishes; a named one is removed).
    func discard() {
        if let file = take() { Self.close(file) }
    }

    static func close(_ file: File) {
        _ = try? POSIXFile.close(file.descriptor)
        if case .named(let url) = file.output { POSIXFile.remove(url.path) }
    }

    deinit {
        if let file { Self.close(file) }
    }
}
