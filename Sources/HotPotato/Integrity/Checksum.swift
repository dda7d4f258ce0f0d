import Foundation

/// The digest a download must have: the file is placed only if its bytes match.
///
/// ```swift
/// let iso = try await session.get(isoURL)
///     .downloadToFile(at: destination, checksum: Checksum("sha256=9f86d081884c7d65…"))
///     .content
/// ```
///
/// The file's digest is computed on another thread while the body is written, from the file
/// itself — a resumed or retried download is checked over all its bytes, those of earlier attempts
/// included. A mismatch fails the call with ``HotPotatoError/Code/checksumMismatch`` (both
/// digests in ``HotPotatoError/expectedChecksum`` and ``HotPotatoError/actualChecksum``), and
/// nothing is left behind: no file at the destination, and a resumable download's partial file
/// is discarded.
///
/// The digests come from the platform's audited implementation: CommonCrypto on Apple platforms,
/// OpenSSL's libcrypto on Linux (already in the process wherever libcurl uses OpenSSL, loaded at
/// run time otherwise). Where there is none, a call with a checksum fails before it is sent, with
/// ``HotPotatoError/Code/checksumUnavailable``.
public struct Checksum: Sendable, Hashable, CustomStringConvertible {
    /// A digest algorithm.
    public struct Algorithm: Sendable, Hashable, CustomStringConvertible {
        /// The algorithm's name as ``Checksum/init(_:)`` reads it: `md5`, `sha1`, `sha256`, `sha512`.
        public let name: String
        /// The digest's length in bytes.
        public let length: Int
        /// The number CDigest knows it by.
        let number: Int32

        /// MD5: for old mirrors' checksums; it detects corruption, not tampering.
        public static let md5 = Algorithm(name: "md5", length: 16, number: 1)
        /// SHA-1: for old mirrors' checksums; it detects corruption, not tampering.
        public static let sha1 = Algorithm(name: "sha1", length: 20, number: 2)
        /// SHA-256.
        public static let sha256 = Algorithm(name: "sha256", length: 32, number: 3)
        /// SHA-512.
        public static let sha512 = Algorithm(name: "sha512", length: 64, number: 4)
        /// Every algorithm, as ``Checksum/init(_:)`` accepts them.
        public static let all: [Algorithm] = [.md5, .sha1, .sha256, .sha512]

        /// The name, such as `sha256`.
        public var description: String { name }

        /// The algorithm named `name` (any case; `sha-256` as well as `sha256`), or `nil`.
        public init?(named name: String) {
            let key = name.lowercased().replacingOccurrences(of: "-", with: "")
            guard let found = Self.all.first(where: { $0.name == key }) else { return nil }
            self = found
        }

        private init(name: String, length: Int, number: Int32) {
            self.name = name
            self.length = length
            self.number = number
        }
    }

    /// The algorithm.
    public let algorithm: Algorithm
    /// The digest, ``Algorithm/length`` bytes.
    public let digest: [UInt8]

    /// A checksum from its digest's bytes; `nil` when there are not ``Algorithm/length`` of them.
    public init?(_ algorithm: Algorithm, digest: [UInt8]) {
        guard digest.count == algorithm.length else { return nil }
        self.algorithm = algorithm
        self.digest = digest
    }

    /// A checksum from its digest in hexadecimal (either case); `nil` when it is not
    /// ``Algorithm/length`` bytes of hexadecimal.
    public init?(_ algorithm: Algorithm, hex: String) {
        guard let bytes = Self.bytes(fromHex: hex) else { return nil }
        self.init(algorithm, digest: bytes)
    }

    /// A checksum written as curl, aria2 and `potato get --checksum` write it: `ALGORITHM=HEX`,
    /// such as `sha256=9f86d0…` (`sha-256=` too, any case); `nil` when it is not one.
    public init?(_ text: String) {
        guard let equals = text.firstIndex(of: "="), let algorithm = Algorithm(named: String(text[..<equals])) else {
            return nil
        }
        self.init(algorithm, hex: String(text[text.index(after: equals)...]))
    }

    /// The digest in lowercase hexadecimal.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(digest.count * 2)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `ALGORITHM=HEX`, as ``init(_:)`` reads it.
    public var description: String { "\(algorithm.name)=\(hex)" }

    private static func bytes(fromHex hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
