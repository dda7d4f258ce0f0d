import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The destination's checks, the temporary file, and placing the finished file.
extension FileWriter {
    /// Checks the destination (a file URL, not a directory, not an existing file under
    /// ``ExistingFilePolicy/fail``), creates missing directories when asked, and returns the
    /// destination's directory.
    func checkDestination() throws -> URL {
        let path = destination.path
        guard destination.isFileURL, !destination.lastPathComponent.isEmpty, path != "/" else {
            throw fileError(.fileSystemError, "The destination \(destination) is not a file URL.", path: path)
        }
        if let isDirectory = POSIXFile.itemIsDirectory(atPath: path) {
            if isDirectory {
                throw fileError(.fileSystemError, "The destination \(path) is a directory.", path: path)
            }
            if placementPolicy == .fail {
                throw fileError(.destinationExists, "A file already exists at \(path).", path: path)
            }
            // Placing renames over the destination: never over a device, a FIFO or a socket
            // (`-o /dev/null --overwrite` as root would have replaced the null device with a
            // file). A symbolic link is replaced itself, whatever it points to.
            if let status = POSIXFile.linkStatus(path), (status.st_mode & S_IFMT) != S_IFREG, (status.st_mode & S_IFMT) != S_IFLNK {
                throw fileError(
                    .fileSystemError,
                    "The destination \(path) is not a regular file (a device, a FIFO or a socket): a download is placed by "
                        + "replacing the file at its destination, which would replace it. Write to it with downloadToStream.",
                    path: path)
            }
        }
        let directory = destination.deletingLastPathComponent()
        if POSIXFile.itemIsDirectory(atPath: directory.path) == nil {
            guard createsIntermediateDirectories else {
                throw fileError(
                    .fileSystemError, "The directory \(directory.path) does not exist.", path: directory.path,
                    underlying: POSIXError(.ENOENT))
            }
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            } catch {
                throw fileError(
                    .fileSystemError, "Creating the directory \(directory.path) failed.", path: directory.path,
                    underlying: error)
            }
        }
        return directory
    }

    /// Opens the file a non-resumed body goes to: an anonymous file where the system has them,
    /// else a locked `.part` file (after removing any that a crashed download left behind).
    func createTemporaryFile(in directory: URL) throws {
        do {
            if let anonymous = try POSIXFile.openAnonymous(in: directory.path) {
                descriptor = anonymous
                output = .anonymous
                return
            }
        } catch {
            throw fileError(
                .fileSystemError, "Creating a temporary file in \(directory.path) failed: \(error)",
                path: directory.path, underlying: error)
        }
        removeStaleTemporaryFiles(in: directory)
        var lastError: (any Error)?
        for _ in 0..<16 {
            let candidate = directory.appendingPathComponent(Self.temporaryName(for: destination))
            do {
                let created = try POSIXFile.createExclusive(candidate.path)
                _ = try? POSIXFile.tryLock(created)
                descriptor = created
                output = .named(candidate)
                temporaryURL = candidate
                return
            } catch let error as POSIXError where error.code == .EEXIST {
                lastError = error
            } catch {
                lastError = error
                break
            }
        }
        throw fileError(
            .fileSystemError, "Creating a temporary file in \(directory.path) failed: \(lastError.map { "\($0)" } ?? "")",
            path: directory.path, underlying: lastError)
    }

    /// `.<name>.hotpotato-<random>.part`, within the file system's limit on names.
    static func temporaryName(for destination: URL) -> String {
        let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        return AuxiliaryFileName.name(for: destination.lastPathComponent, suffix: ".hotpotato-\(random).part")
    }

    /// Removes the `.part` files of this destination that no download holds: left by a process
    /// that crashed or was killed. A file is removed only when it is private (see
    /// ``POSIXFile/isPrivate(_:)``) and its lock can be taken, which no live download allows.
    func removeStaleTemporaryFiles(in directory: URL) {
        let prefix = "." + AuxiliaryFileName.stem(for: destination.lastPathComponent) + ".hotpotato-"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return }
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".part") {
            let path = directory.appendingPathComponent(name).path
            guard let opened = try? POSIXFile.openPrivate(path, flags: O_RDONLY) else { continue }
            defer { _ = try? POSIXFile.close(opened.descriptor) }
            guard (try? POSIXFile.tryLock(opened.descriptor)) == true, let current = POSIXFile.linkStatus(path),
                  POSIXFile.sameFile(current, opened.status) else { continue }
            POSIXFile.remove(path)
        }
    }

    /// Gives the file its final permissions and moves it to ``destination`` atomically: only if
    /// nothing is there under ``ExistingFilePolicy/fail``, over what is there under
    /// ``ExistingFilePolicy/replace``.
    func place() throws {
        let fd = descriptor
        stampBeforePlacing(fd)
        do {
            try POSIXFile.setMode(fd, POSIXFile.regularFileMode)
        } catch {
            throw fileError(.writeFailed, "Finishing the download failed: \(error)", path: destination.path, underlying: error)
        }
        do {
            switch output {
            case .anonymous:
                try placeAnonymous(fd)
            case .named(let url):
                try move(url.path)
            case .partial:
                try move(partialFileURL.path)
                POSIXFile.remove(PartialDownload(destination: destination).infoURL.path)
            case .none:
                throw POSIXError(.EBADF)
            }
        } catch let error as POSIXError where error.code == .EEXIST {
            throw fileError(.destinationExists, "A file appeared at \(destination.path) during the download.", path: destination.path)
        } catch {
            throw fileError(
                .fileSystemError, "Moving the download to \(destination.path) failed: \(error)",
                path: destination.path, underlying: error)
        }
        if case .partial = output {} else { _ = try? POSIXFile.close(fd) }
        descriptor = -1
        output = nil
        temporaryURL = nil
    }

    /// How the file is placed: over an existing one when ``existingFilePolicy`` says so, or when
    /// only a changed file was asked for (``onlyIfChanged``), which replaces the old one.
    var placementPolicy: ExistingFilePolicy { onlyIfChanged ? .replace : existingFilePolicy }

    private func move(_ source: String) throws {
        switch placementPolicy {
        case .replace: try POSIXFile.rename(source, to: destination.path)
        case .fail: try POSIXFile.renameNoReplace(source, to: destination.path)
        }
    }

    /// Links the anonymous file in: straight at the destination when nothing may be replaced
    /// (the link fails if something is there), else under a temporary name renamed over it —
    /// unless nothing is there either, when the link straight at the destination does it (it
    /// fails, and the rename follows, if something appeared meanwhile).
    private func placeAnonymous(_ fd: Int32) throws {
        switch placementPolicy {
        case .fail:
            try POSIXFile.linkAnonymous(fd, to: destination.path)
        case .replace:
            do {
                try POSIXFile.linkAnonymous(fd, to: destination.path)
                return
            } catch let error as POSIXError where error.code == .EEXIST {}
            let directory = destination.deletingLastPathComponent()
            var attempts = 0
            while true {
                let named = directory.appendingPathComponent(Self.temporaryName(for: destination)).path
                do {
                    try POSIXFile.linkAnonymous(fd, to: named)
                } catch let error as POSIXError where error.code == .EEXIST && attempts < 8 {
                    attempts += 1
                    continue
                }
                do {
                    try POSIXFile.rename(named, to: destination.path)
                } catch {
                    POSIXFile.remove(named)
                    throw error
                }
                return
            }
        }
    }
}
