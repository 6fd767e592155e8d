/* cmd_keys.c — `ratelab keys`: what the keyed container costs in memory,
 * per key and under key churn, for each way of expiring idle keys. */
#include "cli.h"
#include "commands.h"
#include "parse.h"
#include "harness/run/keyed.h"
#include "harness/sys/allocator.h"
#include "harness/sys/clock.h"
#include "harness/sys/rss.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_KEY_COUNTS 8

static void keys_help(void)
{
    printf("usage: ratelab keys --algo A [--keys 10000,100000,1000000] [--churn N]\n"
           "                    [--limit L --interval DUR] [--shards N]\n\n"
           "Memory of the keyed container (4 shards per CPU, each a hash table of per-key\n"
           "limiter states behind a mutex), measured as resident-set growth:\n"
           "  1. per key: RSS after touching K fresh keys once, minus RSS before, ÷ K;\n"
           "  2. under churn: N intervals of virtual time; in each, 10000 new keys are\n"
           "     active (2 attempts each) and the previous ones go idle. Live keys and\n"
           "     RSS are shown at each quarter of the run for expiry never (the\n"
           "     time-wheel article's manager), lazy and sweeper; with expiry they must\n"
           "     stay flat.\n\n"
           "  --keys LIST   key counts for part 1 (default 10000,100000,1000000)\n"
           "  --churn N     intervals for part 2 (default 40; 0 skips it)\n"
           "  --shards N    shards (default 4 per CPU)\n\n%s",
           rl_cli_limiter_help);
}

/* RSS growth from touching `count` fresh keys once. */
static double bytes_per_key(const struct rl_keyed_config *cfg, uint64_t count)
{
    rl_allocator_release();
    uint64_t before = rl_rss_bytes();
    char err[256];
    struct rl_keyed *keyed = rl_keyed_create(cfg, err, sizeof err);
    if (keyed == NULL)
        rl_cli_run_error("keys", "%s", err);
    struct rl_clock clock;
    rl_clock_init(&clock, "virtual", err, sizeof err);
    for (uint64_t key = 0; key < count; key++)
        if (rl_keyed_acquire(keyed, &clock, key, 1) == RL_ERROR)
            rl_cli_run_error("keys", "out of memory at key %llu", (unsigned long long)key);
    uint64_t after = rl_rss_bytes();
    rl_keyed_destroy(keyed);
    return after > before ? (double)(after - before) / (double)count : 0.0;
}

/* Churn in virtual time: each interval a new population of `active` keys. */
static void churn(struct rl_keyed_config cfg, enum rl_keyed_expiry expiry, uint64_t intervals)
{
    enum { ACTIVE = 10000 };
    char err[256];
    cfg.expiry = expiry;
    rl_allocator_release();
    uint64_t base_rss = rl_rss_bytes();
    struct rl_keyed *keyed = rl_keyed_create(&cfg, err, sizeof err);
    if (keyed == NULL)
        rl_cli_run_error("keys", "%s", err);
    struct rl_clock clock;
    rl_clock_init(&clock, "virtual", err, sizeof err);
    printf("%-8s", rl_keyed_expiry_names[expiry]);
    uint64_t step_ns = cfg.cfg.interval_ns / (2 * ACTIVE);
    for (uint64_t i = 0; i < intervals; i++) {
        uint64_t start = RL_VIRTUAL_ORIGIN_NS + i * cfg.cfg.interval_ns;
        for (uint64_t a = 0; a < 2 * ACTIVE; a++) {
            rl_clock_set_virtual(&clock, start + a * step_ns);
            if (rl_keyed_acquire(keyed, &clock, i * ACTIVE + a % ACTIVE, 1) == RL_ERROR)
                rl_cli_run_error("keys", "out of memory after %llu intervals",
                                 (unsigned long long)i);
        }
        if ((i + 1) % (intervals / 4 ? intervals / 4 : 1) == 0 || i + 1 == intervals) {
            struct rl_keyed_stats stats;
            rl_keyed_stats(keyed, &stats);
            uint64_t rss = rl_rss_bytes();
            printf(" %9llu %8.1f", (unsigned long long)stats.live_keys,
                   rss > base_rss ? (double)(rss - base_rss) / 1048576.0 : 0.0);
        }
    }
    struct rl_keyed_stats stats;
    rl_keyed_stats(keyed, &stats);
    printf("   created %llu, expired %llu\n", (unsigned long long)stats.created,
           (unsigned long long)stats.expired);
    rl_keyed_destroy(keyed);
}

int rl_cmd_keys(int argc, char **argv)
{
    static const struct option options[] = {RL_CLI_HELP_OPTION,
                                            RL_CLI_LIMITER_OPTIONS,
                                            {"algo", required_argument, NULL, OPT_ALGO},
                                            {"keys", required_argument, NULL, OPT_KEYS},
                                            {"churn", required_argument, NULL, OPT_CHURN},
                                            {"shards", required_argument, NULL, OPT_SHARDS},
                                            {0}};
    const char *cmd = "keys", *algo_name = NULL;
    struct rl_keyed_config cfg = {0};
    rl_cli_limiter_defaults(&cfg.cfg);
    uint64_t counts[MAX_KEY_COUNTS] = {10000, 100000, 1000000}, intervals = 40, shards = 0;
    size_t count_n = 3;
    char err[256];
    int code;
    while ((code = getopt_long(argc, argv, ":h", options, NULL)) != -1) {
        switch (code) {
        case OPT_HELP:
            keys_help();
            return 0;
        case OPT_ALGO:
            algo_name = optarg;
            break;
        case OPT_KEYS:
            if (rl_parse_u64_list(optarg, 1, 50000000, counts, MAX_KEY_COUNTS, &count_n, err,
                                  sizeof err) != 0)
                rl_cli_usage_error(cmd, "--keys: %s", err);
            break;
        case OPT_CHURN:
            if (rl_parse_u64(optarg, 0, 100000, &intervals, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--churn: %s", err);
            break;
        case OPT_SHARDS:
            if (rl_parse_u64(optarg, 1, 65536, &shards, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--shards: %s", err);
            break;
        default:
            if (!rl_cli_limiter_option(cmd, code, optarg, &cfg.cfg))
                rl_cli_bad_option(cmd, code, argv);
        }
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (algo_name == NULL)
        rl_cli_usage_error(cmd, "--algo is required (a name from ratelab list)");
    const struct rl_algo *algo[1];
    rl_cli_parse_algos(cmd, algo_name, algo, 1);
    cfg.algo = algo[0];
    cfg.shards = (unsigned)shards;
    cfg.cfg.epoch_ns = RL_VIRTUAL_ORIGIN_NS;
    if (cfg.cfg.interval_ns < 20000)
        rl_cli_usage_error(cmd, "--interval must be at least 20us here (10000 keys, 2 "
                                "attempts each, 1 ns apart at least)");
    void *probe = cfg.algo->create(&cfg.cfg, err, sizeof err);
    if (probe == NULL)
        rl_cli_usage_error(cmd, "%s: %s", cfg.algo->name, err);
    cfg.algo->destroy(probe);

    printf("keyed %s: memory per key (RSS growth ÷ keys, %s)\n", cfg.algo->name,
           rl_allocator_name());
    printf("%10s %14s\n", "keys", "bytes_per_key");
    for (size_t i = 0; i < count_n; i++) {
        rl_cli_progress("keys: %llu keys", (unsigned long long)counts[i]);
        double per_key = bytes_per_key(&cfg, counts[i]);
        rl_cli_progress_done();
        printf("%10llu %14.1f\n", (unsigned long long)counts[i], per_key);
    }
    if (intervals == 0)
        return 0;
    char interval[32], idle[32];
    printf("\nchurn: %llu intervals of %s, 10000 new keys each, idle after %s "
           "(live keys, RSS growth MiB at each quarter)\n",
           (unsigned long long)intervals,
           rl_format_duration(cfg.cfg.interval_ns, interval, sizeof interval),
           rl_format_duration(rl_keyed_default_idle_ns(&cfg.cfg), idle, sizeof idle));
    for (int e = RL_EXPIRE_NEVER; e <= RL_EXPIRE_SWEEPER; e++)
        churn(cfg, (enum rl_keyed_expiry)e, intervals);
    return 0;
}
