/* bucket_window.c — see bucket_window.h. */
#include "bucket_window.h"

#include <CUnit/CUnit.h>
#include <stdlib.h>

uint64_t rl_max_window_cost(const struct rl_event_log *log, uint32_t key, uint64_t w_ns)
{
    /* indices of the key's admits, in time order */
    size_t *idx = malloc((log->len ? log->len : 1) * sizeof *idx);
    CU_ASSERT_PTR_NOT_NULL_FATAL(idx);
    size_t m = 0;
    for (size_t i = 0; i < log->len; i++) {
        const struct rl_event *e = &log->events[i];
        if (i > 0)
            CU_ASSERT_FATAL(e->t_ns >= log->events[i - 1].t_ns);
        if (e->key == key && e->admitted)
            idx[m++] = i;
    }
    uint64_t best = 0, sum = 0;
    size_t left = 0;
    for (size_t right = 0; right < m; right++) {
        const struct rl_event *r = &log->events[idx[right]];
        sum += r->n;
        /* keep admits in (t_right − w, t_right], i.e. in [t_right − w + 1, t_right + 1) */
        while (r->t_ns - log->events[idx[left]].t_ns >= w_ns)
            sum -= log->events[idx[left++]].n;
        if (sum > best)
            best = sum;
    }
    free(idx);
    return best;
}
