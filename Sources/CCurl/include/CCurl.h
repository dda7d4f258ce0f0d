// CCurl: the few libcurl functions HotPotato uses, loaded at run time.
//
// No curl headers are needed to build: this header declares only what HotPotato calls, with the
// values of libcurl's public, ABI-stable constants. libcurl itself (libcurl.so.4 on Linux,
// libcurl.4.dylib on macOS — the library FoundationNetworking links on Linux) is opened with
// dlopen on first use (on Linux its symbols are looked up in the process first, where
// FoundationNetworking has normally loaded it). The variadic curl_easy_setopt and curl_easy_getinfo are called from C only,
// through the typed wrappers below.

#ifndef HOTPOTATO_CCURL_H
#define HOTPOTATO_CCURL_H

#include <stddef.h>
#include <stdint.h>

/// An easy handle (CURL *).
typedef void hp_curl;
/// A multi handle (CURLM *).
typedef void hp_curlm;
/// A string list (struct curl_slist *).
typedef void hp_curl_slist;

/// Write, header and read callbacks: size_t (*)(char *, size_t, size_t, void *).
typedef size_t (*hp_curl_data_callback)(char *buffer, size_t size, size_t count, void *userdata);
/// Seek callback: int (*)(void *, curl_off_t, int).
typedef int (*hp_curl_seek_callback)(void *userdata, int64_t offset, int origin);
/// Progress callback: int (*)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t).
typedef int (*hp_curl_xferinfo_callback)(void *userdata, int64_t dltotal, int64_t dlnow, int64_t ultotal, int64_t ulnow);

/// Loads libcurl and initialises it, once, thread-safely. Returns 0 on success; otherwise
/// hp_curl_load_error() says why.
int hp_curl_load(void);
/// Why loading failed, or NULL.
const char *hp_curl_load_error(void);
/// libcurl's version string, such as "libcurl/7.88.1 OpenSSL/3.0.15 zlib/1.2.13", or NULL.
const char *hp_curl_version(void);

/// A new easy handle, for curl_multi_add_handle.
hp_curl *hp_curl_easy_init(void);
/// A new easy handle for curl_easy_perform: the multi handle libcurl makes for it on its first
/// perform is made at once, and its wake-up descriptors are marked close-on-exec.
hp_curl *hp_curl_easy_init_standalone(void);
/// Makes every socket the handle opens close-on-exec from its creation
/// (CURLOPT_OPENSOCKETFUNCTION, with CURLOPT_SOCKOPTFUNCTION as a second guard). Set it after
/// each curl_easy_reset.
int hp_curl_setopt_close_on_exec(hp_curl *handle);
void hp_curl_easy_cleanup(hp_curl *handle);
void hp_curl_easy_reset(hp_curl *handle);
int hp_curl_easy_perform(hp_curl *handle);
const char *hp_curl_easy_strerror(int code);

int hp_curl_setopt_long(hp_curl *handle, int option, long value);
int hp_curl_setopt_off(hp_curl *handle, int option, int64_t value);
int hp_curl_setopt_pointer(hp_curl *handle, int option, const void *value);
int hp_curl_setopt_data_callback(hp_curl *handle, int option, hp_curl_data_callback callback);
int hp_curl_setopt_xferinfo_callback(hp_curl *handle, hp_curl_xferinfo_callback callback);
int hp_curl_setopt_seek_callback(hp_curl *handle, hp_curl_seek_callback callback);

int hp_curl_getinfo_long(hp_curl *handle, int info, long *value);
int hp_curl_getinfo_off(hp_curl *handle, int info, int64_t *value);
int hp_curl_getinfo_string(hp_curl *handle, int info, const char **value);
/// The TLS version (`TLSv1.3`) and cipher suite of the transfer's connection, while it has one,
/// when libcurl uses OpenSSL; 0 when `version` was set. The strings are OpenSSL's, static.
int hp_curl_tls_facts(hp_curl *handle, const char **version, const char **cipher);

hp_curl_slist *hp_curl_slist_append(hp_curl_slist *list, const char *string);
void hp_curl_slist_free_all(hp_curl_slist *list);

/// libcurl's feature bits (curl_version_info's `features`, CURL_VERSION_*), or 0 when it is not
/// loaded.
int hp_curl_features(void);
/// Pauses or resumes a transfer (curl_easy_pause); `action` is a CURLPAUSE_* value.
int hp_curl_easy_pause(hp_curl *handle, int action);

// The multi interface. Loaded apart from the rest: a libcurl without curl_multi_poll (7.66) and
// curl_multi_wakeup (7.68) still loads, and hp_curl_multi_available() then returns 0.

/// Whether every multi function the engine needs is available (1) or not (0): on Linux the
/// socket interface (curl_multi_socket_action), elsewhere curl_multi_poll and curl_multi_wakeup.
int hp_curl_multi_available(void);
// Descriptors opened by code HotPotato cannot reach with an option (libcurl inside
// FoundationNetworking), made close-on-exec after the fact.

/// Marks close-on-exec every connected TCP socket of the process whose peer port is `port` and
/// that is not close-on-exec yet. Returns how many were marked.
int hp_close_on_exec_connections(int port);
/// The descriptors open now, for hp_descriptors_mark_opened_since (which frees it); NULL when
/// they cannot be listed.
void *hp_descriptors_snapshot(void);
/// Marks close-on-exec the wake-up socket pairs (unnamed, connected, non-blocking AF_UNIX stream
/// sockets, as libcurl makes them) opened since `snapshot` was taken, and frees it. Nothing else
/// another thread opened meanwhile is touched.
void hp_descriptors_mark_opened_since(void *snapshot);

/// A new multi handle; the wake-up descriptors it opens are marked close-on-exec.
hp_curlm *hp_curl_multi_init(void);
int hp_curl_multi_cleanup(hp_curlm *multi);
int hp_curl_multi_setopt_long(hp_curlm *multi, int option, long value);
int hp_curl_multi_add_handle(hp_curlm *multi, hp_curl *handle);
int hp_curl_multi_remove_handle(hp_curlm *multi, hp_curl *handle);
int hp_curl_multi_perform(hp_curlm *multi, int *running);
/// Waits for activity, libcurl's own timeout, `timeout_ms` or a wake-up, whichever comes first
/// (curl_multi_poll without extra descriptors).
int hp_curl_multi_poll(hp_curlm *multi, int timeout_ms);
/// Makes a curl_multi_poll in progress on another thread return; callable from any thread.
int hp_curl_multi_wakeup(hp_curlm *multi);
/// Reads the next message of a finished transfer (curl_multi_info_read, CURLMSG_DONE only):
/// returns 1 and sets `handle` and `result`, or returns 0 when there is none.
int hp_curl_multi_next_done(hp_curlm *multi, hp_curl **handle, int *result);

// The engine's event loop (CCurlLoop.c): a multi handle whose transfers' sockets are all waited
// on at once — on Linux with epoll through libcurl's socket interface, elsewhere with
// curl_multi_poll. Every function but hp_loop_wake is called on the loop's own thread.

/// An event loop around one multi handle.
typedef struct hp_loop hp_loop;
/// A new loop and its multi handle (its descriptors close-on-exec), or NULL.
hp_loop *hp_loop_create(void);
/// The loop's multi handle, for adding, removing and reading transfers.
hp_curlm *hp_loop_multi(hp_loop *loop);
/// Makes a hp_loop_run_once in progress (or the next) return at once; callable from any thread.
void hp_loop_wake(hp_loop *loop);
/// Waits for socket activity, libcurl's next timeout, a wake-up, or `timeout_ms` (-1: no limit of
/// the caller's), whichever comes first, and lets libcurl act on it. Returns how many things it
/// acted on (ready sockets, a wake-up, libcurl's timeout; at least 1 where that cannot be told),
/// 0 when the wait ran out with nothing, -1 when the wait itself failed.
int hp_loop_run_once(hp_loop *loop, int timeout_ms);
/// Cleans up the multi handle (remove every easy handle first) and the loop.
void hp_loop_destroy(hp_loop *loop);
/// Names the calling thread for the system (`top -H`, debuggers; at most 15 bytes on Linux).
void hp_name_current_thread(const char *name);

// Options (CURLoption).
enum {
    HP_CURLOPT_WRITEDATA = 10001,
    HP_CURLOPT_URL = 10002,
    HP_CURLOPT_PROXY = 10004,
    HP_CURLOPT_READDATA = 10009,
    HP_CURLOPT_ERRORBUFFER = 10010,
    HP_CURLOPT_WRITEFUNCTION = 20011,
    HP_CURLOPT_READFUNCTION = 20012,
    HP_CURLOPT_LOW_SPEED_LIMIT = 19,
    HP_CURLOPT_LOW_SPEED_TIME = 20,
    HP_CURLOPT_HTTPHEADER = 10023,
    HP_CURLOPT_HEADERDATA = 10029,
    HP_CURLOPT_CUSTOMREQUEST = 10036,
    HP_CURLOPT_VERBOSE = 41,
    HP_CURLOPT_NOPROGRESS = 43,
    HP_CURLOPT_NOBODY = 44,
    HP_CURLOPT_UPLOAD = 46,
    HP_CURLOPT_FOLLOWLOCATION = 52,
    HP_CURLOPT_XFERINFODATA = 10057,
    HP_CURLOPT_SSL_VERIFYPEER = 64,
    HP_CURLOPT_CAINFO = 10065,
    HP_CURLOPT_MAXREDIRS = 68,
    HP_CURLOPT_HEADERFUNCTION = 20079,
    HP_CURLOPT_HTTPGET = 80,
    HP_CURLOPT_SSL_VERIFYHOST = 81,
    HP_CURLOPT_SSLVERSION = 32,
    HP_CURLOPT_HTTP_VERSION = 84,
    HP_CURLOPT_BUFFERSIZE = 98,
    HP_CURLOPT_NOSIGNAL = 99,
    HP_CURLOPT_ACCEPT_ENCODING = 10102,
    HP_CURLOPT_HTTP_CONTENT_DECODING = 158,
    HP_CURLOPT_INFILESIZE_LARGE = 30115,
    HP_CURLOPT_TCP_NODELAY = 121,
    HP_CURLOPT_TIMEOUT_MS = 155,
    HP_CURLOPT_CONNECTTIMEOUT_MS = 156,
    HP_CURLOPT_POSTREDIR = 161,
    HP_CURLOPT_PROXYUSERNAME = 10175,
    HP_CURLOPT_PROXYPASSWORD = 10176,
    HP_CURLOPT_SEEKFUNCTION = 20167,
    HP_CURLOPT_SEEKDATA = 10168,
    HP_CURLOPT_PROTOCOLS = 181,
    HP_CURLOPT_REDIR_PROTOCOLS = 182,
    HP_CURLOPT_TCP_KEEPALIVE = 213,
    HP_CURLOPT_XFERINFOFUNCTION = 20219,
    HP_CURLOPT_PROXY_CAINFO = 10246,
    HP_CURLOPT_PIPEWAIT = 237,
    HP_CURLOPT_SUPPRESS_CONNECT_HEADERS = 265,
    HP_CURLOPT_SOCKOPTFUNCTION = 20148,
    HP_CURLOPT_OPENSOCKETFUNCTION = 20163,
    HP_CURLOPT_PROXYHEADER = 10228,
    HP_CURLOPT_HEADEROPT = 229,
    HP_CURLOPT_MAX_RECV_SPEED_LARGE = 30146,
    HP_CURLOPT_SSLCERT = 10025,
    HP_CURLOPT_KEYPASSWD = 10026,
    HP_CURLOPT_INTERFACE = 10062,
    HP_CURLOPT_SSLCERTTYPE = 10086,
    HP_CURLOPT_SSLKEY = 10087,
    HP_CURLOPT_SSLKEYTYPE = 10088,
    HP_CURLOPT_PINNEDPUBLICKEY = 10230,
    HP_CURLOPT_UNIX_SOCKET_PATH = 10231,
    HP_CURLOPT_CONNECT_TO = 10243,
};

// CURLOPT_HEADEROPT values.
enum {
    HP_CURLHEADER_SEPARATE = 1,
};

// Multi options (CURLMoption).
enum {
    HP_CURLMOPT_PIPELINING = 3,
    HP_CURLMOPT_MAXCONNECTS = 6,
    HP_CURLMOPT_MAX_HOST_CONNECTIONS = 7,
    HP_CURLMOPT_MAX_TOTAL_CONNECTIONS = 13,
    HP_CURLMOPT_MAX_CONCURRENT_STREAMS = 16,
};

// Information (CURLINFO).
enum {
    HP_CURLINFO_EFFECTIVE_URL = 1048577,
    HP_CURLINFO_RESPONSE_CODE = 2097154,
    HP_CURLINFO_REDIRECT_COUNT = 2097172,
    HP_CURLINFO_HTTP_CONNECTCODE = 2097174,
    HP_CURLINFO_NUM_CONNECTS = 2097178,
    HP_CURLINFO_HTTP_VERSION = 2097198,
    /// CURLINFO_SIZE_UPLOAD_T (CURLINFO_OFF_T + 7): request body bytes sent.
    HP_CURLINFO_SIZE_UPLOAD_T = 6291463,
    HP_CURLINFO_SIZE_DOWNLOAD_T = 6291464,
    HP_CURLINFO_PRIMARY_IP = 1048608,
    HP_CURLINFO_PRIMARY_PORT = 2097192,
    HP_CURLINFO_LOCAL_IP = 1048617,
    HP_CURLINFO_LOCAL_PORT = 2097194,
    /// The phases, in microseconds from the start of the request (CURLINFO_*_TIME_T).
    HP_CURLINFO_TOTAL_TIME_T = 6291506,
    HP_CURLINFO_NAMELOOKUP_TIME_T = 6291507,
    HP_CURLINFO_CONNECT_TIME_T = 6291508,
    HP_CURLINFO_PRETRANSFER_TIME_T = 6291509,
    HP_CURLINFO_STARTTRANSFER_TIME_T = 6291510,
    HP_CURLINFO_APPCONNECT_TIME_T = 6291512,
};

// Result codes (CURLcode).
enum {
    HP_CURLE_OK = 0,
    HP_CURLE_UNSUPPORTED_PROTOCOL = 1,
    HP_CURLE_URL_MALFORMAT = 3,
    HP_CURLE_COULDNT_RESOLVE_PROXY = 5,
    HP_CURLE_COULDNT_RESOLVE_HOST = 6,
    HP_CURLE_WEIRD_SERVER_REPLY = 8,
    HP_CURLE_COULDNT_CONNECT = 7,
    HP_CURLE_INTERFACE_FAILED = 45,
    HP_CURLE_HTTP2 = 16,
    HP_CURLE_PARTIAL_FILE = 18,
    HP_CURLE_WRITE_ERROR = 23,
    HP_CURLE_READ_ERROR = 26,
    HP_CURLE_OUT_OF_MEMORY = 27,
    HP_CURLE_OPERATION_TIMEDOUT = 28,
    HP_CURLE_SSL_CONNECT_ERROR = 35,
    HP_CURLE_ABORTED_BY_CALLBACK = 42,
    HP_CURLE_TOO_MANY_REDIRECTS = 47,
    HP_CURLE_GOT_NOTHING = 52,
    HP_CURLE_SSL_ENGINE_NOTFOUND = 53,
    HP_CURLE_SEND_ERROR = 55,
    HP_CURLE_RECV_ERROR = 56,
    HP_CURLE_SSL_CERTPROBLEM = 58,
    HP_CURLE_SSL_CIPHER = 59,
    HP_CURLE_PEER_FAILED_VERIFICATION = 60,
    HP_CURLE_BAD_CONTENT_ENCODING = 61,
    HP_CURLE_SSL_CACERT_BADFILE = 77,
    HP_CURLE_SSL_SHUTDOWN_FAILED = 80,
    HP_CURLE_SSL_ISSUER_ERROR = 83,
    HP_CURLE_SSL_PINNEDPUBKEYNOTMATCH = 90,
    HP_CURLE_SSL_INVALIDCERTSTATUS = 91,
    HP_CURLE_HTTP2_STREAM = 92,
};

// Other constants.
enum {
    HP_CURL_ERROR_SIZE = 256,
    HP_CURLPROTO_HTTP = 1,
    HP_CURLPROTO_HTTPS = 2,
    HP_CURL_REDIR_POST_ALL = 7,
    HP_CURL_HTTP_VERSION_1_0 = 1,
    HP_CURL_HTTP_VERSION_1_1 = 2,
    HP_CURL_HTTP_VERSION_2_0 = 3,
    HP_CURL_HTTP_VERSION_2TLS = 4,
    HP_CURL_HTTP_VERSION_3 = 30,
    HP_CURL_VERSION_HTTP2 = 1 << 16,
    HP_CURLPIPE_MULTIPLEX = 2,
    HP_CURLPAUSE_CONT = 0,
    HP_CURLPAUSE_RECV = 1,
    HP_CURLPAUSE_SEND = 4,
    HP_CURLM_OK = 0,
    HP_CURL_SEEKFUNC_OK = 0,
    HP_CURL_SEEKFUNC_CANTSEEK = 2,
};

/// Returned by a read callback to abort the transfer.
#define HP_CURL_READFUNC_ABORT ((size_t)0x10000000)
/// Returned by a read callback to pause sending until curl_easy_pause resumes it.
#define HP_CURL_READFUNC_PAUSE ((size_t)0x10000001)
/// Returned by a write callback to pause the transfer; libcurl keeps the bytes it offered and
/// offers them again once the transfer is resumed (curl_easy_pause with CURLPAUSE_CONT).
#define HP_CURL_WRITEFUNC_PAUSE ((size_t)0x10000001)


// MARK: - Content decoding

/// The content codings HotPotato decodes itself (the libcurl engine hands it the bytes as they
/// came), with the system's zlib, brotli and zstd loaded at run time.
enum {
    HP_CODING_GZIP = 1,
    HP_CODING_DEFLATE = 2,
    HP_CODING_BR = 3,
    HP_CODING_ZSTD = 4,
};

enum {
    HP_DECODE_OK = 0,
    HP_DECODE_ERROR = -1,
};

typedef struct hp_decoder hp_decoder;

/// Whether `coding` can be decoded here (its library loads).
int hp_decoding_available(int coding);
/// A decoder of `coding`, or NULL when it cannot be made.
hp_decoder *hp_decoder_create(int coding);
void hp_decoder_destroy(hp_decoder *decoder);
/// Decodes from `in`: sets how many bytes it took and how many it wrote to `out`. Either may be
/// less than offered: call again with the rest (or more room). HP_DECODE_ERROR for data that is
/// not of the coding (the reason in `hp_decoder_message`).
int hp_decoder_decode(hp_decoder *decoder, const unsigned char *in, size_t in_length, size_t *consumed,
                      unsigned char *out, size_t out_capacity, size_t *produced);
/// Whether the stream has reached its end (for gzip, the end of a member; for zstd, of a frame).
int hp_decoder_ended(const hp_decoder *decoder);
const char *hp_decoder_message(const hp_decoder *decoder);

#endif
