import Foundation

/// The public keys a session accepts from HTTPS servers, beyond the certificate checks: pinning,
/// as curl's `--pinnedpubkey`. Set ``Session/Configuration/publicKeyPins``.
///
/// A pin is `sha256//` and the base64 of the SHA-256 of the server's public key (its DER
/// `SubjectPublicKeyInfo`), as curl, HPKP and most tools write it:
///
/// ```sh
/// openssl x509 -in server.pem -pubkey -noout | openssl pkey -pubin -outform der \
///     | openssl dgst -sha256 -binary | base64
/// ```
///
/// ```swift
/// var configuration = Session.Configuration()
/// configuration.publicKeyPins = try PublicKeyPins(forEveryHost: [current, next])  // rotation: both
///     .pinning(["sha256//…"], forHost: "api.example.com")  // this host: only this key
/// ```
///
/// A host with pins of its own is checked against those; every other `https` host against the
/// pins for every host, if there are any (none: only the certificate checks, as without pinning).
/// Several pins for one host accept any of them: pin the next key before you rotate to it. Each
/// redirect's host is checked against its own pins. The certificate is still verified as always;
/// a pin adds to that, it does not replace it.
///
/// A server whose key matches no pin fails the call with
/// ``HotPotatoError/Code/pinnedKeyMismatch`` during the handshake, before any byte of the request
/// is sent. Plain `http` requests are not affected.
///
/// The URLSession engine cannot pin (FoundationNetworking gives no access to the server's
/// certificate, Alamofire issue 1935; on Apple platforms it would take a trust-evaluation
/// delegate): with pins set, its `https` requests fail with
/// ``HotPotatoError/Code/engineUnavailable``.
public struct PublicKeyPins: Sendable, Hashable {
    /// The pins for every host without pins of its own.
    public private(set) var everyHost: [String]
    /// The pins of particular hosts, by lowercased host name (or address).
    public private(set) var hosts: [String: [String]]

    /// Pins for every host (`sha256//BASE64` each). Throws
    /// ``HotPotatoError/Code/invalidRequest`` for a pin that is not one.
    public init(forEveryHost pins: [String] = []) throws(HotPotatoError) {
        everyHost = try Self.checked(pins)
        hosts = [:]
    }

    /// These pins, and `pins` for `host` (a name or an address, compared without case) in place of
    /// the pins for every host. Throws ``HotPotatoError/Code/invalidRequest`` for a pin that is
    /// not `sha256//BASE64`, or for no pin at all.
    public func pinning(_ pins: [String], forHost host: String) throws(HotPotatoError) -> PublicKeyPins {
        guard !pins.isEmpty else {
            throw HotPotatoError(.invalidRequest, reason: "No pin given for \(host).")
        }
        var copy = self
        copy.hosts[Self.normalised(host)] = try Self.checked(pins)
        return copy
    }

    /// The pins `host`'s key must match, or `nil` when it is not pinned.
    public func pins(forHost host: String) -> [String]? {
        if let own = hosts[Self.normalised(host)] { return own }
        return everyHost.isEmpty ? nil : everyHost
    }

    /// Whether there is any pin at all.
    public var isEmpty: Bool { everyHost.isEmpty && hosts.isEmpty }

    /// The value of `CURLOPT_PINNEDPUBLICKEY` for `host`, or `nil`.
    func curlValue(forHost host: String) -> String? {
        pins(forHost: host)?.joined(separator: ";")
    }

    private static func normalised(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host
    }

    private static func checked(_ pins: [String]) throws(HotPotatoError) -> [String] {
        for pin in pins {
            guard pin.hasPrefix("sha256//"), let digest = Data(base64Encoded: String(pin.dropFirst("sha256//".count))),
                  digest.count == 32 else {
                throw HotPotatoError(.invalidRequest, reason: "\"\(pin)\" is not a public-key pin: one is sha256// and the base64 of 32 bytes.")
            }
        }
        return pins
    }
}
