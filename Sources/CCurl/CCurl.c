// Loads libcurl at run time and calls it through typed wrappers. See include/CCurl.h.

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE // RTLD_DEFAULT
#endif

#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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
    if (load_error[0] != '\0') {
        return;
    }
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

hp_curl_slist *hp_curl_slist_append(hp_curl_slist *list, const char *string) { return curl.slist_append(list, string); }
void hp_curl_slist_free_all(hp_curl_slist *list) { curl.slist_free_all(list); }
