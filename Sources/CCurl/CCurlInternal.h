// What CCurl's files share: libcurl's functions, looked up at run time. Not part of the module's
// interface (include/CCurl.h is).

#ifndef HOTPOTATO_CCURL_INTERNAL_H
#define HOTPOTATO_CCURL_INTERNAL_H

#include "CCurl.h"

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
typedef int (*multi_socket_action_fn)(void *, int, int, int *);

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

struct hp_curl_functions {
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
    multi_socket_action_fn multi_socket_action;
    int multi_available;
};

/// The functions of the loaded libcurl (CCurl.c fills it in, once).
extern struct hp_curl_functions curl;


#endif
