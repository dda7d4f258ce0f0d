// Loads libcurl at run time and calls it through typed wrappers. See include/CCurl.h.

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE // RTLD_DEFAULT
#endif

#include "CCurlInternal.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

struct hp_curl_functions curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

#if defined(__APPLE__)
static const char *const library_names[] = {"libcurl.4.dylib", "/usr/lib/libcurl.4.dylib", NULL};
#else
static const char *const library_names[] = {"libcurl.so.4", "libcurl-gnutls.so.4", NULL};
#endif

#define CURL_GLOBAL_ALL 3L

static void *symbol(void *library, const char *name) {
    void *address = dlsym(library, name);
    if (address == NULL && load_error[0] == '\0') {
        snprintf(load_error, sizeof load_error, "libcurl has no symbol %s", name);
    }
    return address;
}

/// The library the functions were found in (RTLD_DEFAULT when it was loaded already): the TLS
/// library's functions are looked up through it too, among its dependencies.
static void *curl_library;

static void load(void) {
    void *library = NULL;
    int opened = 0; // RTLD_DEFAULT is a null pointer on glibc
    char tried[384] = "";
#if defined(__linux__)
    // FoundationNetworking links libcurl, so in a Swift process on Linux it is normally loaded
    // already: its symbols are then found without opening it again (dlopen of a loaded library
    // still searches for it by name, about 0.4 M instructions on the first request).
    if (dlsym(RTLD_DEFAULT, "curl_easy_init") != NULL && dlsym(RTLD_DEFAULT, "curl_global_init") != NULL) {
        library = RTLD_DEFAULT;
        opened = 1;
    }
#endif
    for (const char *const *name = library_names; *name != NULL && !opened; name++) {
        library = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
        opened = library != NULL;
        if (library == NULL) {
            const char *reason = dlerror();
            size_t used = strlen(tried);
            snprintf(tried + used, sizeof tried - used, "%s%s", used ? "; " : "", reason ? reason : *name);
        }
    }
    if (!opened) {
        snprintf(load_error, sizeof load_error, "libcurl could not be opened (%s)", tried);
        return;
    }
    curl_library = library;
    curl.global_init = (global_init_fn)symbol(library, "curl_global_init");
    curl.easy_init = (easy_init_fn)symbol(library, "curl_easy_init");
    curl.easy_cleanup = (easy_cleanup_fn)symbol(library, "curl_easy_cleanup");
    curl.easy_reset = (easy_reset_fn)symbol(library, "curl_easy_reset");
    curl.easy_perform = (easy_perform_fn)symbol(library, "curl_easy_perform");
    curl.easy_strerror = (easy_strerror_fn)symbol(library, "curl_easy_strerror");
    curl.easy_setopt = (easy_setopt_fn)symbol(library, "curl_easy_setopt");
    curl.easy_getinfo = (easy_getinfo_fn)symbol(library, "curl_easy_getinfo");
    curl.slist_append = (slist_append_fn)symbol(library, "curl_slist_append");
    curl.slist_free_all = (slist_free_all_fn)symbol(library, "curl_slist_free_all");
    curl.version = (version_fn)symbol(library, "curl_version");
    curl.version_info = (version_info_fn)symbol(library, "curl_version_info");
    curl.easy_pause = (easy_pause_fn)symbol(library, "curl_easy_pause");
    if (load_error[0] != '\0') {
        return;
    }
    // Optional: without them, every transfer uses the easy interface.
    curl.multi_init = (multi_init_fn)dlsym(library, "curl_multi_init");
    curl.multi_cleanup = (multi_cleanup_fn)dlsym(library, "curl_multi_cleanup");
    curl.multi_setopt = (multi_setopt_fn)dlsym(library, "curl_multi_setopt");
    curl.multi_add_handle = (multi_handle_fn)dlsym(library, "curl_multi_add_handle");
    curl.multi_remove_handle = (multi_handle_fn)dlsym(library, "curl_multi_remove_handle");
    curl.multi_perform = (multi_perform_fn)dlsym(library, "curl_multi_perform");
    curl.multi_poll = (multi_poll_fn)dlsym(library, "curl_multi_poll");
    curl.multi_wakeup = (multi_wakeup_fn)dlsym(library, "curl_multi_wakeup");
    curl.multi_info_read = (multi_info_read_fn)dlsym(library, "curl_multi_info_read");
    curl.multi_socket_action = (multi_socket_action_fn)dlsym(library, "curl_multi_socket_action");
    curl.multi_available = curl.multi_init && curl.multi_cleanup && curl.multi_setopt && curl.multi_add_handle
        && curl.multi_remove_handle && curl.multi_info_read
#if defined(__linux__)
        && curl.multi_socket_action;
#else
        && curl.multi_perform && curl.multi_poll && curl.multi_wakeup;
#endif
    // curl_global_init is not thread-safe; pthread_once makes this the only call.
    int code = curl.global_init(CURL_GLOBAL_ALL);
    if (code != 0) {
        snprintf(load_error, sizeof load_error, "curl_global_init failed with code %d", code);
        return;
    }
    load_status = 0;
}

int hp_curl_load(void) {
    pthread_once(&load_once, load);
    return load_status;
}

const char *hp_curl_load_error(void) {
    hp_curl_load();
    return load_status == 0 ? NULL : load_error;
}

const char *hp_curl_version(void) {
    return hp_curl_load() == 0 ? curl.version() : NULL;
}

hp_curl *hp_curl_easy_init(void) { return hp_curl_load() == 0 ? curl.easy_init() : NULL; }

void hp_curl_easy_cleanup(hp_curl *handle) { curl.easy_cleanup(handle); }
void hp_curl_easy_reset(hp_curl *handle) { curl.easy_reset(handle); }
int hp_curl_easy_perform(hp_curl *handle) { return curl.easy_perform(handle); }
const char *hp_curl_easy_strerror(int code) { return hp_curl_load() == 0 ? curl.easy_strerror(code) : "libcurl is not loaded"; }

int hp_curl_setopt_long(hp_curl *handle, int option, long value) { return curl.easy_setopt(handle, option, value); }
int hp_curl_setopt_off(hp_curl *handle, int option, int64_t value) { return curl.easy_setopt(handle, option, value); }
int hp_curl_setopt_pointer(hp_curl *handle, int option, const void *value) { return curl.easy_setopt(handle, option, value); }
int hp_curl_setopt_data_callback(hp_curl *handle, int option, hp_curl_data_callback callback) {
    return curl.easy_setopt(handle, option, callback);
}
int hp_curl_setopt_xferinfo_callback(hp_curl *handle, hp_curl_xferinfo_callback callback) {
    return curl.easy_setopt(handle, HP_CURLOPT_XFERINFOFUNCTION, callback);
}

int hp_curl_setopt_seek_callback(hp_curl *handle, hp_curl_seek_callback callback) {
    return curl.easy_setopt(handle, HP_CURLOPT_SEEKFUNCTION, callback);
}

int hp_curl_getinfo_long(hp_curl *handle, int info, long *value) { return curl.easy_getinfo(handle, info, value); }
int hp_curl_getinfo_off(hp_curl *handle, int info, int64_t *value) { return curl.easy_getinfo(handle, info, value); }
int hp_curl_getinfo_string(hp_curl *handle, int info, const char **value) { return curl.easy_getinfo(handle, info, value); }

// The TLS facts of a transfer's connection, from OpenSSL's own handle (CURLINFO_TLS_SSL_PTR):
// libcurl reports no TLS version otherwise. OpenSSL's functions are found as libcurl's
// dependency, never loaded by HotPotato; with another TLS library there are no facts.
typedef const char *(*ssl_get_version_fn)(const void *ssl);
typedef const void *(*ssl_get_current_cipher_fn)(const void *ssl);
typedef const char *(*ssl_cipher_get_name_fn)(const void *cipher);
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static ssl_get_version_fn ssl_get_version;
static ssl_get_current_cipher_fn ssl_get_current_cipher;
static ssl_cipher_get_name_fn ssl_cipher_get_name;

static void load_tls(void) {
    ssl_get_version = (ssl_get_version_fn)dlsym(curl_library, "SSL_get_version");
    ssl_get_current_cipher = (ssl_get_current_cipher_fn)dlsym(curl_library, "SSL_get_current_cipher");
    ssl_cipher_get_name = (ssl_cipher_get_name_fn)dlsym(curl_library, "SSL_CIPHER_get_name");
}

#define HP_CURLINFO_TLS_SSL_PTR (0x400000 + 45)
#define HP_CURLSSLBACKEND_OPENSSL 1

struct hp_tls_session_info {
    int backend; // curl_sslbackend
    void *internals;
};

int hp_curl_tls_facts(hp_curl *handle, const char **version, const char **cipher) {
    *version = NULL;
    *cipher = NULL;
    struct hp_tls_session_info *info = NULL;
    if (curl.easy_getinfo(handle, HP_CURLINFO_TLS_SSL_PTR, &info) != 0 || info == NULL) {
        return -1;
    }
    if (info->backend != HP_CURLSSLBACKEND_OPENSSL || info->internals == NULL) {
        return -1;
    }
    pthread_once(&tls_once, load_tls);
    if (ssl_get_version == NULL) {
        return -1;
    }
    *version = ssl_get_version(info->internals);
    if (ssl_get_current_cipher != NULL && ssl_cipher_get_name != NULL) {
        const void *current = ssl_get_current_cipher(info->internals);
        if (current != NULL) {
            *cipher = ssl_cipher_get_name(current);
        }
    }
    return 0;
}

hp_curl_slist *hp_curl_slist_append(hp_curl_slist *list, const char *string) { return curl.slist_append(list, string); }
void hp_curl_slist_free_all(hp_curl_slist *list) { curl.slist_free_all(list); }

int hp_curl_features(void) {
    if (hp_curl_load() != 0) {
        return 0;
    }
    const struct version_info_prefix *info = curl.version_info(CURLVERSION_FIRST);
    return info ? info->features : 0;
}

int hp_curl_easy_pause(hp_curl *handle, int action) { return curl.easy_pause(handle, action); }

int hp_curl_multi_available(void) { return hp_curl_load() == 0 && curl.multi_available; }
hp_curlm *hp_curl_multi_init(void) {
    if (!hp_curl_multi_available()) return NULL;
    // A multi handle opens a wake-up socket pair (curl_multi_wakeup's), not close-on-exec.
    void *snapshot = hp_descriptors_snapshot();
    hp_curlm *multi = curl.multi_init();
    hp_descriptors_mark_opened_since(snapshot);
    return multi;
}
int hp_curl_multi_cleanup(hp_curlm *multi) { return curl.multi_cleanup(multi); }
int hp_curl_multi_setopt_long(hp_curlm *multi, int option, long value) { return curl.multi_setopt(multi, option, value); }
int hp_curl_multi_add_handle(hp_curlm *multi, hp_curl *handle) { return curl.multi_add_handle(multi, handle); }
int hp_curl_multi_remove_handle(hp_curlm *multi, hp_curl *handle) { return curl.multi_remove_handle(multi, handle); }
int hp_curl_multi_perform(hp_curlm *multi, int *running) { return curl.multi_perform(multi, running); }
int hp_curl_multi_poll(hp_curlm *multi, int timeout_ms) { return curl.multi_poll(multi, NULL, 0, timeout_ms, NULL); }
int hp_curl_multi_wakeup(hp_curlm *multi) { return curl.multi_wakeup(multi); }

int hp_curl_multi_next_done(hp_curlm *multi, hp_curl **handle, int *result) {
    int queued = 0;
    const struct multi_message *message;
    while ((message = curl.multi_info_read(multi, &queued)) != NULL) {
        if (message->msg == CURLMSG_DONE) {
            *handle = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}
