/* fw_article.c — create() for the C++ article's fixed-window steps. */
#include "fw_article.h"

#include <stdint.h>
#include <stdio.h>

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
