// Loads libcurl at run time and calls it through typed wrappers. See include/CCurl.h.

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE // RTLD_DEFAULT
#endif

#include "CCurl.h"

#include <arpa/inet.h>
#include <dirent.h>
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

// The libcurl functions HotPotato uses, with their C signatures (curl_off_t is int64_t).
typedef int (*global_init_fn)(long flags);
typedef void *(*easy_init_fn)(void);
typedef void (*easy_cleanup_fn)(void *);
typedef void (*easy_reset_fn)(void *);
typedef int (*easy_perform_fn)(void *);
typedef const char *(*easy_strerror_fn)(int);
typedef int (*easy_setopt_fn)(void *, int, ...);
typedef int (*easy_getinfo_fn)(void *, int, ...);
typedef void *(*slist_append_fn)(void *, const char *);
typedef void (*slist_free_all_fn)(void *);
typedef char *(*version_fn)(void);
typedef void *(*version_info_fn)(int);
typedef int (*easy_pause_fn)(void *, int);
typedef void *(*multi_init_fn)(void);
typedef int (*multi_cleanup_fn)(void *);
typedef int (*multi_setopt_fn)(void *, int, ...);
typedef int (*multi_handle_fn)(void *, void *);
typedef int (*multi_perform_fn)(void *, int *);
typedef int (*multi_poll_fn)(void *, void *, unsigned int, int, int *);
typedef int (*multi_wakeup_fn)(void *);
typedef void *(*multi_info_read_fn)(void *, int *);

// The first members of curl_version_info_data, which every version has (age CURLVERSION_FIRST).
struct version_info_prefix {
    int age;
    const char *version;
    unsigned int version_num;
    const char *host;
    int features;
};

// struct CURLMsg: what curl_multi_info_read returns.
struct multi_message {
    int msg;
    void *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
};

#define CURLMSG_DONE 1
#define CURLVERSION_FIRST 0

static struct {
    global_init_fn global_init;
    easy_init_fn easy_init;
    easy_cleanup_fn easy_cleanup;
    easy_reset_fn easy_reset;
    easy_perform_fn easy_perform;
    easy_strerror_fn easy_strerror;
    easy_setopt_fn easy_setopt;
    easy_getinfo_fn easy_getinfo;
    slist_append_fn slist_append;
    slist_free_all_fn slist_free_all;
    version_fn version;
    version_info_fn version_info;
    easy_pause_fn easy_pause;
    multi_init_fn multi_init;
    multi_cleanup_fn multi_cleanup;
    multi_setopt_fn multi_setopt;
    multi_handle_fn multi_add_handle;
    multi_handle_fn multi_remove_handle;
    multi_perform_fn multi_perform;
    multi_poll_fn multi_poll;
    multi_wakeup_fn multi_wakeup;
    multi_info_read_fn multi_info_read;
    int multi_available;
} curl;

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
    curl.multi_available = curl.multi_init && curl.multi_cleanup && curl.multi_setopt && curl.multi_add_handle
        && curl.multi_remove_handle && curl.multi_perform && curl.multi_poll && curl.multi_wakeup
        && curl.multi_info_read;
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

// MARK: - Close-on-exec

// The descriptors open in this process, as a sorted array of `*count` numbers (free it), or NULL
// when they cannot be listed. Linux lists /proc/self/fd; elsewhere every number below the table
// size (at most 65 536) is tried with fcntl.
static int *open_descriptors(size_t *count) {
    size_t capacity = 64, used = 0;
    int *list = malloc(capacity * sizeof *list);
    if (list == NULL) return NULL;
#if defined(__linux__)
    DIR *directory = opendir("/proc/self/fd"); // glibc opens it close-on-exec
    if (directory != NULL) {
        int own = dirfd(directory);
        struct dirent *entry;
        while ((entry = readdir(directory)) != NULL) {
            if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
            int fd = atoi(entry->d_name);
            if (fd == own) continue;
            if (used == capacity) {
                int *grown = realloc(list, (capacity *= 2) * sizeof *list);
                if (grown == NULL) { closedir(directory); free(list); return NULL; }
                list = grown;
            }
            list[used++] = fd;
        }
        closedir(directory);
        // readdir lists them in order of number on procfs, but sort anyway: lookups bisect.
        for (size_t i = 1; i < used; i++) {
            int value = list[i];
            size_t j = i;
            while (j > 0 && list[j - 1] > value) { list[j] = list[j - 1]; j--; }
            list[j] = value;
        }
        *count = used;
        return list;
    }
#endif
    long limit = sysconf(_SC_OPEN_MAX);
    if (limit <= 0 || limit > 65536) limit = 65536;
    for (int fd = 0; fd < limit; fd++) {
        if (fcntl(fd, F_GETFD) == -1) continue;
        if (used == capacity) {
            int *grown = realloc(list, (capacity *= 2) * sizeof *list);
            if (grown == NULL) { free(list); return NULL; }
            list = grown;
        }
        list[used++] = fd;
    }
    *count = used;
    return list;
}

static int contains(const int *list, size_t count, int fd) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        if (list[middle] == fd) return 1;
        if (list[middle] < fd) low = middle + 1; else high = middle;
    }
    return 0;
}

// Marks close-on-exec the pipes and sockets opened since `before` was listed that are not yet:
// what libcurl opened for itself in between (a multi handle's wake-up pair), which no option
// reaches. Another thread's descriptor opened meanwhile may be marked too; only pipes and
// sockets are, and a descriptor meant for a child is made inheritable by dup2 onto 0–2 anyway.
static void mark_opened_since(const int *before, size_t before_count) {
    size_t count = 0;
    int *after = open_descriptors(&count);
    if (after == NULL) return;
    for (size_t i = 0; i < count; i++) {
        int fd = after[i];
        if (contains(before, before_count, fd)) continue;
        int flags = fcntl(fd, F_GETFD);
        if (flags == -1 || (flags & FD_CLOEXEC)) continue;
        struct stat status;
        if (fstat(fd, &status) != 0 || !(S_ISSOCK(status.st_mode) || S_ISFIFO(status.st_mode))) continue;
        fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    }
    free(after);
}

int hp_close_on_exec_connections(int port) {
    size_t count = 0;
    int *descriptors = open_descriptors(&count);
    if (descriptors == NULL) return 0;
    int marked = 0;
    for (size_t i = 0; i < count; i++) {
        int fd = descriptors[i];
        int flags = fcntl(fd, F_GETFD);
        if (flags == -1 || (flags & FD_CLOEXEC)) continue;
        struct stat status;
        if (fstat(fd, &status) != 0 || !S_ISSOCK(status.st_mode)) continue;
        struct sockaddr_storage peer;
        socklen_t length = sizeof peer;
        if (getpeername(fd, (struct sockaddr *)&peer, &length) != 0) continue;
        int peer_port = -1;
        if (peer.ss_family == AF_INET) peer_port = ntohs(((struct sockaddr_in *)&peer)->sin_port);
        if (peer.ss_family == AF_INET6) peer_port = ntohs(((struct sockaddr_in6 *)&peer)->sin6_port);
        if (peer_port != port) continue;
        if (fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == 0) marked++;
    }
    free(descriptors);
    return marked;
}

void *hp_descriptors_snapshot(void) {
    size_t count = 0;
    int *list = open_descriptors(&count);
    if (list == NULL) return NULL;
    // The count goes first, so one pointer carries both.
    int *snapshot = malloc((count + 1) * sizeof *snapshot);
    if (snapshot != NULL) {
        snapshot[0] = (int)count;
        memcpy(snapshot + 1, list, count * sizeof *list);
    }
    free(list);
    return snapshot;
}

void hp_descriptors_mark_opened_since(void *snapshot) {
    if (snapshot == NULL) return;
    int *list = snapshot;
    mark_opened_since(list + 1, (size_t)list[0]);
    free(snapshot);
}

hp_curl *hp_curl_easy_init_standalone(void) {
    if (hp_curl_load() != 0) return NULL;
    size_t count = 0;
    int *before = open_descriptors(&count);
    hp_curl *handle = curl.easy_init();
    if (handle != NULL) {
        // curl_easy_perform makes a multi handle of the easy handle's own on its first call, with
        // a wake-up socket pair that is not close-on-exec and that it keeps until the handle is
        // cleaned up (a reset keeps it). A perform without a URL makes it and fails at once
        // (CURLE_URL_MALFORMAT), sending nothing; its pair is then marked.
        curl.easy_perform(handle);
        curl.easy_reset(handle);
        if (before != NULL) mark_opened_since(before, count);
    }
    free(before);
    return handle;
}

// CURLOPT_OPENSOCKETFUNCTION: every socket libcurl connects with is made close-on-exec when it is
// made (SOCK_CLOEXEC), so no child process spawned meanwhile inherits a connection.
struct curl_sockaddr_prefix {
    int family;
    int socktype;
    int protocol;
};

static int open_socket(void *clientp, int purpose, struct curl_sockaddr_prefix *address) {
    (void)clientp;
    (void)purpose;
#if defined(SOCK_CLOEXEC)
    int fd = socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
#else
    int fd = socket(address->family, address->socktype, address->protocol);
    if (fd != -1) fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC);
#endif
    return fd; // -1 is CURL_SOCKET_BAD
}

// CURLOPT_SOCKOPTFUNCTION: a second guard, for a socket libcurl made some other way.
static int socket_options(void *clientp, int fd, int purpose) {
    (void)clientp;
    (void)purpose;
    int flags = fcntl(fd, F_GETFD);
    if (flags != -1 && !(flags & FD_CLOEXEC)) fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
    return 0; // CURL_SOCKOPT_OK
}

int hp_curl_setopt_close_on_exec(hp_curl *handle) {
    int code = curl.easy_setopt(handle, HP_CURLOPT_OPENSOCKETFUNCTION, open_socket);
    if (code == 0) code = curl.easy_setopt(handle, HP_CURLOPT_SOCKOPTFUNCTION, socket_options);
    return code;
}
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
    size_t count = 0;
    int *before = open_descriptors(&count);
    hp_curlm *multi = curl.multi_init();
    if (multi != NULL && before != NULL) mark_opened_since(before, count);
    free(before);
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
