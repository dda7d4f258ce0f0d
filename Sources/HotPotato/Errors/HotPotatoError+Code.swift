extension HotPotatoError {
    /// What went wrong, as a value to compare against (`error.code == .unacceptableStatus`).
    ///
    /// A struct with static members rather than an enum, so that new codes can be added without
    /// breaking `switch` statements in your code. Each code's documentation lists the
    /// ``HotPotatoError`` properties it fills in.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case unacceptableStatus, unacceptableContentType, missingContentType
            case malformedContentType, bodyTooLarge, emptyBody, undecodableText
            case unsupportedCharset, invalidJSON, keyPathNotFound, decodingFailed
            case conversionFailed, writeFailed, destinationExists, fileSystemError, resumeMismatch
            case destinationBusy, malformedResponse, bufferingFailed
            case handlerFailed, truncatedBody, cancelled, invalidRequest
            case connectionRefused, hostNotFound, timedOut, connectionLost
            case tlsFailure, tooManyRedirects, transportFailed, engineUnavailable
            case authenticationFailed, bodyNotReplayable, bodyFileChanged
            case checksumMismatch, checksumUnavailable, pinnedKeyMismatch
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The code's name, such as `"unacceptableStatus"`.
        public var description: String { base.rawValue }

        // MARK: Rejections at the head (they carry `errorBody`)

        /// The status code is not one the handler accepts. Sets `head` and `errorBody`.
        public static let unacceptableStatus = Code(.unacceptableStatus)
        /// The `Content-Type` is not one the handler accepts. Sets `head` and `errorBody`.
        public static let unacceptableContentType = Code(.unacceptableContentType)
        /// The handler accepts only some content types and the response has no `Content-Type`.
        /// Sets `head` and `errorBody`.
        public static let missingContentType = Code(.missingContentType)
        /// The handler accepts only some content types and the `Content-Type` does not parse.
        /// Sets `head` and `errorBody`.
        public static let malformedContentType = Code(.malformedContentType)

        // MARK: Body and content

        /// The body is larger than the handler's limit. Sets `limit` and `byteCount` (the declared
        /// `Content-Length` when it was refused at the head, otherwise the bytes received so far).
        public static let bodyTooLarge = Code(.bodyTooLarge)
        /// The body is empty and the handler cannot represent "empty" (for example ``JSONParser``
        /// with ``EmptyBodyPolicy/fail``).
        public static let emptyBody = Code(.emptyBody)
        /// The body is not valid text in its encoding. Sets `intermediate` (the raw bytes),
        /// `encoding`, and for UTF-8 `byteOffset` (the first invalid byte).
        public static let undecodableText = Code(.undecodableText)
        /// The `charset` of the `Content-Type` names an encoding HotPotato cannot decode. Sets
        /// `intermediate` (the raw bytes) and `encoding` (the label as sent).
        public static let unsupportedCharset = Code(.unsupportedCharset)
        /// The body is not valid JSON (RFC 8259), or breaks a parsing limit (nesting depth, a
        /// duplicate key under ``JSONParsingOptions/DuplicateKeyPolicy/reject``). Sets
        /// `byteOffset`, `line` and `column`, and `intermediate` (the raw bytes received so far, or
        /// the decoded text when the body was not UTF-8).
        public static let invalidJSON = Code(.invalidJSON)
        /// The JSON has no value at the requested key path. Sets `keyPath` and `intermediate`.
        public static let keyPathNotFound = Code(.keyPathNotFound)
        /// Decoding the JSON into a `Decodable` type failed. Sets `underlying` (the
        /// `DecodingError`), `keyPath` when one was given, and `intermediate`.
        public static let decodingFailed = Code(.decodingFailed)
        /// A handler's conversion of the received content failed with an error of its own. Sets
        /// `underlying` and `intermediate`.
        public static let conversionFailed = Code(.conversionFailed)

        // MARK: Writing

        /// Writing the body to its stream or file failed (no space, closed stream …). Sets
        /// `underlying` and `byteOffset` (the body offset of the chunk that failed).
        public static let writeFailed = Code(.writeFailed)
        /// A file already exists at the download destination and the handler must not replace
        /// it. Sets `path`.
        public static let destinationExists = Code(.destinationExists)
        /// A file-system operation other than writing failed: creating the temporary file or a
        /// directory, or moving the file into place. Sets `path` and `underlying`.
        public static let fileSystemError = Code(.fileSystemError)
        /// A resumable download could not continue its partial file: the server answered `206`
        /// for another range, or with another validator (`ETag` or `Last-Modified`) than the
        /// partial bytes came with, or the partial file changed under it. The partial state is
        /// discarded, so trying again starts over. Sets `head` and `path`.
        public static let resumeMismatch = Code(.resumeMismatch)
        /// Another download (in this process or another) is writing the partial file of this
        /// resumable download's destination: only one writer at a time may hold it. Nothing was
        /// changed; try again once the other download has finished. Sets `path`.
        public static let destinationBusy = Code(.destinationBusy)

        /// The downloaded file's digest is not the ``Checksum`` the download was given: the file
        /// was not placed, and a resumable download's partial file was discarded. Sets
        /// `expectedChecksum`, `actualChecksum` and `path` (the destination).
        public static let checksumMismatch = Code(.checksumMismatch)
        /// A download was given a ``Checksum`` whose algorithm has no implementation here (no
        /// OpenSSL libcrypto could be loaded on Linux): the request was not sent. The reason says
        /// why.
        public static let checksumUnavailable = Code(.checksumUnavailable)

        // MARK: Handlers and transfers

        /// A custom handler threw an error that is not a `HotPotatoError`. Sets `underlying`.
        public static let handlerFailed = Code(.handlerFailed)
        /// The body ended before its declared `Content-Length`. Sets `limit` (the declared length)
        /// and `byteCount` (the bytes received).
        public static let truncatedBody = Code(.truncatedBody)
        /// The response breaks HTTP in a way that makes its body untrustworthy: a `Content-Length`
        /// that is not a single decimal number (or repeats of one), a `206 Partial Content` that
        /// was not asked for or whose `Content-Range` is not the range asked for, more body bytes
        /// than the range announced. Sets `head`, and `byteCount`/`limit` where counts disagree.
        public static let malformedResponse = Code(.malformedResponse)
        /// Body bytes held back for a slow consumer could not be spilled to a temporary file (an
        /// unwritable or full temporary directory): the call fails rather than let memory grow
        /// past its bound. Either a slow handler fell behind the URLSession engine by more than
        /// ``Session/Configuration/memoryHighWaterMark``, or a JSON element stream's consumer
        /// fell behind the bytes it is given (the error then also carries the element index).
        /// Sets `limit` (the bound in memory), `path` (the temporary directory) and `underlying`.
        public static let bufferingFailed = Code(.bufferingFailed)
        /// The call was cancelled (`Task` cancellation or an explicit `cancel()`).
        public static let cancelled = Code(.cancelled)
        /// The request could not be made as described (a URL that is not HTTP or HTTPS, a body
        /// file that cannot be read, a redirect to a `Location` that is not an `http` or `https`
        /// URL …). Sets `underlying` where there is one, and `head` (the redirect) for a redirect.
        public static let invalidRequest = Code(.invalidRequest)
        /// The request body is a one-shot stream (an `AsyncSequence` or an `InputStream`) and would
        /// have to be sent again: a `307` or `308` redirect (or a `301` or `302` that keeps the
        /// method) asks for the same body at another URL, libcurl had to rewind the body to send it
        /// on a new connection, or the request was run again after its body was read. A one-shot
        /// body is never resent silently: the call fails. Sets `head` (the redirect) for a redirect.
        /// Send the body from `Data`, a file or a ``MultipartFormData`` to have it resent.
        public static let bodyNotReplayable = Code(.bodyNotReplayable)

        /// A file of the request body (``Request/body(fileAt:contentType:)``, a file part of a
        /// ``MultipartFormData``) became shorter while it was sent: it ended before the length
        /// announced as the body's `Content-Length`, measured when the request was sent. The call
        /// fails at once rather than send fewer bytes than announced (and wait for the server to
        /// time out). A file that grows meanwhile is sent up to the length announced, never beyond.
        /// Sets `path`, `limit` (the file's length when it was measured) and `byteCount` (where it
        /// ended).
        public static let bodyFileChanged = Code(.bodyFileChanged)

        // MARK: Transport

        /// Nothing accepted the connection at the server's address and port.
        public static let connectionRefused = Code(.connectionRefused)
        /// The host name could not be resolved.
        public static let hostNotFound = Code(.hostNotFound)
        /// The request or the connection timed out.
        public static let timedOut = Code(.timedOut)
        /// The connection was reset or closed before the response was complete.
        public static let connectionLost = Code(.connectionLost)
        /// The TLS handshake failed (untrusted or invalid certificate, protocol error, a client
        /// certificate that could not be used or that the server refused: the reason says which).
        public static let tlsFailure = Code(.tlsFailure)
        /// The server's public key matches none of the pins for its host
        /// (``Session/Configuration/publicKeyPins``): the connection was closed in the handshake,
        /// before any byte of the request was sent. The reason names the host.
        public static let pinnedKeyMismatch = Code(.pinnedKeyMismatch)
        /// The redirect limit (``Session/Configuration/redirects``) was exceeded. Sets
        /// `limit` (the maximum) and `head` (the redirect that was one too many).
        public static let tooManyRedirects = Code(.tooManyRedirects)
        /// Any other transport failure. Sets `underlying`.
        public static let transportFailed = Code(.transportFailed)
        /// The session's engine cannot run here (libcurl could not be loaded, or the platform has
        /// none). The reason says why.
        public static let engineUnavailable = Code(.engineUnavailable)
        /// A ``RequestInterceptor`` could not get credentials for the request: a
        /// ``BearerAuthenticator``'s refresh failed (every request waiting for it fails with the
        /// same error). Sets `underlying` (the refresh's error) and, when a response asked for the
        /// refresh, `head` and `errorBody` (the `401`).
        public static let authenticationFailed = Code(.authenticationFailed)

        /// Whether this code is a rejection at the head (status or content type), the errors that
        /// carry an ``ErrorBody``.
        public var isRejection: Bool {
            switch base {
            case .unacceptableStatus, .unacceptableContentType, .missingContentType,
                 .malformedContentType:
                return true
            default:
                return false
            }
        }
    }
}
