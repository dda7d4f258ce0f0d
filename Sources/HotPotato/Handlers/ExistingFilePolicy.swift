/// What ``FileWriter`` does when a file already exists at its destination.
public enum ExistingFilePolicy: Sendable, Hashable {
    /// Fail with ``HotPotatoError/Code/destinationExists`` and leave the existing file as it is
    /// (the default). Checked before the download starts and again, atomically, when the file is
    /// placed.
    case fail
    /// Replace the existing file atomically once the new one is complete. Until then, and if the
    /// download fails, the existing file is untouched.
    case replace
}
