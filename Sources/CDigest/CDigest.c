// See include/CDigest.h.

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#include "CDigest.h"

#include <stdlib.h>
#include <string.h>

#if defined(__APPLE__)

#include <CommonCrypto/CommonDigest.h>

// MD5 and SHA-1 are deprecated as security functions; they are offered here for old mirrors'
// checksums, where they detect corruption rather than tampering.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"

struct hp_digest {
    int algorithm;
    union {
        CC_MD5_CTX md5;
        CC_SHA1_CTX sha1;
        CC_SHA256_CTX sha256;
        CC_SHA512_CTX sha512;
    } context;
};

const char *hp_digest_unavailable_reason(void) { return NULL; }

hp_digest *hp_digest_new(int algorithm) {
    hp_digest *digest = calloc(1, sizeof *digest);
    if (digest == NULL) return NULL;
    digest->algorithm = algorithm;
    switch (algorithm) {
    case HP_DIGEST_MD5: CC_MD5_Init(&digest->context.md5); break;
    case HP_DIGEST_SHA1: CC_SHA1_Init(&digest->context.sha1); break;
    case HP_DIGEST_SHA256: CC_SHA256_Init(&digest->context.sha256); break;
    case HP_DIGEST_SHA512: CC_SHA512_Init(&digest->context.sha512); break;
    default: free(digest); return NULL;
    }
    return digest;
}

int hp_digest_update(hp_digest *digest, const void *bytes, size_t count) {
    while (count > 0) {
        CC_LONG part = count > 0x40000000 ? 0x40000000 : (CC_LONG)count;
        switch (digest->algorithm) {
        case HP_DIGEST_MD5: CC_MD5_Update(&digest->context.md5, bytes, part); break;
        case HP_DIGEST_SHA1: CC_SHA1_Update(&digest->context.sha1, bytes, part); break;
        case HP_DIGEST_SHA256: CC_SHA256_Update(&digest->context.sha256, bytes, part); break;
        case HP_DIGEST_SHA512: CC_SHA512_Update(&digest->context.sha512, bytes, part); break;
        default: return -1;
        }
        bytes = (const unsigned char *)bytes + part;
        count -= part;
    }
    return 0;
}

int hp_digest_finish(hp_digest *digest, unsigned char *output) {
    switch (digest->algorithm) {
    case HP_DIGEST_MD5: CC_MD5_Final(output, &digest->context.md5); return CC_MD5_DIGEST_LENGTH;
    case HP_DIGEST_SHA1: CC_SHA1_Final(output, &digest->context.sha1); return CC_SHA1_DIGEST_LENGTH;
    case HP_DIGEST_SHA256: CC_SHA256_Final(output, &digest->context.sha256); return CC_SHA256_DIGEST_LENGTH;
    case HP_DIGEST_SHA512: CC_SHA512_Final(output, &digest->context.sha512); return CC_SHA512_DIGEST_LENGTH;
    default: return -1;
    }
}

void hp_digest_free(hp_digest *digest) { free(digest); }

#pragma clang diagnostic pop

#else

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

// libcrypto's EVP interface, found at run time: no OpenSSL headers are needed to build.
typedef void *(*md_fn)(void);
typedef void *(*ctx_new_fn)(void);
typedef void (*ctx_free_fn)(void *);
typedef int (*init_fn)(void *, const void *, void *);
typedef int (*update_fn)(void *, const void *, size_t);
typedef int (*final_fn)(void *, unsigned char *, unsigned int *);

static struct {
    md_fn md5, sha1, sha256, sha512;
    ctx_new_fn ctx_new;
    ctx_free_fn ctx_free;
    init_fn init;
    update_fn update;
    final_fn final;
} crypto;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256];
static int loaded = 0;

static const char *const library_names[] = {"libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.so", NULL};

static int find(void *library) {
    crypto.md5 = (md_fn)dlsym(library, "EVP_md5");
    crypto.sha1 = (md_fn)dlsym(library, "EVP_sha1");
    crypto.sha256 = (md_fn)dlsym(library, "EVP_sha256");
    crypto.sha512 = (md_fn)dlsym(library, "EVP_sha512");
    crypto.ctx_new = (ctx_new_fn)dlsym(library, "EVP_MD_CTX_new");
    crypto.ctx_free = (ctx_free_fn)dlsym(library, "EVP_MD_CTX_free");
    crypto.init = (init_fn)dlsym(library, "EVP_DigestInit_ex");
    crypto.update = (update_fn)dlsym(library, "EVP_DigestUpdate");
    crypto.final = (final_fn)dlsym(library, "EVP_DigestFinal_ex");
    return crypto.md5 && crypto.sha1 && crypto.sha256 && crypto.sha512 && crypto.ctx_new && crypto.ctx_free
        && crypto.init && crypto.update && crypto.final;
}

static void load(void) {
    // Already in the process wherever libcurl uses OpenSSL (FoundationNetworking links libcurl).
    if (find(RTLD_DEFAULT)) {
        loaded = 1;
        return;
    }
    for (const char *const *name = library_names; *name != NULL; name++) {
        void *library = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
        if (library != NULL && find(library)) {
            loaded = 1;
            return;
        }
    }
    snprintf(load_error, sizeof load_error,
             "no checksum implementation: OpenSSL's libcrypto (libcrypto.so.3 or .so.1.1) could not be loaded");
}

const char *hp_digest_unavailable_reason(void) {
    pthread_once(&load_once, load);
    return loaded ? NULL : load_error;
}

struct hp_digest {
    void *context;
};

hp_digest *hp_digest_new(int algorithm) {
    if (hp_digest_unavailable_reason() != NULL) return NULL;
    md_fn md = NULL;
    switch (algorithm) {
    case HP_DIGEST_MD5: md = crypto.md5; break;
    case HP_DIGEST_SHA1: md = crypto.sha1; break;
    case HP_DIGEST_SHA256: md = crypto.sha256; break;
    case HP_DIGEST_SHA512: md = crypto.sha512; break;
    default: return NULL;
    }
    const void *type = md();
    if (type == NULL) return NULL; // disabled in this build (a FIPS provider without MD5, say)
    hp_digest *digest = calloc(1, sizeof *digest);
    if (digest == NULL) return NULL;
    digest->context = crypto.ctx_new();
    if (digest->context == NULL || crypto.init(digest->context, type, NULL) != 1) {
        hp_digest_free(digest);
        return NULL;
    }
    return digest;
}

int hp_digest_update(hp_digest *digest, const void *bytes, size_t count) {
    return crypto.update(digest->context, bytes, count) == 1 ? 0 : -1;
}

int hp_digest_finish(hp_digest *digest, unsigned char *output) {
    unsigned int length = 0;
    if (crypto.final(digest->context, output, &length) != 1) return -1;
    return (int)length;
}

void hp_digest_free(hp_digest *digest) {
    if (digest == NULL) return;
    if (digest->context != NULL) crypto.ctx_free(digest->context);
    free(digest);
}

#endif
