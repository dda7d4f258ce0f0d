import Foundation

extension PublicKeyPins {
    /// The pin (`sha256//BASE64`) of the public key in the file at `url`: a PEM file
    /// (`-----BEGIN PUBLIC KEY-----`) or the key's DER `SubjectPublicKeyInfo`, as curl's
    /// `--pinnedpubkey FILE` reads it. Pin the key a server will present without computing its
    /// hash by hand:
    ///
    /// ```swift
    /// let pin = try PublicKeyPins.pin(ofPublicKeyAt: URL(fileURLWithPath: "server.pub.pem"))
    /// configuration.publicKeyPins = try PublicKeyPins(forEveryHost: [pin])
    /// ```
    ///
    /// Make such a file from a server's key or certificate with
    /// `openssl pkey -in server.key -pubout` or `openssl x509 -in server.pem -pubkey -noout`.
    ///
    /// - Throws: ``HotPotatoError/Code/fileSystemError`` (with the path) when the file cannot be
    ///   read; ``HotPotatoError/Code/invalidRequest`` when it holds no public key (a certificate or
    ///   a private key, say: the reason says how to get the public key out of it), or is over
    ///   64 KiB; ``HotPotatoError/Code/checksumUnavailable`` where SHA-256 has no implementation.
    public static func pin(ofPublicKeyAt url: URL) throws(HotPotatoError) -> String {
        let path = url.path
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            data = try handle.read(upToCount: maximumKeyFileSize + 1) ?? Data()
        } catch {
            throw .file(.fileSystemError, "The public key file \(path) cannot be read.", path: path, underlying: error)
        }
        guard data.count <= maximumKeyFileSize else {
            throw HotPotatoError(.invalidRequest, reason: "\(path) is over 64 KiB: it is no public key file.")
        }
        let key = try subjectPublicKeyInfo(in: data, path: path)
        guard let digest = Digest(.sha256) else { throw FileDigester.unavailable(.sha256) }
        let added = key.withUnsafeBytes { digest.update($0) }
        guard added, let checksum = digest.finish() else { throw FileDigester.unavailable(.sha256) }
        return "sha256//" + Data(checksum.digest).base64EncodedString()
    }

    private static let maximumKeyFileSize = 64 * 1024

    /// The DER `SubjectPublicKeyInfo` in `data`: the body of its `PUBLIC KEY` block, or `data`
    /// itself when it is DER.
    private static func subjectPublicKeyInfo(in data: Data, path: String) throws(HotPotatoError) -> Data {
        let text = String(decoding: data, as: UTF8.self)
        let begin = "-----BEGIN PUBLIC KEY-----", end = "-----END PUBLIC KEY-----"
        if let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) {
            let body = text[start.upperBound..<stop.lowerBound].filter { !$0.isWhitespace }
            guard let der = Data(base64Encoded: String(body)), isDERSequence(der) else {
                throw HotPotatoError(.invalidRequest, reason: "The PUBLIC KEY block of \(path) is not valid base64 DER.")
            }
            return der
        }
        if text.contains("-----BEGIN CERTIFICATE-----") {
            throw HotPotatoError(.invalidRequest, reason: "\(path) holds a certificate, not a public key: "
                + "openssl x509 -in \(path) -pubkey -noout writes its public key.")
        }
        if text.contains("PRIVATE KEY-----") {
            throw HotPotatoError(.invalidRequest, reason: "\(path) holds a private key: pin its public key, which "
                + "openssl pkey -in \(path) -pubout writes.")
        }
        guard isDERSequence(data) else {
            throw HotPotatoError(.invalidRequest, reason: "\(path) holds no public key (PEM PUBLIC KEY or DER).")
        }
        return data
    }

    /// Whether `der` is one DER `SEQUENCE` whose length is the rest of the bytes, as a
    /// `SubjectPublicKeyInfo` is.
    private static func isDERSequence(_ der: Data) -> Bool {
        let bytes = [UInt8](der)
        guard bytes.count >= 2, bytes[0] == 0x30 else { return false }
        var length = Int(bytes[1]), header = 2
        if bytes[1] & 0x80 != 0 {
            let count = Int(bytes[1] & 0x7F)
            guard (1...3).contains(count), bytes.count >= 2 + count else { return false }
            length = bytes[2..<(2 + count)].reduce(0) { $0 << 8 | Int($1) }
            header += count
        }
        return header + length == bytes.count
    }
}
