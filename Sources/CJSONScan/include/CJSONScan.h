// CJSONScan: the inner loop of HotPotato's JSON string scanning, vectorised where the CPU allows.
//
// One pass over a string's bytes finds the first byte that ends it or needs the caller (a quote, an
// unescaped control character, or a backslash that does not start a valid escape), steps over
// valid escapes, and on the way checks the bytes before it as strict UTF-8 (Unicode table 3-7: no overlong forms, no surrogates, nothing past
// U+10FFFF). On x86_64 with SSSE3 sixteen bytes are scanned and checked at a time; elsewhere the
// bytes are only scanned, and the caller checks any that are not ASCII itself.

#ifndef HOTPOTATO_CJSONSCAN_H
#define HOTPOTATO_CJSONSCAN_H

#include <stddef.h>
#include <stdint.h>

/// A byte above 0x7F comes before the stop.
#define HP_JSON_SCAN_NON_ASCII 1u
/// The bytes before the stop hold at least one valid escape.
#define HP_JSON_SCAN_ESCAPED 4u
/// The bytes before the stop were not shown to be valid UTF-8: they are not, or were not checked
/// (no vector unit). The caller checks them itself, which also finds where the first bad byte is.
#define HP_JSON_SCAN_UNCHECKED 2u

/// Scans `bytes[0..<count]` for the first quote ('"'), byte below 0x20, or backslash that does not
/// start a valid escape (RFC 8259: one of `"\/bfnrt`, or `u` and four hexadecimal digits, a high
/// surrogate only with a low one right after it), and returns its index, or `count` when there is
/// none. A valid escape is stepped over; one cut by the end of the bytes stops the scan. ORs
/// HP_JSON_SCAN_* bits into `*flags` for the bytes before the returned index. When the index is
/// `count`, only the index is meaningful (a sequence may be cut at the end of the bytes).
size_t hp_json_scan_string(const uint8_t *bytes, size_t count, uint32_t *flags);

/// hp_json_scan_string without a vector unit, as it runs where there is none (exposed so that
/// tests check it on every machine). It never checks UTF-8.
size_t hp_json_scan_string_portable(const uint8_t *bytes, size_t count, uint32_t *flags);

/// 1 when hp_json_scan_string checks UTF-8 itself (a vector unit was found), 0 when it only scans.
int hp_json_scan_checks_utf8(void);

#endif
