import Foundation

/// What a `Set-Cookie` asks of a jar, once the storage rules (RFC 6265, section 5.3, and
/// RFC 6265bis) have judged it.
enum CookieDecision: Sendable, Equatable {
    /// Keep the cookie, replacing any of the same key.
    case store(Cookie)
    /// Remove the cookie of this key, if any: the server set it already expired.
    case delete(Cookie.Key, isSecure: Bool)
    /// Ignore it, for this reason.
    case reject(String)
}

extension SetCookie {
    /// The longest a cookie lives: 400 days from when it is set (RFC 6265bis).
    static let maximumLifetime: TimeInterval = 400 * 24 * 60 * 60

    /// What this `Set-Cookie`, received from `target` at `now`, asks of a jar.
    func decision(from target: CookieTarget, at now: Date, limits: CookieJar.Limits) -> CookieDecision {
        if name.utf8.count + value.utf8.count > limits.maximumCookieSize {
            return .reject("its name and value are larger than \(limits.maximumCookieSize) bytes")
        }
        if isSecure && !target.isSecure { return .reject("it is Secure but was set over http") }
        let domain: String
        let isHostOnly: Bool
        if let requested = self.domain {
            if target.hostIsIPAddress {
                guard requested == target.host else { return .reject("its Domain is not the IP address that set it") }
                (domain, isHostOnly) = (requested, true)
            } else if requested == target.host {
                // A public suffix may set a cookie for itself alone (RFC 6265, 5.3 step 5).
                (domain, isHostOnly) = (requested, PublicSuffixList.isPublicSuffix(requested))
            } else if !CookieRules.domainMatches(target.host, requested) {
                return .reject("its Domain \(requested) is not \(target.host) or a parent of it")
            } else if !PublicSuffixList.isCookieDomainAcceptable(host: target.host, domain: requested) {
                return .reject("its Domain \(requested) is a public suffix")
            } else {
                (domain, isHostOnly) = (requested, false)
            }
        } else {
            (domain, isHostOnly) = (target.host, true)
        }
        let path = self.path ?? CookieRules.defaultPath(target.path)
        if name.hasPrefix("__Secure-") || name.hasPrefix("__Host-") {
            guard isSecure else { return .reject("a \(name.hasPrefix("__Host-") ? "__Host-" : "__Secure-") cookie must be Secure") }
            if name.hasPrefix("__Host-"), !(self.domain == nil && path == "/") {
                return .reject("a __Host- cookie must have Path=/ and no Domain")
            }
        }
        let key = Cookie.Key(name: name, domain: domain, path: path)
        var expiresAt: Date?
        if let maxAge {
            guard maxAge > 0 else { return .delete(key, isSecure: target.isSecure) }
            expiresAt = now.addingTimeInterval(min(TimeInterval(maxAge), Self.maximumLifetime))
        } else if let expires {
            guard expires > now else { return .delete(key, isSecure: target.isSecure) }
            expiresAt = min(expires, now.addingTimeInterval(Self.maximumLifetime))
        }
        return .store(Cookie(
            name: name, value: value, domain: domain, isHostOnly: isHostOnly, path: path, isSecure: isSecure,
            isHTTPOnly: isHTTPOnly, expiresAt: expiresAt, sameSite: sameSite, createdAt: now))
    }
}
