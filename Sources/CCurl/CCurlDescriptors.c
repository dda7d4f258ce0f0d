// Descriptors libcurl opens, made close-on-exec: its connections as it makes them (an open-socket
// callback), the wake-up pairs of its multi handles once they are made, and FoundationNetworking's
// after the fact. See include/CCurl.h.

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "CCurlInternal.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

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

// Whether `fd` is one end of a wake-up pair as libcurl makes them (curl_multi_init's, 7.68 and
// later): an unnamed, connected AF_UNIX stream socket that libcurl made non-blocking.
static int is_wakeup_socket(int fd) {
    struct stat status;
    if (fstat(fd, &status) != 0 || !S_ISSOCK(status.st_mode)) return 0;
    int status_flags = fcntl(fd, F_GETFL);
    if (status_flags == -1 || !(status_flags & O_NONBLOCK)) return 0;
    int type = 0;
    socklen_t length = sizeof type;
    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM) return 0;
    struct sockaddr_storage address;
    length = sizeof address;
    if (getsockname(fd, (struct sockaddr *)&address, &length) != 0 || address.ss_family != AF_UNIX) return 0;
    if (length > sizeof(sa_family_t)) return 0; // bound to a path: not a socketpair's
    length = sizeof address;
    if (getpeername(fd, (struct sockaddr *)&address, &length) != 0) return 0;
    return 1;
}

// Marks close-on-exec the wake-up sockets opened since `before` was listed that are not yet: what
// libcurl opened for itself in between (a multi handle's wake-up pair), which no option reaches.
//
// Only such sockets are marked, never anything else another thread opened meanwhile: that one is
// not ours to change. Foundation's `Process.run()` on Linux, for one, makes a socket pair whose
// blocking end it leaves inheritable on purpose: the child holds it until it exits, and its close
// is how Foundation learns of the exit. Marked close-on-exec, it closed at the child's exec; the
// exit was "seen" at once, and Foundation's one process-watching thread waited in waitpid for a
// child that lived on (a server), after which no other child's exit was ever noticed and every
// waitUntilExit() of the process hung.
static void mark_opened_since(const int *before, size_t before_count) {
    size_t count = 0;
    int *after = open_descriptors(&count);
    if (after == NULL) return;
    for (size_t i = 0; i < count; i++) {
        int fd = after[i];
        if (contains(before, before_count, fd)) continue;
        int flags = fcntl(fd, F_GETFD);
        if (flags == -1 || (flags & FD_CLOEXEC)) continue;
        if (!is_wakeup_socket(fd)) continue;
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
