// Content decoding (gzip, deflate, br, zstd) with the system's zlib, brotli and zstd, loaded at
// run time as libcurl is (libcurl itself depends on them, so they are normally in the process
// already). See include/CCurl.h, "Content decoding".

#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE // RTLD_DEFAULT
#endif

#include "include/CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// zlib's z_stream, as its ABI lays it out (zlib.h is not needed to build).
typedef struct {
    const unsigned char *next_in;
    unsigned int avail_in;
    unsigned long total_in;
    unsigned char *next_out;
    unsigned int avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc;
    void *zfree;
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} hp_z_stream;

#define HP_Z_OK 0
#define HP_Z_STREAM_END 1
#define HP_Z_NO_FLUSH 0
#define HP_Z_BUF_ERROR (-5)

typedef int (*inflate_init2_fn)(hp_z_stream *, int, const char *, int);
typedef int (*inflate_fn)(hp_z_stream *, int);
typedef int (*inflate_end_fn)(hp_z_stream *);
typedef int (*inflate_reset2_fn)(hp_z_stream *, int);

typedef void *(*brotli_create_fn)(void *, void *, void *);
typedef int (*brotli_decompress_fn)(void *, size_t *, const unsigned char **, size_t *, unsigned char **, size_t *);
typedef void (*brotli_destroy_fn)(void *);

typedef struct { void *dst; size_t size; size_t pos; } hp_zstd_out;
typedef struct { const void *src; size_t size; size_t pos; } hp_zstd_in;
typedef void *(*zstd_create_fn)(void);
typedef size_t (*zstd_init_fn)(void *);
typedef size_t (*zstd_decompress_fn)(void *, hp_zstd_out *, hp_zstd_in *);
typedef size_t (*zstd_free_fn)(void *);
typedef unsigned (*zstd_is_error_fn)(size_t);
typedef const char *(*zstd_error_name_fn)(size_t);

static struct {
    inflate_init2_fn inflate_init2;
    inflate_fn inflate;
    inflate_end_fn inflate_end;
    inflate_reset2_fn inflate_reset2;
    brotli_create_fn brotli_create;
    brotli_decompress_fn brotli_decompress;
    brotli_destroy_fn brotli_destroy;
    zstd_create_fn zstd_create;
    zstd_init_fn zstd_init;
    zstd_decompress_fn zstd_decompress;
    zstd_free_fn zstd_free;
    zstd_is_error_fn zstd_is_error;
    zstd_error_name_fn zstd_error_name;
} codecs;

static pthread_once_t codecs_once = PTHREAD_ONCE_INIT;

static void *open_library(const char *const *names, const char *probe) {
#if defined(__linux__)
    if (dlsym(RTLD_DEFAULT, probe) != NULL) return RTLD_DEFAULT;
#endif
    for (const char *const *name = names; *name != NULL; name++) {
        void *library = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
        if (library != NULL) return library;
    }
    return (void *)-1;
}

static void load_codecs(void) {
#if defined(__APPLE__)
    static const char *const zlib_names[] = {"libz.1.dylib", "/usr/lib/libz.1.dylib", NULL};
    static const char *const brotli_names[] = {"libbrotlidec.1.dylib", NULL};
    static const char *const zstd_names[] = {"libzstd.1.dylib", NULL};
#else
    static const char *const zlib_names[] = {"libz.so.1", NULL};
    static const char *const brotli_names[] = {"libbrotlidec.so.1", NULL};
    static const char *const zstd_names[] = {"libzstd.so.1", NULL};
#endif
    void *zlib = open_library(zlib_names, "inflateInit2_");
    if (zlib != (void *)-1) {
        codecs.inflate_init2 = (inflate_init2_fn)dlsym(zlib, "inflateInit2_");
        codecs.inflate = (inflate_fn)dlsym(zlib, "inflate");
        codecs.inflate_end = (inflate_end_fn)dlsym(zlib, "inflateEnd");
        codecs.inflate_reset2 = (inflate_reset2_fn)dlsym(zlib, "inflateReset2");
    }
    void *brotli = open_library(brotli_names, "BrotliDecoderDecompressStream");
    if (brotli != (void *)-1) {
        codecs.brotli_create = (brotli_create_fn)dlsym(brotli, "BrotliDecoderCreateInstance");
        codecs.brotli_decompress = (brotli_decompress_fn)dlsym(brotli, "BrotliDecoderDecompressStream");
        codecs.brotli_destroy = (brotli_destroy_fn)dlsym(brotli, "BrotliDecoderDestroyInstance");
    }
    void *zstd = open_library(zstd_names, "ZSTD_decompressStream");
    if (zstd != (void *)-1) {
        codecs.zstd_create = (zstd_create_fn)dlsym(zstd, "ZSTD_createDStream");
        codecs.zstd_init = (zstd_init_fn)dlsym(zstd, "ZSTD_initDStream");
        codecs.zstd_decompress = (zstd_decompress_fn)dlsym(zstd, "ZSTD_decompressStream");
        codecs.zstd_free = (zstd_free_fn)dlsym(zstd, "ZSTD_freeDStream");
        codecs.zstd_is_error = (zstd_is_error_fn)dlsym(zstd, "ZSTD_isError");
        codecs.zstd_error_name = (zstd_error_name_fn)dlsym(zstd, "ZSTD_getErrorName");
    }
}

int hp_decoding_available(int coding) {
    pthread_once(&codecs_once, load_codecs);
    switch (coding) {
    case HP_CODING_GZIP:
    case HP_CODING_DEFLATE:
        return codecs.inflate_init2 && codecs.inflate && codecs.inflate_end && codecs.inflate_reset2;
    case HP_CODING_BR:
        return codecs.brotli_create && codecs.brotli_decompress && codecs.brotli_destroy;
    case HP_CODING_ZSTD:
        return codecs.zstd_create && codecs.zstd_init && codecs.zstd_decompress && codecs.zstd_free && codecs.zstd_is_error
            && codecs.zstd_error_name;
    default:
        return 0;
    }
}

struct hp_decoder {
    int coding;
    /// Whether the stream has reached its end (and nothing but a next gzip member may follow).
    int ended;
    /// deflate: whether the stream is still to be told apart, zlib-wrapped or raw.
    int undecided;
    hp_z_stream z;
    void *state; // brotli's or zstd's
    char message[160];
};

hp_decoder *hp_decoder_create(int coding) {
    if (!hp_decoding_available(coding)) return NULL;
    hp_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->coding = coding;
    switch (coding) {
    case HP_CODING_GZIP:
    case HP_CODING_DEFLATE:
        // gzip: its header (16 + 15); deflate: the zlib wrapper, or raw deflate as some servers send it.
        if (codecs.inflate_init2(&decoder->z, coding == HP_CODING_GZIP ? 31 : 15, "1.2.11", (int)sizeof(hp_z_stream)) != HP_Z_OK) {
            free(decoder);
            return NULL;
        }
        decoder->undecided = coding == HP_CODING_DEFLATE;
        break;
    case HP_CODING_BR:
        decoder->state = codecs.brotli_create(NULL, NULL, NULL);
        break;
    case HP_CODING_ZSTD:
        decoder->state = codecs.zstd_create();
        if (decoder->state != NULL && codecs.zstd_is_error(codecs.zstd_init(decoder->state))) {
            codecs.zstd_free(decoder->state);
            decoder->state = NULL;
        }
        break;
    }
    if ((coding == HP_CODING_BR || coding == HP_CODING_ZSTD) && decoder->state == NULL) {
        free(decoder);
        return NULL;
    }
    return decoder;
}

void hp_decoder_destroy(hp_decoder *decoder) {
    if (decoder == NULL) return;
    switch (decoder->coding) {
    case HP_CODING_GZIP:
    case HP_CODING_DEFLATE: codecs.inflate_end(&decoder->z); break;
    case HP_CODING_BR: codecs.brotli_destroy(decoder->state); break;
    case HP_CODING_ZSTD: codecs.zstd_free(decoder->state); break;
    }
    free(decoder);
}

const char *hp_decoder_message(const hp_decoder *decoder) { return decoder->message; }

int hp_decoder_ended(const hp_decoder *decoder) { return decoder->ended; }

static int zlib_decode(hp_decoder *d, const unsigned char *in, size_t in_length, size_t *consumed, unsigned char *out,
                       size_t out_capacity, size_t *produced) {
    if (d->ended && in_length == 0) return HP_DECODE_OK;
    if (d->ended) {
        // After a gzip member, only another member may follow (RFC 1952 §2.2: gunzip reads them all).
        if (d->coding == HP_CODING_GZIP && in_length >= 1 && in[0] == 0x1f) {
            codecs.inflate_reset2(&d->z, 31);
            d->ended = 0;
        } else {
            snprintf(d->message, sizeof d->message, "%zu bytes follow the end of the %s stream", in_length,
                     d->coding == HP_CODING_GZIP ? "gzip" : "deflate");
            return HP_DECODE_ERROR;
        }
    }
    d->z.next_in = in;
    d->z.avail_in = (unsigned int)(in_length > 0x40000000 ? 0x40000000 : in_length);
    d->z.next_out = out;
    d->z.avail_out = (unsigned int)(out_capacity > 0x40000000 ? 0x40000000 : out_capacity);
    int status = codecs.inflate(&d->z, HP_Z_NO_FLUSH);
    if (status < 0 && status != HP_Z_BUF_ERROR && d->undecided && d->z.total_out == 0) {
        // Not zlib-wrapped: raw deflate, as some servers send "deflate".
        codecs.inflate_reset2(&d->z, -15);
        d->undecided = 0;
        d->z.next_in = in;
        d->z.avail_in = (unsigned int)(in_length > 0x40000000 ? 0x40000000 : in_length);
        d->z.next_out = out;
        d->z.avail_out = (unsigned int)(out_capacity > 0x40000000 ? 0x40000000 : out_capacity);
        status = codecs.inflate(&d->z, HP_Z_NO_FLUSH);
    }
    if (d->z.total_out > 0) d->undecided = 0;
    *consumed = (size_t)(d->z.next_in - in);
    *produced = (size_t)(d->z.next_out - out);
    if (status == HP_Z_STREAM_END) {
        d->ended = 1;
        return HP_DECODE_OK;
    }
    if (status == HP_Z_OK || status == HP_Z_BUF_ERROR) return HP_DECODE_OK;
    snprintf(d->message, sizeof d->message, "%s", d->z.msg ? d->z.msg : "invalid compressed data");
    return HP_DECODE_ERROR;
}

int hp_decoder_decode(hp_decoder *d, const unsigned char *in, size_t in_length, size_t *consumed, unsigned char *out,
                      size_t out_capacity, size_t *produced) {
    *consumed = 0;
    *produced = 0;
    switch (d->coding) {
    case HP_CODING_GZIP:
    case HP_CODING_DEFLATE:
        return zlib_decode(d, in, in_length, consumed, out, out_capacity, produced);
    case HP_CODING_BR: {
        if (d->ended) {
            if (in_length == 0) return HP_DECODE_OK;
            snprintf(d->message, sizeof d->message, "%zu bytes follow the end of the brotli stream", in_length);
            return HP_DECODE_ERROR;
        }
        size_t available_in = in_length, available_out = out_capacity, total = 0;
        const unsigned char *next_in = in;
        unsigned char *next_out = out;
        int result = codecs.brotli_decompress(d->state, &available_in, &next_in, &available_out, &next_out, &total);
        *consumed = in_length - available_in;
        *produced = out_capacity - available_out;
        if (result == 0) {
            snprintf(d->message, sizeof d->message, "invalid brotli data");
            return HP_DECODE_ERROR;
        }
        if (result == 1) d->ended = 1; // BROTLI_DECODER_RESULT_SUCCESS
        return HP_DECODE_OK;
    }
    case HP_CODING_ZSTD: {
        hp_zstd_in input = {in, in_length, 0};
        hp_zstd_out output = {out, out_capacity, 0};
        size_t result = codecs.zstd_decompress(d->state, &output, &input);
        *consumed = input.pos;
        *produced = output.pos;
        if (codecs.zstd_is_error(result)) {
            snprintf(d->message, sizeof d->message, "%s", codecs.zstd_error_name(result));
            return HP_DECODE_ERROR;
        }
        // 0: a frame is whole and flushed; a next frame may follow. A call that neither took nor
        // made anything (asked for more output that was not there) changes nothing.
        if (result == 0) {
            d->ended = 1;
        } else if (input.pos > 0 || output.pos > 0) {
            d->ended = 0;
        }
        return HP_DECODE_OK;
    }
    }
    return HP_DECODE_ERROR;
}
