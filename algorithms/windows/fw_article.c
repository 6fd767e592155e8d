/* fw_article.c — create() for the C++ article's fixed-window steps. */
#include "fw_article.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void *fw_article_create(const struct rl_config *cfg, char *err, size_t err_len)
{
    if (cfg->interval_ns > INT64_MAX) {
        snprintf(err, err_len, "interval too large for a signed nanosecond clock");
        return NULL;
    }
    struct fw_article_state *s = rl_state_alloc(sizeof *s, err, err_len);
    if (s == NULL)
        return NULL;
    atomic_init(&s->count, UINT64_MAX);
    atomic_init(&s->timestamp_ns, 0);
    s->limit = cfg->limit;
    s->interval_ns = (int64_t)cfg->interval_ns;
    return s;
}

size_t fw_article_snapshot(const void *state, void *buf, size_t cap)
{
    const struct fw_article_state *s = state;
    uint64_t w[2] = {atomic_load(&s->count), atomic_load(&s->timestamp_ns)};
    return rl_snapshot_words(buf, cap, w, sizeof w / sizeof *w);
}

int fw_article_restore(void *state, const void *buf, size_t len)
{
    struct fw_article_state *s = state;
    uint64_t w[2];
    if (!rl_restore_words(buf, len, w, sizeof w / sizeof *w))
        return -1;
    atomic_store(&s->count, w[0]);
    atomic_store(&s->timestamp_ns, w[1]);
    return 0;
}
