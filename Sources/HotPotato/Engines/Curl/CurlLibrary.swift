import CCurl

/// libcurl, loaded at run time on first use (see the CCurl target).
enum CurlLibrary {
    /// Why libcurl cannot be used here, or `nil` when it loaded.
    static let unavailabilityReason: String? = {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        return "libcurl is not available on this platform; use the URLSession engine"
        #else
        guard hp_curl_load() != 0 else { return nil }
        return hp_curl_load_error().map { String(cString: $0) } ?? "libcurl could not be loaded"
        #endif
    }()

    static var isAvailable: Bool { unavailabilityReason == nil }

    /// libcurl's version string, when loaded.
    static var version: String? {
        guard isAvailable, let version = hp_curl_version() else { return nil }
        return String(cString: version)
    }

    /// Whether the loaded libcurl can speak HTTP/2 (built with nghttp2: its `CURL_VERSION_HTTP2`
    /// feature bit).
    static let supportsHTTP2: Bool = isAvailable && hp_curl_features() & Int32(HP_CURL_VERSION_HTTP2) != 0

    /// Whether the loaded libcurl has the multi interface functions the multiplexed path needs
    /// (`curl_multi_poll`, 7.66, and `curl_multi_wakeup`, 7.68, among them).
    static let supportsMultiplexing: Bool = isAvailable && hp_curl_multi_available() != 0

    static func describe(_ code: Int32) -> String {
        String(cString: hp_curl_easy_strerror(code))
    }
}
