/* registry.c — every implementation ratelab knows, in `ratelab list` order.
 * A new algorithm is one file in algorithms/ and one line in each list. */
#include "rl.h"

#include <string.h>

extern const struct rl_algo rl_null_algo, rl_faa_algo, rl_clock_faa_algo;
extern const struct rl_algo rl_fw_plain_algo, rl_fw_atomic_naive_algo, rl_fw_cas_nofirst_algo,
    rl_fw_cas_algo, rl_fw_cas_acqrel_algo, rl_fw_mutex_algo, rl_fw_expiry_algo, rl_fw_aligned_algo;
extern const struct rl_algo rl_tb_mutex_algo, rl_tb_cas_algo, rl_tb_cas_relaxed_algo,
    rl_tb_debt_algo, rl_gcra_cas_algo, rl_leaky_nginx_algo;
extern const struct rl_algo rl_concurrency_algo;
extern const struct rl_algo rl_fw_trylock_algo, rl_sliding_log_algo, rl_sliding_log_sweeper_algo,
    rl_sliding_counter_algo, rl_freq_ctr_algo, rl_wheel_algo, rl_wheel_atomic_algo;
extern const struct rl_algo rl_redis_fixed_window_algo, rl_redis_sliding_log_algo,
    rl_redis_sliding_log_scan_algo, rl_redis_tb_article_algo, rl_redis_token_bucket_algo,
    rl_redis_token_bucket_servertime_algo, rl_redis_gcra_algo, rl_redis_sliding_counter_algo,
    rl_redis_noop_algo;

const struct rl_algo *const rl_registry[] = {
    &rl_null_algo,
    &rl_faa_algo,
    &rl_clock_faa_algo,
    &rl_fw_plain_algo,
    &rl_fw_atomic_naive_algo,
    &rl_fw_cas_nofirst_algo,
    &rl_fw_cas_algo,
    &rl_fw_cas_acqrel_algo,
    &rl_fw_mutex_algo,
    &rl_fw_expiry_algo,
    &rl_fw_trylock_algo,
    &rl_fw_aligned_algo,
    &rl_tb_mutex_algo,
    &rl_tb_cas_algo,
    &rl_tb_cas_relaxed_algo,
    &rl_gcra_cas_algo,
    &rl_tb_debt_algo,
    &rl_leaky_nginx_algo,
    &rl_sliding_log_algo,
    &rl_sliding_log_sweeper_algo,
    &rl_sliding_counter_algo,
    &rl_freq_ctr_algo,
    &rl_wheel_algo,
    &rl_wheel_atomic_algo,
    &rl_concurrency_algo,
    &rl_redis_fixed_window_algo,
    &rl_redis_sliding_log_algo,
    &rl_redis_sliding_log_scan_algo,
    &rl_redis_tb_article_algo,
    &rl_redis_token_bucket_algo,
    &rl_redis_token_bucket_servertime_algo,
    &rl_redis_gcra_algo,
    &rl_redis_sliding_counter_algo,
    &rl_redis_noop_algo,
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
    case RL_PROMISE_STRONG: return "strong";
    case RL_PROMISE_WEAK: return "weak";
    case RL_PROMISE_WINDOW: return "window";
    case RL_PROMISE_BUCKET: return "bucket";
    case RL_PROMISE_APPROX: return "approx";
    case RL_PROMISE_NONE: return "none";
    case RL_PROMISE_CONCURRENCY: return "concurrency";
    }
    return "?";
}
