import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A request URL as the cookie rules see it: `http` or `https` only, its host lowercased and its
/// path as written (percent-encoded, never with a trailing slash dropped).
struct CookieTarget: Sendable {
    let host: String
    let path: String
    let isSecure: Bool
    let hostIsIPAddress: Bool

    init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
              var host = components.percentEncodedHost?.lowercased(), !host.isEmpty
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        let path = components.percentEncodedPath
        self.path = path.hasPrefix("/") ? path : "/"
        isSecure = scheme == "https"
        hostIsIPAddress = CookieRules.isIPAddress(host)
    }
}

/// The matching rules of RFC 6265, section 5.1.
enum CookieRules {
    /// Whether `host` domain-matches `domain` (both lowercased): they are equal, or `host` ends
    /// with `.` + `domain` and is not an IP address.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        guard host.utf8.count > domain.utf8.count, host.hasSuffix(domain), !domain.isEmpty else { return false }
        let dot = host.utf8.index(host.utf8.endIndex, offsetBy: -domain.utf8.count - 1)
        return host.utf8[dot] == UInt8(ascii: ".") && !isIPAddress(host)
    }

    /// Whether a request path path-matches a cookie's path: they are equal, or the cookie's path
    /// is a prefix of the request's that ends with `/` or is followed by `/` there.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        if cookiePath.hasSuffix("/") { return true }
        let next = requestPath.utf8.index(requestPath.utf8.startIndex, offsetBy: cookiePath.utf8.count)
        return requestPath.utf8[next] == UInt8(ascii: "/")
    }

    /// The default path of a cookie set by a response to `requestPath`: its directory, without
    /// the trailing slash; `/` when it has no directory.
    static func defaultPath(_ requestPath: String) -> String {
        guard requestPath.hasPrefix("/"), let slash = requestPath.lastIndex(of: "/"), slash != requestPath.startIndex
        else { return "/" }
        return String(requestPath[..<slash])
    }

    /// Whether `host` is an IPv4 or IPv6 address (without brackets).
    static func isIPAddress(_ host: String) -> Bool {
        guard let last = host.utf8.last else { return false }
        // A host name's last label never starts with a digit (RFC 3696); an IPv4 address ends
        // with one, an IPv6 address has colons.
        if !host.utf8.contains(UInt8(ascii: ":")) && !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(last) {
            return false
        }
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
