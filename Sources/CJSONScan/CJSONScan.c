// String scanning and UTF-8 checking for HotPotato's JSON parser. See include/CJSONScan.h.
//
// The UTF-8 check is the lookup method of Keiser and Lemire ("Validating UTF-8 in less than one
// instruction per byte", 2021): every byte is classified by three 16-entry tables, indexed by the
// high and low nibble of the byte before it and the high nibble of the byte itself; the three
// classes are ANDed, and a bit that survives names an error. Third and fourth bytes of a sequence
// (two continuation bytes in a row) are told apart from stray continuations by the lead two or
// three bytes back.

#include "CJSONScan.h"

#include <string.h>

// The run-time CPU check (__builtin_cpu_supports) needs the compiler runtime of clang or GCC on
// Linux or Darwin.
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__)) && !defined(_WIN32)
#define HP_SCAN_X86 1
#include <immintrin.h>
#endif

// MARK: - Escapes, and the portable scan (no UTF-8 check)

static inline int is_special(uint8_t byte) {
    return byte == '"' || byte == '\\' || byte < 0x20;
}

static inline int hex_digit(uint8_t byte) {
    if (byte >= '0' && byte <= '9') return byte - '0';
    byte |= 0x20;
    if (byte >= 'a' && byte <= 'f') return byte - 'a' + 10;
    return -1;
}

/// The four hexadecimal digits at `bytes`, or -1.
static inline int32_t hex4(const uint8_t *bytes) {
    int32_t value = 0;
    for (int index = 0; index < 4; index++) {
        int digit = hex_digit(bytes[index]);
        if (digit < 0) return -1;
        value = value << 4 | digit;
    }
    return value;
}

/// The length of the valid escape at `bytes` (a backslash; `count` bytes are readable), or 0 when
/// it is invalid or cut by the end of the bytes: left to the caller, which reports it exactly.
static size_t escape_length(const uint8_t *bytes, size_t count) {
    if (count < 2) return 0;
    switch (bytes[1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        return 2;
    case 'u': {
        if (count < 6) return 0;
        int32_t value = hex4(bytes + 2);
        if (value < 0 || (value >= 0xDC00 && value <= 0xDFFF)) return 0;
        if (value < 0xD800 || value > 0xDBFF) return 6;
        // A high surrogate: only with a low one right after it.
        if (count < 12 || bytes[6] != '\\' || bytes[7] != 'u') return 0;
        int32_t low = hex4(bytes + 8);
        return low >= 0xDC00 && low <= 0xDFFF ? 12 : 0;
    }
    default:
        return 0;
    }
}

/// Eight bytes at a time where the byte order allows, then byte by byte. Leaves UTF-8 to the caller.
static size_t scan_portable(const uint8_t *bytes, size_t count, uint32_t *flags) {
    size_t index = 0;
    uint8_t high = 0;
    for (;;) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
        while (index + 8 <= count) {
            uint64_t word;
            memcpy(&word, bytes + index, 8);
            uint64_t quote = word ^ (0x22 * ones), backslash = word ^ (0x5C * ones);
            // The lowest flag of each mask is exact (a borrow only marks bytes above a real match).
            uint64_t special = ((quote - ones) & ~quote & highs) | ((backslash - ones) & ~backslash & highs)
                | ((word - 0x20 * ones) & ~word & highs);
            if (special != 0) break;
            high |= (uint8_t)(((word & highs) != 0) << 7);
            index += 8;
        }
#endif
        while (index < count && !is_special(bytes[index])) {
            high |= bytes[index];
            index += 1;
        }
        size_t length = index < count && bytes[index] == '\\' ? escape_length(bytes + index, count - index) : 0;
        if (length == 0) break;
        *flags |= HP_JSON_SCAN_ESCAPED;
        index += length;
    }
    if (high & 0x80) *flags |= HP_JSON_SCAN_NON_ASCII | HP_JSON_SCAN_UNCHECKED;
    return index;
}

#if HP_SCAN_X86

// MARK: - SSSE3 scan and check

// Error classes of a byte pair (the byte before, the byte): a bit set in all three tables is an error.
enum {
    TOO_SHORT = 1 << 0,      // a lead not followed by a continuation byte
    TOO_LONG = 1 << 1,       // a continuation byte after ASCII
    OVERLONG_3 = 1 << 2,     // E0 followed by 80..9F
    TOO_LARGE = 1 << 3,      // F4 followed by 90..BF, or F5..FF followed by 90..BF
    SURROGATE = 1 << 4,      // ED followed by A0..BF
    OVERLONG_2 = 1 << 5,     // C0 or C1 followed by a continuation byte
    TOO_LARGE_1000 = 1 << 6, // F5..FF followed by 80..8F
    OVERLONG_4 = 1 << 6,     // F0 followed by 80..8F
    TWO_CONTINUATIONS = 1 << 7,
    CARRY = TOO_SHORT | TOO_LONG | TWO_CONTINUATIONS,
};

/// Classes by the high nibble of the byte before.
static const int8_t byte1_high[16] = {
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
    TWO_CONTINUATIONS, TWO_CONTINUATIONS, TWO_CONTINUATIONS, TWO_CONTINUATIONS,
    TOO_SHORT | OVERLONG_2,
    TOO_SHORT,
    TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
};

/// Classes by the low nibble of the byte before.
static const int8_t byte1_low[16] = {
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
    CARRY | OVERLONG_2,
    CARRY,
    CARRY,
    CARRY | TOO_LARGE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000,
};

/// Classes by the high nibble of the byte itself.
static const int8_t byte2_high[16] = {
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTINUATIONS | SURROGATE | TOO_LARGE,
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
};

/// The largest byte each of the last three positions of a block may hold when no sequence is cut
/// at its end: no four-byte lead in the third-last, no three- or four-byte lead in the second-last,
/// no lead at all in the last.
static const uint8_t last_bytes_max[16] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xEF, 0xDF, 0xBF,
};

/// Sixteen 0xFF then sixteen zeros: loaded at 16 - n, a mask of the first n bytes of a block.
static const uint8_t prefix_masks[32] = {
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
};

/// ORs into `*error` the errors of the block `input`, whose sixteen bytes before are `previous`.
__attribute__((target("ssse3"))) static inline void check_block(__m128i input, __m128i previous, __m128i *error) {
    if (_mm_movemask_epi8(input) == 0) {
        // All ASCII: only a sequence cut at the end of the block before can be wrong.
        *error = _mm_or_si128(*error, _mm_subs_epu8(previous, _mm_loadu_si128((const __m128i *)last_bytes_max)));
        return;
    }
    const __m128i low_nibble = _mm_set1_epi8(0x0F);
    __m128i previous1 = _mm_alignr_epi8(input, previous, 15);
    __m128i high1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)byte1_high),
                                     _mm_and_si128(_mm_srli_epi16(previous1, 4), low_nibble));
    __m128i low1 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)byte1_low), _mm_and_si128(previous1, low_nibble));
    __m128i high2 = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)byte2_high),
                                     _mm_and_si128(_mm_srli_epi16(input, 4), low_nibble));
    __m128i special = _mm_and_si128(_mm_and_si128(high1, low1), high2);
    // Where two continuation bytes in a row are expected: a three- or four-byte lead two bytes
    // back, or a four-byte lead three bytes back (the saturated difference has its high bit set).
    __m128i previous2 = _mm_alignr_epi8(input, previous, 14);
    __m128i previous3 = _mm_alignr_epi8(input, previous, 13);
    __m128i third = _mm_subs_epu8(previous2, _mm_set1_epi8((char)(0xE0 - 0x80)));
    __m128i fourth = _mm_subs_epu8(previous3, _mm_set1_epi8((char)(0xF0 - 0x80)));
    __m128i expected = _mm_and_si128(_mm_or_si128(third, fourth), _mm_set1_epi8((char)0x80));
    *error = _mm_or_si128(*error, _mm_xor_si128(special, expected));
}

__attribute__((target("ssse3"))) static size_t scan_ssse3(const uint8_t *bytes, size_t count, uint32_t *flags) {
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), below_space = _mm_set1_epi8(0x1F);
    const __m128i space = _mm_set1_epi8(' ');
    // The byte before the first is a quote or the end of an escape: ASCII, like these spaces.
    __m128i previous = space, error = _mm_setzero_si128();
    int high = 0;
    size_t index = 0;
    for (;;) {
        __m128i input;
        int last = count - index < 16;
        if (!last) {
            input = _mm_loadu_si128((const __m128i *)(bytes + index));
        } else {
            // Fewer than sixteen bytes left: a copy padded with spaces (neither special nor UTF-8).
            uint8_t padded[16];
            memset(padded, ' ', 16);
            memcpy(padded, bytes + index, count - index);
            input = _mm_loadu_si128((const __m128i *)padded);
        }
        __m128i special = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(input, quote), _mm_cmpeq_epi8(input, backslash)),
                                       _mm_cmpeq_epi8(_mm_min_epu8(input, below_space), input));
        unsigned mask = (unsigned)_mm_movemask_epi8(special);
        if (mask != 0) {
            unsigned stop = (unsigned)__builtin_ctz(mask);
            // Check the bytes before the stop, followed by spaces: a sequence cut by the stop fails.
            __m128i keep = _mm_loadu_si128((const __m128i *)(prefix_masks + 16 - stop));
            input = _mm_or_si128(_mm_and_si128(input, keep), _mm_andnot_si128(keep, space));
            high |= _mm_movemask_epi8(input);
            check_block(input, previous, &error);
            size_t at = index + stop;
            size_t length = bytes[at] == '\\' ? escape_length(bytes + at, count - at) : 0;
            if (length != 0) {
                // A valid escape: on after it, with ASCII before (the escape's last byte).
                *flags |= HP_JSON_SCAN_ESCAPED;
                index = at + length;
                previous = space;
                continue;
            }
            if (high) *flags |= HP_JSON_SCAN_NON_ASCII;
            if (_mm_movemask_epi8(_mm_cmpeq_epi8(error, _mm_setzero_si128())) != 0xFFFF) *flags |= HP_JSON_SCAN_UNCHECKED;
            return at;
        }
        if (last) return count;
        high |= _mm_movemask_epi8(input);
        check_block(input, previous, &error);
        previous = input;
        index += 16;
    }
}

static int has_ssse3(void) {
    static int level = -1; // -1 unknown, 0 no, 1 yes; a race only repeats the same answer
    int known = __atomic_load_n(&level, __ATOMIC_RELAXED);
    if (known < 0) {
        __builtin_cpu_init();
        known = __builtin_cpu_supports("ssse3") ? 1 : 0;
        __atomic_store_n(&level, known, __ATOMIC_RELAXED);
    }
    return known;
}

#endif

// MARK: - Entry points

size_t hp_json_scan_string_portable(const uint8_t *bytes, size_t count, uint32_t *flags) {
    return scan_portable(bytes, count, flags);
}

size_t hp_json_scan_string(const uint8_t *bytes, size_t count, uint32_t *flags) {
#if HP_SCAN_X86
    if (__builtin_expect(has_ssse3(), 1)) return scan_ssse3(bytes, count, flags);
#endif
    return scan_portable(bytes, count, flags);
}

int hp_json_scan_checks_utf8(void) {
#if HP_SCAN_X86
    return has_ssse3();
#else
    return 0;
#endif
}
