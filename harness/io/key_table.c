/* key_table.c — interning text keys, and the key rule (key_table.h). */
#include "key_table.h"

#include <stdlib.h>
#include <string.h>

const char *rl_key_problem(const char *s, size_t len)
{
    if (len == 0)
        return "is empty";
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ',')
            return "holds a comma";
        if (c == '\t')
            continue;
        if (c == '\0')
            return "holds a NUL byte";
        if (c == '\r' || c == '\n')
            return "holds a line break";
        if (c < 0x20 || c == 0x7F)
            return "holds a control byte (an escape sequence would reach the terminal)";
    }
    return NULL;
}

int rl_key_table_init(struct rl_key_table *kt)
{
    memset(kt, 0, sizeof *kt);
    kt->mask = 1023;
    kt->slots = calloc(kt->mask + 1, sizeof *kt->slots);
    return kt->slots ? 0 : -1;
}

void rl_key_table_free(struct rl_key_table *kt)
{
    for (uint32_t i = 0; kt->names && i < kt->count; i++)
        free(kt->names[i]);
    free(kt->names);
    free(kt->slots);
    memset(kt, 0, sizeof *kt);
}

char **rl_key_table_take_names(struct rl_key_table *kt, uint32_t *count)
{
    char **names = kt->names;
    *count = kt->count;
    kt->names = NULL;
    kt->count = 0;
    kt->names_cap = 0;
    return names;
}

static int grow_slots(struct rl_key_table *kt)
{
    size_t size = (kt->mask + 1) * 2;
    struct rl_key_slot *slots = calloc(size, sizeof *slots);
    if (slots == NULL)
        return -1;
    for (size_t i = 0; i <= kt->mask; i++) {
        const struct rl_key_slot *old = &kt->slots[i];
        if (old->id_plus1 == 0)
            continue;
        size_t j = old->hash & (size - 1);
        while (slots[j].id_plus1 != 0)
            j = (j + 1) & (size - 1);
        slots[j] = *old;
    }
    free(kt->slots);
    kt->slots = slots;
    kt->mask = size - 1;
    return 0;
}

int64_t rl_key_table_intern(struct rl_key_table *kt, const char *s, size_t len, uint32_t hash,
                            bool *too_many)
{
    if (len > UINT32_MAX) {
        *too_many = true;
        return -1;
    }
    char prefix[RL_KEY_PREFIX] = {0};
    memcpy(prefix, s, len < RL_KEY_PREFIX ? len : RL_KEY_PREFIX);
    size_t i = hash & kt->mask;
    for (;; i = (i + 1) & kt->mask) {
        const struct rl_key_slot *slot = &kt->slots[i];
        if (slot->id_plus1 == 0)
            break;
        if (slot->hash == hash && slot->len == len &&
            memcmp(slot->prefix, prefix, RL_KEY_PREFIX) == 0 &&
            (len <= RL_KEY_PREFIX || memcmp(kt->names[slot->id_plus1 - 1] + RL_KEY_PREFIX,
                                            s + RL_KEY_PREFIX, len - RL_KEY_PREFIX) == 0))
            return slot->id_plus1 - 1;
    }
    if (kt->count == RL_KEY_TABLE_MAX) {
        *too_many = true;
        return -1;
    }
    if (kt->count == kt->names_cap) {
        size_t cap = kt->names_cap ? kt->names_cap * 2 : 64;
        char **names = realloc(kt->names, cap * sizeof *names);
        if (names == NULL)
            return -1;
        kt->names = names;
        kt->names_cap = cap;
    }
    char *name = malloc(len + 1);
    if (name == NULL)
        return -1;
    memcpy(name, s, len);
    name[len] = '\0';
    uint32_t id = kt->count++;
    kt->names[id] = name;
    struct rl_key_slot *slot = &kt->slots[i];
    memcpy(slot->prefix, prefix, RL_KEY_PREFIX);
    slot->hash = hash;
    slot->len = (uint32_t)len;
    slot->id_plus1 = id + 1;
    if ((size_t)kt->count * 2 > kt->mask + 1 && grow_slots(kt) != 0)
        return -1;
    return id;
}
