import CCurl

/// The C callbacks given to libcurl. Each finds its ``CurlTransfer`` through the user data pointer
/// (unretained: the transfer outlives `curl_easy_perform`, and the multi handle's
/// ``CurlMultiplexer`` holds it while its handle is added).
enum CurlCallbacks {
    static let write: hp_curl_data_callback = { buffer, size, count, userdata in
        guard let buffer, let userdata else { return 0 }
        let length = size * count
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        // Returning anything but `length` (or CURL_WRITEFUNC_PAUSE) makes libcurl abort with
        // CURLE_WRITE_ERROR.
        switch transfer.receiveBody(UnsafeRawBufferPointer(start: UnsafeRawPointer(buffer), count: length)) {
        case .accepted: return length
        case .paused: return HP_CURL_WRITEFUNC_PAUSE
        case .aborted: return 0
        }
    }

    static let header: hp_curl_data_callback = { buffer, size, count, userdata in
        guard let buffer, let userdata else { return 0 }
        let length = size * count
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        return transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: UnsafeRawPointer(buffer), count: length)) ? length : 0
    }

    static let read: hp_curl_data_callback = { buffer, size, count, userdata in
        guard let buffer, let userdata else { return HP_CURL_READFUNC_ABORT }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        return transfer.readBody(into: UnsafeMutableRawBufferPointer(start: UnsafeMutableRawPointer(buffer), count: size * count))
    }

    static let seek: hp_curl_seek_callback = { userdata, offset, origin in
        // libcurl only ever seeks from the start (SEEK_SET) to rewind a body.
        guard let userdata, origin == 0 else { return Int32(HP_CURL_SEEKFUNC_CANTSEEK) }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        return transfer.seekBody(to: offset) ? Int32(HP_CURL_SEEKFUNC_OK) : Int32(HP_CURL_SEEKFUNC_CANTSEEK)
    }

    /// Called often while a transfer runs, including while it waits: a non-zero return aborts it,
    /// so a cancelled call stops promptly even when no bytes flow, and an idle one on time.
    static let progress: hp_curl_xferinfo_callback = { userdata, _, downloaded, _, uploaded in
        guard let userdata else { return 1 }
        let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
        return transfer.shouldContinue(downloaded: downloaded, uploaded: uploaded) ? 0 : 1
    }
}
