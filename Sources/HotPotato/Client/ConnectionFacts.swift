import Foundation

/// The connection a response came over: where it went, from where, and whether it was new. In
/// ``TransferTimings/connection``.
///
/// The libcurl engine fills the addresses, ports and counts (`CURLINFO_PRIMARY_IP`, `_PORT`,
/// `LOCAL_IP`, `LOCAL_PORT`, `NUM_CONNECTS`, `SIZE_DOWNLOAD_T`); over a Unix socket the addresses are
/// empty. The version of HTTP is in ``ResponseHead/httpVersion``. The TLS version and cipher
/// suite come from the TLS library's own handle (`CURLINFO_TLS_SSL_PTR`), where libcurl uses
/// OpenSSL (as Debian's, Ubuntu's and Fedora's do); with another TLS library they are `nil`. The
/// URLSession engine fills none (see ``TransferPhases``).
public struct ConnectionFacts: Sendable, Hashable {
    /// The address connected to: the server's, or the proxy's (curl's `remote_ip`).
    public var remoteAddress: String?
    /// The port connected to (`remote_port`).
    public var remotePort: Int?
    /// The local end's address (`local_ip`).
    public var localAddress: String?
    /// The local end's port (`local_port`).
    public var localPort: Int?
    /// How many new connections the call made, redirects included (curl's `num_connects`): 0
    /// when every request went over a connection that was already open.
    public var connectionsMade: Int?
    /// The body bytes received for the response, as they came over the wire (before any content
    /// decoding; curl's `size_download`).
    public var bodyBytesReceived: Int64?
    /// The version of TLS the response came over (`TLSv1.3`, `TLSv1.2`), as the TLS library names
    /// it; `nil` over plain `http`.
    public var tlsVersion: String?
    /// The cipher suite of that TLS connection (`TLS_AES_256_GCM_SHA384`), as the TLS library
    /// names it.
    public var tlsCipherSuite: String?

    /// Whether the response came over a connection that was already open.
    public var isReused: Bool? { connectionsMade.map { $0 == 0 } }

    /// Creates connection facts.
    public init(remoteAddress: String? = nil, remotePort: Int? = nil, localAddress: String? = nil, localPort: Int? = nil,
                connectionsMade: Int? = nil, bodyBytesReceived: Int64? = nil, tlsVersion: String? = nil,
                tlsCipherSuite: String? = nil) {
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.localAddress = localAddress
        self.localPort = localPort
        self.connectionsMade = connectionsMade
        self.bodyBytesReceived = bodyBytesReceived
        self.tlsVersion = tlsVersion
        self.tlsCipherSuite = tlsCipherSuite
    }
}
