import Foundation

extension CookieJar {
    /// How much a ``CookieJar`` keeps, so that a hostile server cannot make it grow without bound.
    ///
    /// The defaults are browsers': 4096 bytes of name and value a cookie, 180 cookies a domain,
    /// 3000 in all. A cookie over the size limit is ignored; past a count limit the jar drops
    /// expired cookies first, then the oldest — of that domain, or of the whole jar.
    public struct Limits: Sendable, Hashable {
        /// The most bytes (UTF-8) of name and value together a cookie may have; a larger one is
        /// ignored. Default 4096.
        public var maximumCookieSize: Int
        /// The most cookies kept for one domain (a host, or a `Domain` attribute's value).
        /// Default 180.
        public var maximumCookiesPerDomain: Int
        /// The most cookies kept in all. Default 3000.
        public var maximumCookies: Int

        /// Creates limits; each is at least 1.
        public init(maximumCookieSize: Int = 4096, maximumCookiesPerDomain: Int = 180, maximumCookies: Int = 3000) {
            self.maximumCookieSize = max(1, maximumCookieSize)
            self.maximumCookiesPerDomain = max(1, maximumCookiesPerDomain)
            self.maximumCookies = max(1, maximumCookies)
        }
    }
}
