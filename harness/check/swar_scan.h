/* swar_scan.h — the eight-bytes-at-a-time number and key scanning shared by
 * the two readers that stream a log in its writers' format (event_reader.c
 * for check --promise, lin_stream.c for witness mode), so both parse at the
 * same cost and a fix lands in both. The callers keep readable slack after
 * their buffers' ends: every load here reads eight bytes without bounds. */
#ifndef RL_SWAR_SCAN_H
#define RL_SWAR_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Eight bytes at p, in memory order (the first byte lowest). */
static inline uint64_t load8(const char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

#define BYTES(b) (0x0101010101010101ull * (b))

/* Bit 7 of a byte set where it is not a digit: exact for the first such
 * byte (a borrow or carry only ever moves up from a non-digit), which is
 * all that is read. */
static inline uint64_t non_digits(uint64_t v)
{
    uint64_t d = v - BYTES('0');
    return (d | (d + BYTES(0x76))) & BYTES(0x80);
}

/* Bit 7 set at zero bytes (exact for the first), and at bytes below b. */
static inline uint64_t zero_bytes(uint64_t v)
{
    return (v - BYTES(1)) & ~v & BYTES(0x80);
}

static inline uint64_t bytes_below(uint64_t v, unsigned b)
{
    return (v - BYTES(b)) & ~v & BYTES(0x80);
}

/* The index of the first flagged byte, 8 when none. */
static inline unsigned first_flag(uint64_t flags)
{
    return flags ? (unsigned)__builtin_ctzll(flags) / 8 : 8;
}

/* The number in the first k (1–8) bytes of v, all digits: the eight-digit
 * conversion in three multiplications (after simdjson), leading zeros
 * shifted in. */
static inline uint64_t digits8(uint64_t v, unsigned k)
{
    uint64_t d = (v - BYTES('0')) << (8 * (8 - k));
    d = d * 10 + (d >> 8);
    return ((d & 0x000000FF000000FFull) * (100 + (1000000ull << 32)) +
            ((d >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32))) >>
           32;
}

static const uint64_t powers_of_ten[9] = {1,      10,      100,      1000,     10000,
                                          100000, 1000000, 10000000, 100000000};

/* The decimal number of 1–19 digits at *s, eight bytes at a time; *s moves
 * past it. false when there is no digit or more than 19. */
static inline __attribute__((always_inline)) bool parse_digits(const char **s, uint64_t *out)
{
    const char *p = *s;
    uint64_t v0 = load8(p);
    unsigned n = first_flag(non_digits(v0));
    if (n < 8) {
        if (n == 0)
            return false;
        *out = digits8(v0, n);
        *s = p + n;
        return true;
    }
    uint64_t v1 = load8(p + 8);
    uint64_t high = digits8(v0, 8);
    n = first_flag(non_digits(v1));
    if (n < 8) {
        *out = n ? high * powers_of_ten[n] + digits8(v1, n) : high;
        *s = p + 8 + n;
        return true;
    }
    uint64_t v2 = load8(p + 16);
    high = high * powers_of_ten[8] + digits8(v1, 8);
    n = first_flag(non_digits(v2));
    if (n > 3) /* at most 19 digits: all fit in 64 bits */
        return false;
    *out = n ? high * powers_of_ten[n] + digits8(v2, n) : high;
    *s = p + 16 + n;
    return true;
}

/* parse_digits for fields that are mostly one digit (a cost, a thread). */
static inline __attribute__((always_inline)) bool parse_small(const char **s, uint64_t *out)
{
    unsigned d = (unsigned)(unsigned char)(*s)[0] - '0';
    if (d <= 9 && (unsigned)(unsigned char)(*s)[1] - '0' > 9) {
        *out = d;
        *s += 1;
        return true;
    }
    return parse_digits(s, out);
}

/* Bytes that end a key or cannot be in one: the comma, bytes below 0x20
 * (the tab too, which the strict reading takes) and 0x7F. */
static inline uint64_t key_stops(uint64_t v)
{
    return zero_bytes(v ^ BYTES(',')) | bytes_below(v, 0x20) | zero_bytes(v ^ BYTES(0x7F));
}

/* The key's bytes as two words, zero-padded; 16 bytes past key are
 * readable (the buffer keeps slack after its end). */
static inline void key_words(const char *key, size_t len, uint64_t *w0, uint64_t *w1)
{
    uint64_t a, b;
    memcpy(&a, key, 8);
    memcpy(&b, key + 8, 8);
    if (len < 8) {
        a &= ((uint64_t)1 << (8 * len)) - 1;
        b = 0;
    } else if (len < 16) {
        b &= ((uint64_t)1 << (8 * (len - 8))) - 1; /* len 8: b = 0 */
    }
    *w0 = a;
    *w1 = b;
}

static inline uint64_t short_key_hash(uint64_t w0, uint64_t w1, size_t len)
{
    uint64_t h = (w0 + len) * 0x9E3779B97F4A7C15ull;
    h ^= w1 * 0xC2B2AE3D27D4EB4Full;
    h ^= h >> 29;
    return h * 0xBF58476D1CE4E5B9ull; /* the high bits pick the slot */
}

/* The key of 1–16 bytes at k, ended by a comma: its length, and its bytes
 * as two words, zero-padded; 0 when it is empty, longer than 16 bytes or
 * holds a byte key_stops flags (the callers' strict parsers judge those).
 * 16 bytes past k are readable. */
static inline unsigned scan_short_key(const char *k, uint64_t *w0, uint64_t *w1)
{
    uint64_t a = load8(k), b = load8(k + 8);
    unsigned len = first_flag(key_stops(a));
    if (len == 8)
        len = 8 + first_flag(key_stops(b));
    if (len == 0 || k[len] != ',')
        return 0;
    if (len < 8) {
        a &= ((uint64_t)1 << (8 * len)) - 1;
        b = 0;
    } else if (len < 16) {
        b &= ((uint64_t)1 << (8 * (len - 8))) - 1; /* len 8: b = 0 */
    }
    *w0 = a;
    *w1 = b;
    return len;
}

#endif
