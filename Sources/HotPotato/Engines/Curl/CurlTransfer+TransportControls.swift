import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension CurlTransfer {
    /// Sets the session's transport controls on a freshly reset handle: the client certificate,
    /// the public-key pins of `url`'s host, the Unix socket, the address overrides and the local
    /// address. Returns the `CURLOPT_CONNECT_TO` list, which must live until the transfer ends and
    /// then be freed, or `nil` when there is none.
    func configureTransportControls(_ handle: UnsafeMutableRawPointer, for url: URL) throws(HotPotatoError) -> UnsafeMutableRawPointer? {
        func string(_ option: Int32, _ value: String) {
            // libcurl copies string options.
            value.withCString { _ = hp_curl_setopt_pointer(handle, option, $0) }
        }
        if let certificate = configuration.clientCertificate {
            string(Int32(HP_CURLOPT_SSLCERT), certificate.certificate.path)
            string(Int32(HP_CURLOPT_SSLCERTTYPE), certificate.format.rawValue)
            if let key = certificate.key {
                string(Int32(HP_CURLOPT_SSLKEY), key.path)
                string(Int32(HP_CURLOPT_SSLKEYTYPE), "PEM")
            }
            if let password = certificate.password { string(Int32(HP_CURLOPT_KEYPASSWD), password) }
        }
        // Each request of a redirect chain is configured afresh: each host's own pins.
        // The pins first: a session without any reads nothing of the URL.
        if let pins = configuration.publicKeyPins, url.scheme?.lowercased() == "https", let host = url.host,
           let value = pins.curlValue(forHost: host) {
            string(Int32(HP_CURLOPT_PINNEDPUBLICKEY), value)
        }
        if let socket = configuration.unixSocketPath { string(Int32(HP_CURLOPT_UNIX_SOCKET_PATH), socket) }
        if let local = configuration.localAddress { string(Int32(HP_CURLOPT_INTERFACE), local) }
        guard !configuration.addressOverrides.isEmpty else { return nil }
        for override in configuration.addressOverrides {
            if let problem = override.problem {
                throw HotPotatoError(.invalidRequest, reason: "The address override \(override) cannot be used: \(problem).")
            }
        }
        guard let list = Self.makeHeaderList(configuration.addressOverrides.map(\.curlConnectTo)) else {
            throw HotPotatoError(.transportFailed, reason: "libcurl could not build the address overrides' list.")
        }
        hp_curl_setopt_pointer(handle, Int32(HP_CURLOPT_CONNECT_TO), list)
        return list
    }
}

extension Session.Configuration {
    /// The transport controls set here that the URLSession engine cannot honour,
    /// by name, for its ``HotPotatoError/Code/engineUnavailable`` error; empty when none is.
    func controlsOnlyCurlHonours(for url: URL?) -> [String] {
        var names: [String] = []
        if clientCertificate != nil { names.append("clientCertificate") }
        if let pins = publicKeyPins, url?.scheme?.lowercased() == "https",
           let host = url?.host, pins.pins(forHost: host) != nil {
            names.append("publicKeyPins")
        }
        if unixSocketPath != nil { names.append("unixSocketPath") }
        if !addressOverrides.isEmpty { names.append("addressOverrides") }
        if localAddress != nil { names.append("localAddress") }
        if let connectTimeout, connectTimeout > 0, connectTimeout.isFinite { names.append("connectTimeout") }
        #if canImport(FoundationNetworking)
        // Apple platforms' URLSession takes it (`tlsMinimumSupportedProtocolVersion`).
        if minimumTLSVersion != nil { names.append("minimumTLSVersion") }
        #endif
        return names
    }
}
