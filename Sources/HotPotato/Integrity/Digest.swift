import CDigest

/// A digest in progress, from CDigest (CommonCrypto, or OpenSSL's libcrypto loaded at run time).
/// One thread at a time.
final class Digest {
    private let algorithm: Checksum.Algorithm
    private var state: OpaquePointer?

    /// Why digests cannot be made here, or `nil` when they can.
    static var unavailabilityReason: String? {
        hp_digest_unavailable_reason().map { String(cString: $0) }
    }

    /// A new digest, or `nil` when the algorithm has no implementation here.
    init?(_ algorithm: Checksum.Algorithm) {
        guard let state = hp_digest_new(algorithm.number) else { return nil }
        self.algorithm = algorithm
        self.state = state
    }

    deinit {
        hp_digest_free(state)
    }

    /// Adds `bytes`; `false` if the implementation failed.
    func update(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let state, let base = bytes.baseAddress else { return state != nil }
        return hp_digest_update(state, base, bytes.count) == 0
    }

    /// The checksum of everything added; `nil` if the implementation failed. No bytes may be added
    /// afterwards.
    func finish() -> Checksum? {
        guard let state else { return nil }
        var output = [UInt8](repeating: 0, count: Int(HP_DIGEST_MAX_LENGTH))
        let length = output.withUnsafeMutableBufferPointer { hp_digest_finish(state, $0.baseAddress) }
        hp_digest_free(state)
        self.state = nil
        guard length == algorithm.length else { return nil }
        return Checksum(algorithm, digest: Array(output.prefix(Int(length))))
    }
}
