import Foundation

/// A ``CookieJar``'s cookies, by domain: a request's look-up visits only its host's buckets and
/// its parent domains', and each bucket is bounded by ``CookieJar/Limits/maximumCookiesPerDomain``,
/// so no operation grows with what a server sent.
struct CookieJarState {
    /// The cookies of each domain, in the order they were first set.
    private(set) var buckets: [String: [Cookie]] = [:]
    /// How many cookies there are in all.
    private(set) var count = 0
    /// How many `Secure` cookies bear each name: a cookie set over `http` looks for one to leave
    /// alone only when there is one.
    private var secureNames: [String: Int] = [:]

    /// Every cookie that has not expired at `now`.
    func all(at now: Date) -> [Cookie] {
        buckets.values.flatMap { $0.filter { !$0.isExpired(at: now) } }
    }

    /// The cookies a request to `target` carries, longest path first, then oldest first;
    /// drops the expired cookies it meets.
    mutating func cookies(for target: CookieTarget, at now: Date) -> [Cookie] {
        var found: [(cookie: Cookie, order: Int)] = []
        for domain in Self.domains(of: target) {
            guard let bucket = buckets[domain] else { continue }
            if bucket.contains(where: { $0.isExpired(at: now) }) {
                removeAll(in: domain) { $0.isExpired(at: now) }
            }
            for cookie in buckets[domain] ?? [] where cookie.matches(target, at: now) {
                found.append((cookie, found.count))
            }
        }
        return Cookie.inSendingOrder(found)
    }

    /// Keeps `cookie`, replacing the one of its key (whose creation date it takes). A cookie set
    /// from an insecure origin never replaces nor shadows a `Secure` cookie of the same name in
    /// its domain or a parent domain (RFC 6265bis, "leave secure cookies alone"). Past the limits,
    /// expired cookies go first, then the oldest. Returns whether `cookie` was kept.
    @discardableResult
    mutating func insert(_ cookie: Cookie, secureOrigin: Bool, limits: CookieJar.Limits, at now: Date) -> Bool {
        if !secureOrigin && shadowsSecureCookie(cookie) { return false }
        // Taken out of the dictionary while it changes, so that it is not copied each time.
        var bucket = buckets.removeValue(forKey: cookie.domain) ?? []
        defer { buckets[cookie.domain] = bucket.isEmpty ? nil : bucket }
        if let index = bucket.firstIndex(where: { $0.name == cookie.name && $0.path == cookie.path }) {
            var replacement = cookie
            replacement.createdAt = bucket[index].createdAt
            noteSecure(bucket[index], -1)
            noteSecure(replacement, 1)
            bucket[index] = replacement
            return true
        }
        bucket.append(cookie)
        count += 1
        noteSecure(cookie, 1)
        var kept = true
        if bucket.count > limits.maximumCookiesPerDomain {
            remove(from: &bucket) { $0.isExpired(at: now) }
            if bucket.count > limits.maximumCookiesPerDomain, let oldest = Self.oldestIndex(in: bucket) {
                kept = oldest != bucket.count - 1
                remove(at: oldest, from: &bucket)
            }
        }
        guard count > limits.maximumCookies else { return kept }
        buckets[cookie.domain] = bucket
        evictOldest(limit: limits.maximumCookies, at: now)
        bucket = buckets.removeValue(forKey: cookie.domain) ?? []
        return bucket.contains { $0.name == cookie.name && $0.path == cookie.path }
    }

    /// Removes the cookie of `key` and returns it; from an insecure origin, never a `Secure` one.
    @discardableResult
    mutating func remove(_ key: Cookie.Key, secureOrigin: Bool) -> Cookie? {
        guard var bucket = buckets[key.domain],
              let index = bucket.firstIndex(where: { $0.name == key.name && $0.path == key.path }),
              secureOrigin || !bucket[index].isSecure
        else { return nil }
        let removed = remove(at: index, from: &bucket)
        buckets[key.domain] = bucket.isEmpty ? nil : bucket
        return removed
    }

    /// Removes every cookie `shouldRemove` picks.
    mutating func removeAll(where shouldRemove: (Cookie) -> Bool) {
        for domain in Array(buckets.keys) { removeAll(in: domain, where: shouldRemove) }
    }

    private mutating func removeAll(in domain: String, where shouldRemove: (Cookie) -> Bool) {
        guard var bucket = buckets.removeValue(forKey: domain) else { return }
        remove(from: &bucket, where: shouldRemove)
        buckets[domain] = bucket.isEmpty ? nil : bucket
    }

    /// Removes the cookies of `bucket` that `shouldRemove` picks, keeping the counts.
    private mutating func remove(from bucket: inout [Cookie], where shouldRemove: (Cookie) -> Bool) {
        let before = bucket.count
        bucket.removeAll { cookie in
            guard shouldRemove(cookie) else { return false }
            noteSecure(cookie, -1)
            return true
        }
        count -= before - bucket.count
    }

    /// Removes the cookie at `index` of `bucket`, keeping the counts.
    @discardableResult
    private mutating func remove(at index: Int, from bucket: inout [Cookie]) -> Cookie {
        let removed = bucket.remove(at: index)
        count -= 1
        noteSecure(removed, -1)
        return removed
    }

    private mutating func noteSecure(_ cookie: Cookie, _ change: Int) {
        guard cookie.isSecure else { return }
        let total = secureNames[cookie.name, default: 0] + change
        secureNames[cookie.name] = total > 0 ? total : nil
    }

    /// Whether a `Secure` cookie named as `cookie` lives in `cookie`'s domain or a parent of it,
    /// on a path `cookie`'s path is under.
    private func shadowsSecureCookie(_ cookie: Cookie) -> Bool {
        guard secureNames[cookie.name] != nil else { return false }
        var domain = Substring(cookie.domain)
        while true {
            if let bucket = buckets[String(domain)], bucket.contains(where: {
                $0.isSecure && $0.name == cookie.name && CookieRules.pathMatches(cookie.path, $0.path)
            }) { return true }
            guard let dot = domain.firstIndex(of: ".") else { return false }
            domain = domain[domain.index(after: dot)...]
        }
    }

    /// Brings the jar down to `limit` cookies: the expired first, then the oldest.
    private mutating func evictOldest(limit: Int, at now: Date) {
        removeAll { $0.isExpired(at: now) }
        while count > limit {
            var oldest: (domain: String, index: Int, date: Date)?
            for (domain, bucket) in buckets {
                guard let index = Self.oldestIndex(in: bucket) else { continue }
                if oldest == nil || bucket[index].createdAt < oldest!.date { oldest = (domain, index, bucket[index].createdAt) }
            }
            guard let oldest, var bucket = buckets.removeValue(forKey: oldest.domain) else { return }
            remove(at: oldest.index, from: &bucket)
            buckets[oldest.domain] = bucket.isEmpty ? nil : bucket
        }
    }

    private static func oldestIndex(in bucket: [Cookie]) -> Int? {
        bucket.indices.min { bucket[$0].createdAt < bucket[$1].createdAt }
    }

    /// The buckets a request to `target` may find cookies in: its host, and each parent domain
    /// unless the host is an IP address.
    private static func domains(of target: CookieTarget) -> [String] {
        if target.hostIsIPAddress { return [target.host] }
        var domains = [target.host]
        var rest = Substring(target.host)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if !rest.isEmpty { domains.append(String(rest)) }
        }
        return domains
    }
}
