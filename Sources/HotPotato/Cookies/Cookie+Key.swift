import Foundation

extension Cookie {
    /// What makes two cookies the same cookie: a jar keeps one cookie per key.
    public struct Key: Sendable, Hashable {
        /// The cookie's name.
        public var name: String
        /// The cookie's domain.
        public var domain: String
        /// The cookie's path.
        public var path: String

        /// Creates a key.
        public init(name: String, domain: String, path: String) {
            self.name = name
            self.domain = domain
            self.path = path
        }
    }

    /// The cookie's name, domain and path.
    public var key: Key { Key(name: name, domain: domain, path: path) }
}
