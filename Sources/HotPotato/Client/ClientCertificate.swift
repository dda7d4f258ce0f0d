import Foundation

/// The certificate (and key) a session presents to servers that ask for one: mutual TLS, as
/// curl's `--cert`/`--key`. Set ``Session/Configuration/clientCertificate``.
///
/// ```swift
/// var configuration = Session.Configuration()
/// configuration.clientCertificate = .pem(
///     certificate: URL(fileURLWithPath: "client.pem"),
///     key: URL(fileURLWithPath: "client.key"))
/// ```
///
/// The libcurl engine reads the files when a connection is made, so a certificate renewed on
/// disk is used by the next connection. A file that cannot be read, or a key that does not
/// match the certificate (or needs another password), fails the call with
/// ``HotPotatoError/Code/tlsFailure`` before anything is sent. A server that refuses the
/// certificate in the handshake (`unknown ca`, `certificate required` …) fails it with
/// ``HotPotatoError/Code/tlsFailure`` too, its reason saying that the server refused the client
/// certificate. Some servers complete the handshake and answer with an HTTP status instead:
/// nginx answers `400` ("No required SSL certificate was sent", "The SSL certificate error"),
/// which a handler rejects as any other status, with that page in ``HotPotatoError/errorBody``
/// and its title in ``HotPotatoError/serverMessage``.
///
/// The URLSession engine cannot present one (FoundationNetworking has no way to give it one; on
/// Apple platforms it would take an authentication-challenge delegate of the application's):
/// its requests fail with ``HotPotatoError/Code/engineUnavailable``.
public struct ClientCertificate: Sendable, Hashable, CustomStringConvertible {
    /// How the certificate file is encoded.
    public enum Format: String, Sendable, Hashable {
        /// PEM: the certificate, and the key in the same file or in ``ClientCertificate/key``.
        case pem = "PEM"
        /// PKCS#12 (`.p12`, `.pfx`): certificate and key in one file, usually with a password.
        /// libcurl built with OpenSSL reads it; others may not (the call then fails with
        /// ``HotPotatoError/Code/tlsFailure``).
        case pkcs12 = "P12"
    }

    /// The certificate file.
    public var certificate: URL
    /// The private key's file (PEM), when it is not in ``certificate``'s.
    public var key: URL?
    /// The password of the key (or of the PKCS#12 file), if it has one. Never printed:
    /// ``description`` shows `<redacted>`.
    public var password: String?
    /// How ``certificate`` is encoded.
    public var format: Format

    /// A certificate in a PEM file, with its key in `key` (or in the same file when `nil`).
    public static func pem(certificate: URL, key: URL? = nil, password: String? = nil) -> ClientCertificate {
        ClientCertificate(certificate: certificate, key: key, password: password, format: .pem)
    }

    /// A certificate and its key in one PKCS#12 file.
    public static func pkcs12(_ file: URL, password: String? = nil) -> ClientCertificate {
        ClientCertificate(certificate: file, key: nil, password: password, format: .pkcs12)
    }

    /// Creates a client certificate; see ``pem(certificate:key:password:)`` and
    /// ``pkcs12(_:password:)``.
    public init(certificate: URL, key: URL?, password: String?, format: Format) {
        self.certificate = certificate
        self.key = key
        self.password = password
        self.format = format
    }

    /// The files and the format; a password shows as `<redacted>`.
    public var description: String {
        var text = "\(format.rawValue) \(certificate.path)"
        if let key { text += ", key \(key.path)" }
        if password != nil { text += ", password \(Redaction.placeholder)" }
        return text
    }
}
