/* key_table.h — text keys interned into dense ids (0, 1, 2, …), and the one
 * rule for what a key may hold, shared by every reader and writer of traces
 * and decision logs.
 *
 * A key is non-empty text without commas and without control bytes (below
 * 0x20 except the tab, and 0x7F): CSV fields without quoting, one line each,
 * and nothing a terminal would act on. Bytes from 0x80 up pass, so UTF-8
 * keys are fine. */
#ifndef RL_KEY_TABLE_H
#define RL_KEY_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* NULL when s[0..len) is a valid key, else what is wrong with it, as words
 * that follow "key" in a message: "is empty", "holds a comma", … */
const char *rl_key_problem(const char *s, size_t len);

/* Open addressing with linear probing, at most half full. With 10^6 keys
 * the table is far larger than the caches, so a slot carries what a lookup
 * needs (hash, length, the key's first bytes) and a short key is found with
 * one cache miss rather than three; a reader can also prefetch a key's slot
 * (rl_key_table_prefetch) a few lines before it looks the key up. */
#define RL_KEY_PREFIX 12

struct rl_key_slot {
    char prefix[RL_KEY_PREFIX]; /* the key's first bytes, zero padded */
    uint32_t hash;              /* rl_key_hash(key): picks the slot, settles most misses */
    uint32_t len;
    uint32_t id_plus1; /* 0: empty */
};

struct rl_key_table {
    struct rl_key_slot *slots;
    size_t mask;
    char **names; /* by id, NUL-terminated copies; handed over by take_names */
    uint32_t count;
    size_t names_cap;
};

#define RL_KEY_TABLE_MAX (1u << 31) /* ids fit the 32-bit hash table */

/* 0, or -1 on ENOMEM. */
int rl_key_table_init(struct rl_key_table *kt);

/* Frees the table and every name not taken. */
void rl_key_table_free(struct rl_key_table *kt);

/* FNV-1a then a murmur3 finalizer: FNV's low bits are weak for keys that
 * differ only in their last digit ("k1", "k2"), and the low bits pick the
 * slot. 32 bits are enough: the table never has more than 2^32 slots. */
static inline uint32_t rl_key_hash(const char *s, size_t len)
{
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001B3ull;
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    return (uint32_t)h;
}

static inline void rl_key_table_prefetch(const struct rl_key_table *kt, uint32_t hash)
{
    __builtin_prefetch(&kt->slots[hash & kt->mask]);
}

/* The id of s[0..len), whose rl_key_hash is hash, added when new. -1 on
 * ENOMEM, or with *too_many set past RL_KEY_TABLE_MAX keys or for a key
 * over 4 GB. The key is not checked against rl_key_problem. */
int64_t rl_key_table_intern(struct rl_key_table *kt, const char *s, size_t len, uint32_t hash,
                            bool *too_many);

/* Hands the names array (count entries) to the caller, who frees each name
 * and the array; the table keeps none. */
char **rl_key_table_take_names(struct rl_key_table *kt, uint32_t *count);

#endif
