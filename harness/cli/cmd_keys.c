/* cmd_keys.c — `ratelab keys`: what the keyed container costs in memory,
 * per key and under key churn, for each way of expiring idle keys. */
#include "cli.h"
#include "commands.h"
#include "parse.h"
#include "harness/keyed/keyed.h"
#include "harness/sys/allocator.h"
#include "harness/sys/build_info.h"
#include "harness/sys/clock.h"
#include "harness/sys/rss.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_KEY_COUNTS 8

static void keys_help(void)
{
    printf("usage: ratelab keys --algo A [--keys 10000,100000,1000000] [--churn N]\n"
           "                    [--limit L --interval DUR] [--burst B] [--slots S]\n"
           "                    [--shards N] [--format F] [--out FILE.csv]\n\n"
           "Memory of the keyed container (4 shards per CPU, each an open-addressing table\n"
           "of per-key limiter states; one word a key for one-word algorithms such as\n"
           "gcra_cas and tb_cas), measured as resident-set growth:\n"
           "  1. per key: RSS after touching K fresh keys once, minus RSS before, ÷ K;\n"
           "  2. under churn: N intervals of virtual time; in each, 10000 new keys are\n"
           "     active (2 attempts each) and the previous ones go idle. Live keys and\n"
           "     RSS are shown at each quarter of the run for expiry never (the\n"
           "     time-wheel article's manager), lazy and sweeper; with expiry they must\n"
           "     stay flat.\n\n"
           "  --keys LIST       key counts for part 1 (default 10000,100000,1000000)\n"
           "  --churn N         intervals for part 2 (default 40; 0 skips it)\n"
           "  --shards N        shards (default 4 per CPU)\n"
           "%s\n%s",
           rl_cli_output_help, rl_cli_limiter_help);
}

/* What was measured, for the csv and json views and --out: one row per key
 * count (measure per_key), then one per expiry and quarter (churn). */
#define MAX_SAMPLES (MAX_KEY_COUNTS + 3 * 8) /* at most 7 churn samples an expiry */
struct sample {
    const char *measure; /* per_key | churn */
    const char *expiry;  /* churn */
    uint64_t keys;       /* per_key */
    double bytes_per_key;
    uint64_t intervals_done; /* churn: at this quarter */
    struct rl_keyed_stats stats;
    uint64_t rss_growth_bytes;
};

struct samples {
    const struct rl_keyed_config *cfg;
    struct rl_context ctx;
    struct sample s[MAX_SAMPLES];
    size_t count;
};

static const char *const columns[] = {
    "algo",           "measure",     "expiry",  "keys",      "bytes_per_key",
    "intervals_done", "live_keys",   "created", "expired",   "rss_growth_bytes",
    "limit",          "interval_ns", "shards",  "allocator", "host",
    "cpu_model",      "git_rev",     "date",    NULL};

static void fill(struct rl_cli_sheet *s, const void *data)
{
    const struct samples *all = data;
    for (size_t i = 0; i < all->count; i++) {
        const struct sample *x = &all->s[i];
        bool churned = strcmp(x->measure, "churn") == 0;
        rl_cli_sheet_text(s, all->cfg->algo->name);
        rl_cli_sheet_text(s, x->measure);
        rl_cli_sheet_text(s, churned ? x->expiry : NULL);
        if (churned) {
            rl_cli_sheet_empty(s);
            rl_cli_sheet_empty(s);
            rl_cli_sheet_u64(s, x->intervals_done);
            rl_cli_sheet_u64(s, x->stats.live_keys);
            rl_cli_sheet_u64(s, x->stats.created);
            rl_cli_sheet_u64(s, x->stats.expired);
        } else {
            rl_cli_sheet_u64(s, x->keys);
            rl_cli_sheet_real(s, x->bytes_per_key);
            for (int k = 0; k < 4; k++)
                rl_cli_sheet_empty(s);
        }
        rl_cli_sheet_u64(s, x->rss_growth_bytes);
        rl_cli_sheet_u64(s, all->cfg->cfg.limit);
        rl_cli_sheet_u64(s, all->cfg->cfg.interval_ns);
        if (all->cfg->shards)
            rl_cli_sheet_u64(s, all->cfg->shards);
        else
            rl_cli_sheet_empty(s); /* the default: 4 per CPU */
        rl_cli_sheet_text(s, all->ctx.allocator);
        rl_cli_sheet_text(s, all->ctx.host);
        rl_cli_sheet_text(s, all->ctx.cpu_model);
        rl_cli_sheet_text(s, all->ctx.git_rev);
        rl_cli_sheet_text(s, all->ctx.date);
    }
}

/* RSS growth from touching `count` fresh keys once. */
static uint64_t rss_growth(const struct rl_keyed_config *cfg, uint64_t count)
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
    return after > before ? after - before : 0;
}

/* Churn in virtual time: each interval a new population of `active` keys;
 * a sample at each quarter into all, and a table line when shown. */
static void churn(struct rl_keyed_config cfg, enum rl_keyed_expiry expiry, uint64_t intervals,
                  bool table, struct samples *all)
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
    if (table)
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
            uint64_t rss = rl_rss_bytes(), growth = rss > base_rss ? rss - base_rss : 0;
            if (table)
                printf(" %9llu %8.1f", (unsigned long long)stats.live_keys,
                       (double)growth / 1048576.0);
            if (all->count < MAX_SAMPLES)
                all->s[all->count++] = (struct sample){.measure = "churn",
                                                       .expiry = rl_keyed_expiry_names[expiry],
                                                       .intervals_done = i + 1,
                                                       .stats = stats,
                                                       .rss_growth_bytes = growth};
        }
    }
    struct rl_keyed_stats stats;
    rl_keyed_stats(keyed, &stats);
    if (table)
        printf("   created %llu, expired %llu\n", (unsigned long long)stats.created,
               (unsigned long long)stats.expired);
    rl_keyed_destroy(keyed);
}

/* What `keys` is asked: the options, parsed once. */
struct keys_request {
    struct rl_cli_output output;
    const char *algo_name;
    struct rl_keyed_config cfg;
    uint64_t counts[MAX_KEY_COUNTS], intervals, shards;
    size_t count_n;
};

/* The options into req; false when --help was asked (and shown). */
static bool parse_options(const char *cmd, int argc, char **argv, struct keys_request *req)
{
    static const struct option options[] = {RL_CLI_HELP_OPTION,
                                            RL_CLI_LIMITER_OPTIONS,
                                            {"algo", required_argument, NULL, OPT_ALGO},
                                            {"keys", required_argument, NULL, OPT_KEYS},
                                            {"churn", required_argument, NULL, OPT_CHURN},
                                            {"shards", required_argument, NULL, OPT_SHARDS},
                                            RL_CLI_OUTPUT_OPTIONS,
                                            {0}};
    char err[256];
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        switch (code) {
        case OPT_HELP:
            keys_help();
            return false;
        case OPT_ALGO:
            req->algo_name = optarg;
            break;
        case OPT_KEYS:
            if (rl_parse_u64_list(optarg, 1, 50000000, req->counts, MAX_KEY_COUNTS, &req->count_n,
                                  err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--keys: %s", err);
            break;
        case OPT_CHURN:
            if (rl_parse_u64(optarg, 0, 100000, &req->intervals, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--churn: %s", err);
            break;
        case OPT_SHARDS:
            if (rl_parse_u64(optarg, 1, 65536, &req->shards, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--shards: %s", err);
            break;
        default:
            if (!rl_cli_limiter_option(cmd, code, optarg, &req->cfg.cfg) &&
                !rl_cli_output_option(cmd, code, optarg, &req->output))
                rl_cli_bad_option(cmd, code, argv);
        }
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return true;
}

/* The container's configuration from the options, refused with exit 2
 * before any measurement when the algorithm or the interval cannot do. */
static void check_request(const char *cmd, struct keys_request *req)
{
    if (req->algo_name == NULL)
        rl_cli_usage_error(cmd, "--algo is required (a name from ratelab list)");
    rl_cli_output_check(cmd, &req->output);
    const struct rl_algo *algo[1];
    rl_cli_parse_algos(cmd, req->algo_name, algo, 1);
    struct rl_keyed_config *cfg = &req->cfg;
    cfg->algo = algo[0];
    cfg->shards = (unsigned)req->shards;
    cfg->cfg.epoch_ns = RL_VIRTUAL_ORIGIN_NS;
    if (cfg->cfg.interval_ns < 20000)
        rl_cli_usage_error(cmd, "--interval must be at least 20us here (10000 keys, 2 "
                                "attempts each, 1 ns apart at least)");
    char err[256];
    void *probe = cfg->algo->create(&cfg->cfg, err, sizeof err);
    if (probe == NULL)
        rl_cli_usage_error(cmd, "%s: %s", cfg->algo->name, err);
    cfg->algo->destroy(probe);
}

/* Part 1: bytes per key at each key count, into all (and the table). */
static void measure_per_key(const struct keys_request *req, bool table, struct samples *all)
{
    if (table) {
        printf("keyed %s: memory per key (RSS growth ÷ keys, %s)\n", req->cfg.algo->name,
               rl_allocator_name());
        printf("%10s %14s\n", "keys", "bytes_per_key");
    }
    for (size_t i = 0; i < req->count_n; i++) {
        uint64_t keys = req->counts[i];
        rl_cli_progress("keys: %llu keys", (unsigned long long)keys);
        uint64_t growth = rss_growth(&req->cfg, keys);
        double per_key = (double)growth / (double)keys;
        rl_cli_progress_done();
        if (table)
            printf("%10llu %14.1f\n", (unsigned long long)keys, per_key);
        all->s[all->count++] = (struct sample){.measure = "per_key",
                                               .keys = keys,
                                               .bytes_per_key = per_key,
                                               .rss_growth_bytes = growth};
    }
}

/* Part 2: churn under each way of expiring keys, into all (and the table). */
static void measure_churn(const struct keys_request *req, bool table, struct samples *all)
{
    char interval[RL_DURATION_BUF_LEN], idle[RL_DURATION_BUF_LEN];
    if (table)
        printf("\nchurn: %llu intervals of %s, 10000 new keys each, idle after %s "
               "(live keys, RSS growth MiB at each quarter)\n",
               (unsigned long long)req->intervals,
               rl_format_duration_ns(req->cfg.cfg.interval_ns, interval, sizeof interval),
               rl_format_duration_ns(rl_keyed_default_idle_ns(&req->cfg.cfg), idle, sizeof idle));
    for (int e = RL_EXPIRE_NEVER; e <= RL_EXPIRE_SWEEPER; e++)
        churn(req->cfg, (enum rl_keyed_expiry)e, req->intervals, table, all);
}

int rl_cmd_keys(int argc, char **argv)
{
    const char *cmd = "keys";
    struct keys_request req = {.output = {.format = RL_FORMAT_TABLE},
                               .counts = {10000, 100000, 1000000},
                               .count_n = 3,
                               .intervals = 40};
    rl_cli_limiter_defaults(&req.cfg.cfg);
    if (!parse_options(cmd, argc, argv, &req))
        return 0;
    check_request(cmd, &req);

    static struct samples all;
    all.cfg = &req.cfg;
    rl_context_init(&all.ctx);
    bool table = rl_cli_output_view(&req.output) == RL_FORMAT_TABLE;
    measure_per_key(&req, table, &all);
    if (req.intervals > 0)
        measure_churn(&req, table, &all);
    if (table) {
        printf("\nbytes_per_key: resident-set growth ÷ keys after touching that many fresh keys\n"
               "once (malloc's overhead and the table's free slots included).");
        if (req.intervals > 0)
            printf(" churn: expiry never\n"
                   "(the default), lazy or sweeper, as stress --expiry; each quarter of the run\n"
                   "shows the keys live, then the RSS growth in MiB since before it; created,\n"
                   "expired: per-key states made and freed over the run.");
        printf("\n");
    }
    rl_cli_write_sheet(cmd, &req.output, columns, fill, &all);
    return 0;
}
