/* registry.c — the registry: algorithms.def expanded twice, into the
 * declarations and into the NULL-terminated rl_registry in `ratelab list`
 * order. A new algorithm is one file in algorithms/ and one line in
 * algorithms.def. */
#include "rl.h"

#include <string.h>

#define RL_ALGO(name) extern const struct rl_algo rl_##name##_algo;
#include "algorithms.def"
#undef RL_ALGO

const struct rl_algo *const rl_registry[] = {
#define RL_ALGO(name) &rl_##name##_algo,
#include "algorithms.def"
#undef RL_ALGO
    NULL,
};

const struct rl_algo *rl_registry_find(const char *name)
{
    for (const struct rl_algo *const *a = rl_registry; *a; a++)
        if (strcmp((*a)->name, name) == 0)
            return *a;
    return NULL;
}

const char *rl_promise_name(enum rl_promise promise)
{
    switch (promise) {
    case RL_PROMISE_STRONG:
        return "strong";
    case RL_PROMISE_WEAK:
        return "weak";
    case RL_PROMISE_WINDOW:
        return "window";
    case RL_PROMISE_BUCKET:
        return "bucket";
    case RL_PROMISE_APPROX:
        return "approx";
    case RL_PROMISE_NONE:
        return "none";
    case RL_PROMISE_CONCURRENCY:
        return "concurrency";
    }
    return "?";
}
