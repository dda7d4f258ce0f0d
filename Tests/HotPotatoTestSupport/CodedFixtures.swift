import Foundation

/// Content-coded copies of one text, made with the tools a Debian machine has or the tests'
/// set-up installs (`gzip`, `brotli`, `zstd`, and python3's zlib for deflate), in a scratch
/// directory: what the fault server's `/coded` serves.
struct CodedFixtures {
    let directory: URL
    /// The decoded text.
    let plain: Data

    /// The file of `name` (`plain.gz`, `plain.zlib`, `plain.raw`, `plain.br`, `plain.zst`,
    /// `multi.gz`, `big.br`, `big.zst`, `empty.gz`).
    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// How many bytes `big.br` and `big.zst` decode to (spaces).
    static let bigSize = 96 << 20

    static func make(in directory: URL) throws -> CodedFixtures {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let plain = Data((0..<20_000).map { "line \($0) of the body\n" }.joined().utf8)
        try plain.write(to: directory.appendingPathComponent("plain"))
        try Data().write(to: directory.appendingPathComponent("empty"))
        let script = """
            set -e
            cd "$1"
            gzip -9 -c plain > plain.gz
            gzip -c empty > empty.gz
            brotli -q 9 -c plain > plain.br
            zstd -q -19 -c plain > plain.zst
            head -c \(bigSize) /dev/zero | tr '\\0' ' ' | brotli -q 1 -c > big.br
            head -c \(bigSize) /dev/zero | tr '\\0' ' ' | zstd -q -1 -c > big.zst
            python3 - <<'PY'
            import gzip, zlib
            data = open('plain', 'rb').read()
            open('plain.zlib', 'wb').write(zlib.compress(data))
            raw = zlib.compressobj(9, zlib.DEFLATED, -15)
            open('plain.raw', 'wb').write(raw.compress(data) + raw.flush())
            half = len(data) // 2
            open('multi.gz', 'wb').write(gzip.compress(data[:half]) + gzip.compress(data[half:]))
            PY
            """
        for tool in ["gzip", "brotli", "zstd", "python3"] where findExecutable(tool) == nil {
            throw ServerError.notInstalled(tool)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, "sh", directory.path]
        process.standardOutput = FileHandle.nullDevice
        try ChildProcesses.run(process)
        try ChildProcesses.waitForExit(process)
        guard process.terminationStatus == 0 else { throw ServerError.didNotStart("the coded fixtures", "") }
        return CodedFixtures(directory: directory, plain: plain)
    }
}
