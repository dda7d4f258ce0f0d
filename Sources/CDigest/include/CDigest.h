#ifndef CDIGEST_H
#define CDIGEST_H

#include <stddef.h>

// Message digests from the platform's audited implementation, with no package dependency:
// CommonCrypto on Apple platforms; OpenSSL's libcrypto on Linux, found in the process (libcurl
// brings it wherever it uses OpenSSL) or loaded at run time.

/// A digest in progress.
typedef struct hp_digest hp_digest;

/// The longest digest any algorithm here makes, in bytes (SHA-512's).
#define HP_DIGEST_MAX_LENGTH 64

/// Algorithms, by the numbers `hp_digest_new` takes.
enum {
    HP_DIGEST_MD5 = 1,
    HP_DIGEST_SHA1 = 2,
    HP_DIGEST_SHA256 = 3,
    HP_DIGEST_SHA512 = 4,
};

/// Why digests cannot be made here, or NULL when they can.
const char *hp_digest_unavailable_reason(void);

/// A new digest of `algorithm`, or NULL when it cannot be made.
hp_digest *hp_digest_new(int algorithm);

/// Adds `count` bytes; 0 on success.
int hp_digest_update(hp_digest *digest, const void *bytes, size_t count);

/// Writes the digest into `output` (at least HP_DIGEST_MAX_LENGTH bytes) and returns its length,
/// or -1. The digest takes no more bytes afterwards.
int hp_digest_finish(hp_digest *digest, unsigned char *output);

void hp_digest_free(hp_digest *digest);

#endif
