/* set_rate_option.c — parsing --set-rate's list of rate changes
 * (set_rate_option.h). */
#include "set_rate_option.h"
#include "parse.h"

#include <stdio.h>
#include <string.h>

/* One item "AT:L[/I]" (len bytes of text) into *out. */
static int parse_item(const char *text, size_t len, uint64_t interval_ns,
                      struct rl_rate_change *out, char *err, size_t err_len)
{
    char item[128], perr[192];
    if (len == 0 || len >= sizeof item) {
        snprintf(err, err_len, "'%.*s': expected AT:L or AT:L/I (2s:50, 2s:50/1s)", (int)len, text);
        return -1;
    }
    memcpy(item, text, len);
    item[len] = '\0';
    char *colon = strchr(item, ':');
    if (colon == NULL) {
        snprintf(err, err_len, "'%s': expected AT:L or AT:L/I (2s:50, 2s:50/1s)", item);
        return -1;
    }
    *colon = '\0';
    char *slash = strchr(colon + 1, '/');
    if (slash)
        *slash = '\0';
    out->interval_ns = interval_ns;
    if (rl_parse_duration_ns(item, &out->at_ns, perr, sizeof perr) != 0 ||
        rl_parse_u64(colon + 1, 1, UINT64_MAX, &out->limit, perr, sizeof perr) != 0 ||
        (slash && rl_parse_duration_ns(slash + 1, &out->interval_ns, perr, sizeof perr) != 0)) {
        snprintf(err, err_len, "'%.*s': %s", (int)len, text, perr);
        return -1;
    }
    if (out->interval_ns == 0) {
        snprintf(err, err_len, "'%.*s': the interval must be at least 1ns", (int)len, text);
        return -1;
    }
    return 0;
}

int rl_parse_set_rate(const char *text, uint64_t interval_ns, struct rl_rate_change *out,
                      size_t *count, char *err, size_t err_len)
{
    *count = 0;
    for (const char *p = text;;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (*count == RL_MAX_RATE_CHANGES) {
            snprintf(err, err_len, "at most %d rate changes", RL_MAX_RATE_CHANGES);
            return -1;
        }
        if (parse_item(p, len, interval_ns, &out[*count], err, err_len) != 0)
            return -1;
        if (*count > 0 && out[*count].at_ns <= out[*count - 1].at_ns) {
            snprintf(err, err_len, "'%.*s': times must be strictly increasing", (int)len, p);
            return -1;
        }
        ++*count;
        if (end == NULL)
            return 0;
        p = end + 1;
    }
}
