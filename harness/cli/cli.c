/* cli.c — option handling shared by the subcommands (see cli.h). */
#include "cli.h"

#include "parse.h"
#include "harness/io/outfile.h"
#include "harness/io/same_file.h"
#include "harness/sys/redis_cluster.h"
#include "harness/run/faults.h"
#include "harness/sys/redis_server.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HELP_LIMIT    "  --limit L         admitted cost per interval (default 1000)\n"
#define HELP_INTERVAL "  --interval DUR    interval I, e.g. 100ms, 1s, 1min, 1h (default 100ms)\n"

const char rl_cli_limiter_help[] =
    "Limiter (the same (L, I) configures every algorithm):\n" HELP_LIMIT HELP_INTERVAL
    "  --burst B         bucket capacity (default L)\n"
    "  --slots S         time-wheel slots (default 10); tb_sharded's batch k;\n"
    "                    nginx_delay's delay= (default 0)\n";

const char rl_cli_trace_window_help[] =
    "The limit the workload's defaults scale with (no limiter runs):\n" HELP_LIMIT HELP_INTERVAL;

const char rl_cli_workload_help[] =
    "Workload (seeded, deterministic; defaults scale with L and I):\n"
    "  --workload W      uniform | poisson | onoff | boundary | flash | idle_burst |\n"
    "                    warm_poll (the shaping ones: docs/design.md, Modes)\n"
    "  --duration DUR    trace length (default 2s)\n"
    "  --rate R          attempts per second over all keys together, not a key's:\n"
    "                    with --keys K each key gets R/K (default 4·L per interval)\n"
    "  --rate-per-key R  attempts per second to each key: R·K in all (with --zipf, R\n"
    "                    is the mean over the keys); instead of --rate\n"
    "  --keys K          number of keys (default 1)\n"
    "  --zipf S          keys Zipf(S) over K instead of uniform\n"
    "  --cost N | A-B    cost of each attempt (default 1)\n"
    "  --seed N          random seed (default 1)\n"
    "  --on DUR --off DUR     onoff: burst and silence lengths (200ms / 800ms)\n"
    "  --size N --spread DUR  boundary: attempts each side of an edge, how close (L, I/20)\n"
    "  --at DUR --spike DUR --factor F   flash: start, length, rate multiple (1s, I, 10)\n"
    "  --on DUR --off DUR --size N   idle_burst: an opener, off idle, N at one instant,\n"
    "                    every off + on (3 I idle, 2 I on, 2 L)\n"
    "  --cancel-share F  idle_burst: this share of each burst's second half cancels its\n"
    "                    reservation at arrival (Reserve, then CancelAt(now))\n"
    "  warm_poll polls at --rate (5/6 of L per I) with max wait 0 (tryAcquire())\n"
    "An option the workload does not use is refused (boundary takes no rate).\n";

const char rl_cli_remote_help[] =
    "Redis algorithms (redis_*):\n"
    "  --redis ADDR      use this server instead of starting a private redis-server on a\n"
    "                    Unix socket (persistence off, stopped at exit): unix:PATH, or\n"
    "                    127.x.x.x:PORT, localhost:PORT, [::1]:PORT (loopback, no lookup)\n"
    "  --redis-cluster C run on a Redis Cluster instead: NxR starts a private one of N\n"
    "                    primaries with R replicas each (3x1 is the usual: 6 nodes) on\n"
    "                    free loopback ports, persistence off, node timeout 1500 ms,\n"
    "                    stopped at exit; HOST:PORT[,HOST:PORT...] joins a running one\n"
    "  --wait-replicas N after each admit, WAIT N 100 (ms) on the node that ran the\n"
    "                    script: one more round trip; fewer than N acknowledgements make\n"
    "                    the decision an error, which --on-error settles (default 0)\n"
    "  --on-error P      what the caller does when the limiter answers error (a lost\n"
    "                    connection, a server error): reject (fail-closed, default) or\n"
    "                    admit (fail-open); errors are counted either way\n";

const char rl_cli_fault_help[] =
    "  --fault SPEC      with a private --redis-cluster NxR: KIND@T[,KIND@T...] fired T\n"
    "                    into each Redis run, at the primary serving the run's last key:\n"
    "                    kill-primary (SIGKILL; its replica is elected), failover (manual\n"
    "                    CLUSTER FAILOVER: loses nothing), reshard (half its slots move),\n"
    "                    stall-replica (SIGSTOP its replica; a later kill-primary resumes\n"
    "                    it, so it is elected without the writes since). Each run is\n"
    "                    recorded, on a fresh cluster; rows add fault (its commas\n"
    "                    written +), outage_ms (fault to every slot served again) and\n"
    "                    lost_admits (admits beyond the promise, from the checker)\n";

const char rl_cli_load_help[] =
    "Every stress and replay row records the load at its run's start, from /proc/loadavg:\n"
    "load_1m, the 1-minute load average, and runnable, the threads runnable then\n"
    "(ratelab's own included). When both are above the CPUs, other work shared them:\n"
    "one warning line on stderr when it is a terminal, as progress is.\n";

const char rl_cli_exit_help[] =
    "Exit status: 0 ok, 1 a run failed or was interrupted, 2 bad usage, "
    "3 the runs finished but some decisions were errors\n";

static void vreport(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "ratelab%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void rl_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    rl_cli_progress_done();
    va_list ap;
    va_start(ap, fmt);
    vreport(cmd, fmt, ap);
    va_end(ap);
    exit(2);
}

void rl_cli_run_error(const char *cmd, const char *fmt, ...)
{
    rl_cli_progress_done();
    va_list ap;
    va_start(ap, fmt);
    vreport(cmd, fmt, ap);
    va_end(ap);
    exit(1);
}

void rl_cli_bad_option(const char *cmd, int code, char **argv)
{
    /* getopt_long is silenced (opterr = 0 in main) so that this is the only
     * line: optind has moved past the offending word. */
    const char *word = optind > 0 ? argv[optind - 1] : "?";
    if (code == ':')
        rl_cli_usage_error(cmd, "option '%s' needs a value (see ratelab %s --help)", word, cmd);
    rl_cli_usage_error(cmd, "unrecognized option '%s' (see ratelab %s --help)", word, cmd);
}

void rl_cli_limiter_defaults(struct rl_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->limit = RL_CLI_DEFAULT_LIMIT;
    cfg->interval_ns = RL_CLI_DEFAULT_INTERVAL_NS;
}

static uint64_t need_duration(const char *cmd, const char *option, const char *arg, bool positive)
{
    char err[256];
    uint64_t ns;
    if (rl_parse_duration_ns(arg, &ns, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "--%s: %s", option, err);
    if (positive && ns == 0)
        rl_cli_usage_error(cmd, "--%s must be greater than zero, not '%s'", option, arg);
    return ns;
}

static uint64_t need_u64(const char *cmd, const char *option, const char *arg, uint64_t min,
                         uint64_t max)
{
    char err[256];
    uint64_t value;
    if (rl_parse_u64(arg, min, max, &value, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "--%s: %s", option, err);
    return value;
}

static double need_double(const char *cmd, const char *option, const char *arg)
{
    char err[256];
    double value;
    if (rl_parse_double(arg, 0.0, &value, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "--%s: %s", option, err);
    return value;
}

bool rl_cli_limiter_option(const char *cmd, int code, const char *arg, struct rl_config *cfg)
{
    switch (code) {
    case OPT_LIMIT:
        cfg->limit = need_u64(cmd, "limit", arg, 1, UINT32_MAX);
        return true;
    case OPT_INTERVAL:
        cfg->interval_ns = need_duration(cmd, "interval", arg, true);
        return true;
    case OPT_BURST:
        cfg->burst = need_u64(cmd, "burst", arg, 1, UINT32_MAX);
        return true;
    case OPT_SLOTS:
        cfg->slots = (uint32_t)need_u64(cmd, "slots", arg, 1, 1u << 20);
        return true;
    case OPT_WAIT_REPLICAS: /* process-wide: every Redis limiter of the run */
        rl_remote_set_wait_replicas((unsigned)need_u64(cmd, "wait-replicas", arg, 0, 64));
        return true;
    }
    return false;
}

enum {
    SET_DURATION = 1 << 0,
    SET_RATE = 1 << 1,
    SET_KEYS = 1 << 2,
    SET_ZIPF = 1 << 3,
    SET_COST = 1 << 4,
    SET_SEED = 1 << 5,
    SET_ON = 1 << 6,
    SET_OFF = 1 << 7,
    SET_SIZE = 1 << 8,
    SET_SPREAD = 1 << 9,
    SET_AT = 1 << 10,
    SET_SPIKE = 1 << 11,
    SET_FACTOR = 1 << 12,
    SET_RATE_PER_KEY = 1 << 13,
    SET_CANCEL_SHARE = 1 << 14,
};

/* The options only some workloads use, with the workloads that use them;
 * the others (--duration, --keys, --zipf, --cost, --seed) shape every one. */
static const struct {
    unsigned bit;
    const char *option;
    const char *workloads; /* " name name " */
} workload_only[] = {
    {SET_RATE, "--rate", " uniform poisson onoff flash warm_poll "},
    {SET_RATE_PER_KEY, "--rate-per-key", " uniform poisson onoff flash warm_poll "},
    {SET_ON, "--on", " onoff idle_burst "},
    {SET_OFF, "--off", " onoff idle_burst "},
    {SET_SIZE, "--size", " boundary idle_burst "},
    {SET_CANCEL_SHARE, "--cancel-share", " idle_burst "},
    {SET_SPREAD, "--spread", " boundary "},
    {SET_AT, "--at", " flash "},
    {SET_SPIKE, "--spike", " flash "},
    {SET_FACTOR, "--factor", " flash "},
};

static bool workload_uses(size_t option, const char *name)
{
    char word[32];
    snprintf(word, sizeof word, " %s ", name);
    return strstr(workload_only[option].workloads, word) != NULL;
}

/* Exits 2 naming the first option given that the workload does not use,
 * and the options it does take, so that nothing is silently ignored. */
static void refuse_unused_options(const char *cmd, const struct rl_cli_workload *w)
{
    const char *name = w->given.name;
    for (size_t i = 0; i < sizeof workload_only / sizeof workload_only[0]; i++) {
        if (!(w->set & workload_only[i].bit) || workload_uses(i, name))
            continue;
        char takes[96] = "";
        size_t used = 0;
        for (size_t j = 0; j < sizeof workload_only / sizeof workload_only[0]; j++)
            if (workload_uses(j, name) && used < sizeof takes)
                used += (size_t)snprintf(takes + used, sizeof takes - used, "%s%s",
                                         used ? ", " : "", workload_only[j].option);
        rl_cli_usage_error(cmd, "%s does nothing with --workload %s (which takes %s): leave it out",
                           workload_only[i].option, name, takes);
    }
}

static void parse_cost(const char *cmd, const char *arg, struct rl_workload_params *p)
{
    char first[32];
    const char *dash = strchr(arg, '-');
    size_t len = dash ? (size_t)(dash - arg) : strlen(arg);
    if (len == 0 || len >= sizeof first)
        rl_cli_usage_error(cmd, "--cost: '%s' is not N or A-B with 1 ≤ A ≤ B", arg);
    memcpy(first, arg, len);
    first[len] = '\0';
    p->cost_min = (uint32_t)need_u64(cmd, "cost", first, 1, UINT32_MAX);
    p->cost_max = dash ? (uint32_t)need_u64(cmd, "cost", dash + 1, 1, UINT32_MAX) : p->cost_min;
    if (p->cost_max < p->cost_min)
        rl_cli_usage_error(cmd, "--cost: '%s' is not N or A-B with 1 ≤ A ≤ B", arg);
}

bool rl_cli_workload_option(const char *cmd, int code, const char *arg, struct rl_cli_workload *w)
{
    struct rl_workload_params *p = &w->given;
    switch (code) {
    case OPT_WORKLOAD:
        for (const char *const *name = rl_workload_names; *name; name++)
            if (strcmp(*name, arg) == 0) {
                p->name = *name;
                w->named = true;
                return true;
            }
        rl_cli_usage_error(cmd,
                           "unknown workload '%s' (accepted: uniform, poisson, onoff, boundary, "
                           "flash, idle_burst, warm_poll)",
                           arg);
    case OPT_DURATION:
        p->duration_ns = need_duration(cmd, "duration", arg, true);
        w->set |= SET_DURATION;
        return true;
    case OPT_RATE:
    case OPT_RATE_PER_KEY:
        /* One of the two: a total and a per-key rate would contradict each other. */
        if (w->set & (SET_RATE | SET_RATE_PER_KEY))
            rl_cli_usage_error(cmd, "give --rate (all keys together) or --rate-per-key (each "
                                    "key), not both");
        if (code == OPT_RATE) {
            p->rate_per_s = need_double(cmd, "rate", arg);
            w->set |= SET_RATE;
        } else {
            w->rate_per_key = need_double(cmd, "rate-per-key", arg);
            w->set |= SET_RATE_PER_KEY;
        }
        return true;
    case OPT_KEYS:
        p->keys = (uint32_t)need_u64(cmd, "keys", arg, 1, 100000000);
        w->set |= SET_KEYS;
        return true;
    case OPT_ZIPF:
        p->zipf_s = need_double(cmd, "zipf", arg);
        w->set |= SET_ZIPF;
        return true;
    case OPT_COST:
        parse_cost(cmd, arg, p);
        w->set |= SET_COST;
        return true;
    case OPT_SEED:
        p->seed = need_u64(cmd, "seed", arg, 0, UINT64_MAX);
        w->set |= SET_SEED;
        return true;
    case OPT_ON:
        p->on_ns = need_duration(cmd, "on", arg, true);
        w->set |= SET_ON;
        return true;
    case OPT_OFF:
        p->off_ns = need_duration(cmd, "off", arg, false);
        w->set |= SET_OFF;
        return true;
    case OPT_SIZE:
        p->burst_size = need_u64(cmd, "size", arg, 1, 100000000);
        w->set |= SET_SIZE;
        return true;
    case OPT_SPREAD:
        p->spread_ns = need_duration(cmd, "spread", arg, true);
        w->set |= SET_SPREAD;
        return true;
    case OPT_AT:
        p->flash_at_ns = need_duration(cmd, "at", arg, false);
        w->set |= SET_AT;
        return true;
    case OPT_SPIKE:
        p->flash_len_ns = need_duration(cmd, "spike", arg, true);
        w->set |= SET_SPIKE;
        return true;
    case OPT_FACTOR:
        p->flash_factor = need_double(cmd, "factor", arg);
        w->set |= SET_FACTOR;
        return true;
    case OPT_CANCEL_SHARE:
        p->cancel_share = need_double(cmd, "cancel-share", arg);
        if (p->cancel_share > 1)
            rl_cli_usage_error(cmd, "--cancel-share: '%s' is not a share from 0 to 1", arg);
        w->set |= SET_CANCEL_SHARE;
        return true;
    }
    return false;
}

void rl_cli_workload_build(const char *cmd, const struct rl_cli_workload *w,
                           const struct rl_config *cfg, struct rl_workload_params *p,
                           struct rl_trace *trace)
{
    const struct rl_workload_params *g = &w->given;
    refuse_unused_options(cmd, w);
    rl_workload_defaults(p, cfg->limit, cfg->interval_ns);
    p->name = g->name;
    rl_workload_name_defaults(p, cfg->limit, cfg->interval_ns);
    if (w->set & SET_DURATION) {
        p->duration_ns = g->duration_ns;
        /* keep the flash in the middle of a trace whose length was chosen */
        if (!(w->set & SET_AT))
            p->flash_at_ns = g->duration_ns / 2;
    }
    if (w->set & SET_RATE)
        p->rate_per_s = g->rate_per_s;
    if (w->set & SET_KEYS)
        p->keys = g->keys;
    if (w->set & SET_ZIPF)
        p->zipf_s = g->zipf_s, p->key_dist = RL_KEYS_ZIPF;
    if (w->set & SET_COST)
        p->cost_min = g->cost_min, p->cost_max = g->cost_max;
    if (w->set & SET_SEED)
        p->seed = g->seed;
    if (w->set & SET_ON)
        p->on_ns = g->on_ns;
    if (w->set & SET_OFF)
        p->off_ns = g->off_ns;
    if (w->set & SET_SIZE)
        p->burst_size = g->burst_size;
    if (w->set & SET_SPREAD)
        p->spread_ns = g->spread_ns;
    if (w->set & SET_AT)
        p->flash_at_ns = g->flash_at_ns;
    if (w->set & SET_SPIKE)
        p->flash_len_ns = g->flash_len_ns;
    if (w->set & SET_FACTOR)
        p->flash_factor = g->flash_factor;
    if (w->set & SET_CANCEL_SHARE)
        p->cancel_share = g->cancel_share;
    if (w->set & SET_RATE_PER_KEY)
        p->rate_per_s = w->rate_per_key * (double)p->keys;
    char err[512];
    if (trace ? rl_workload_generate(p, trace, err, sizeof err) != 0
              : rl_workload_check(p, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "%s", err);
}

/* A rate for people: whole above 100, else three significant digits. */
static void rate_text(char *buf, size_t len, double per_s)
{
    snprintf(buf, len, per_s >= 100 ? "%.0f" : "%.3g", per_s);
}

const char *rl_cli_offered_text(char *buf, size_t len, const struct rl_trace *trace,
                                uint64_t span_ns, double speed,
                                const struct rl_workload_params *params,
                                const struct rl_config *cfg)
{
    char each[32], offered[32], limit[32], mean[32];
    uint32_t keys = trace->key_count;
    size_t used = 0;
    if (len == 0)
        return buf;
    buf[0] = '\0';
    if (keys == 0)
        return buf;
    if (keys > 1) {
        rate_text(each, sizeof each, (double)trace->len / keys);
        used += (size_t)snprintf(buf, len, " (%s a key", each);
    }
    if (span_ns > 0 && cfg->interval_ns > 0 && used < len) {
        const char *a_key = keys > 1 ? " a key" : "";
        rate_text(mean, sizeof mean, (double)trace->len * 1e9 / (double)span_ns / keys * speed);
        rate_text(limit, sizeof limit, (double)cfg->limit * 1e9 / (double)cfg->interval_ns);
        /* onoff and flash are offered their rate only part of the time:
         * that rate, and the mean over the whole trace beside it. */
        const char *part = NULL;
        if (params && strcmp(params->name, "onoff") == 0)
            part = "while on";
        else if (params && strcmp(params->name, "flash") == 0)
            part = "outside the spike";
        if (part) {
            rate_text(offered, sizeof offered, params->rate_per_s / keys * speed);
            used += (size_t)snprintf(buf + used, len - used, "%soffered %s/s%s %s, %s/s on average",
                                     used ? "; " : " (", offered, a_key, part, mean);
        } else
            used += (size_t)snprintf(buf + used, len - used, "%soffered %s/s%s", used ? "; " : " (",
                                     mean, a_key);
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, ", against L/I = %s/s", limit);
    }
    if (used > 0 && used < len)
        snprintf(buf + used, len - used, ")");
    return buf;
}

uint64_t rl_cli_trace_span_ns(const struct rl_trace *trace, uint64_t duration_ns)
{
    if (duration_ns > 0 || trace->len == 0)
        return duration_ns;
    uint64_t first = trace->attempts[0].t_ns, last = first;
    for (size_t i = 1; i < trace->len; i++) { /* an --unsorted trace may go back */
        uint64_t t = trace->attempts[i].t_ns;
        first = t < first ? t : first;
        last = t > last ? t : last;
    }
    return last - first;
}

size_t rl_cli_parse_algos(const char *cmd, const char *list, const struct rl_algo **algos,
                          size_t max)
{
    size_t count = 0;
    if (strcmp(list, "all") == 0) {
        for (const struct rl_algo *const *a = rl_registry; *a && count < max; a++)
            algos[count++] = *a;
        return count;
    }
    char buf[2048];
    if (snprintf(buf, sizeof buf, "%s", list) >= (int)sizeof buf)
        rl_cli_usage_error(cmd, "--algo list is too long");
    char *save = NULL;
    for (char *name = strtok_r(buf, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        const struct rl_algo *algo = rl_registry_find(name);
        if (algo == NULL) {
            char valid[2048] = "";
            size_t used = 0;
            for (const struct rl_algo *const *a = rl_registry; *a; a++)
                used +=
                    (size_t)snprintf(valid + used, used < sizeof valid ? sizeof valid - used : 0,
                                     "%s%s", used ? ", " : "", (*a)->name);
            rl_cli_usage_error(cmd, "unknown algorithm '%s' (valid: all, %s)", name, valid);
        }
        bool seen = false;
        for (size_t i = 0; i < count; i++)
            seen |= algos[i] == algo;
        if (!seen && count < max)
            algos[count++] = algo;
    }
    if (count == 0)
        rl_cli_usage_error(cmd, "--algo needs at least one name (or all)");
    return count;
}

bool rl_cli_parse_on_error(const char *cmd, const char *arg)
{
    if (strcmp(arg, "admit") == 0)
        return true;
    if (strcmp(arg, "reject") != 0)
        rl_cli_usage_error(cmd, "unknown --on-error '%s' (accepted: admit, reject)", arg);
    return false;
}

int rl_cli_errors_status(const char *cmd, const struct rl_result *rows, size_t count)
{
    unsigned long long errors = 0, attempts = 0;
    char names[160] = "";
    size_t used = 0;
    for (size_t i = 0; i < count; i++) {
        if (rows[i].errors == 0)
            continue;
        errors += rows[i].errors;
        attempts += rows[i].attempts;
        bool named = false; /* each algorithm once, in row order */
        for (size_t j = 0; j < i; j++)
            named |= rows[j].errors > 0 && rows[j].algo == rows[i].algo;
        if (!named && used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                                     rows[i].algo->name);
    }
    if (errors == 0)
        return 0;
    if (used >= sizeof names)
        snprintf(names + sizeof names - 4, 4, "...");
    rl_cli_progress_done();
    fprintf(stderr,
            "ratelab %s: warning: %llu of %llu decisions were errors (the limiter's backend "
            "failed: %s); see the errors column\n",
            cmd, errors, attempts, names);
    return RL_EXIT_ERRORS;
}

void rl_cli_warn_dropped(const char *cmd, const struct rl_result *rows, size_t count)
{
    unsigned long long dropped = 0;
    size_t runs = 0;
    for (size_t i = 0; i < count; i++)
        if (rows[i].dropped > 0) {
            dropped += rows[i].dropped;
            runs++;
        }
    if (dropped == 0)
        return;
    rl_cli_progress_done();
    fprintf(stderr,
            "ratelab %s: warning: the recorder's buffer filled in %zu run%s: %llu admits were "
            "counted but not recorded, so those runs' verdicts are n/a unless a violation was "
            "seen (see dropped_events; a shorter --duration records all)\n",
            cmd, runs, runs == 1 ? "" : "s", dropped);
}

static const char *redis_cluster_spec;  /* --redis-cluster, checked */
static struct rl_redis_cluster cluster; /* a private one is stopped at exit */
static struct rl_faults faults;         /* --fault, parsed */

void rl_cli_fault_option(const char *cmd, const char *spec)
{
    char err[512];
    if (rl_faults_parse(spec, rl_parse_duration_ns, &faults, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "%s", err);
}

const struct rl_faults *rl_cli_faults(void)
{
    return faults.count ? &faults : NULL;
}

struct rl_redis_cluster *rl_cli_cluster(void)
{
    return &cluster;
}

uint32_t rl_cli_nodes_option(const char *cmd, const char *arg)
{
    char *end;
    unsigned long long nodes = strtoull(arg, &end, 10);
    if (arg[0] < '0' || arg[0] > '9' || *end != '\0' || nodes == 0 || nodes > UINT32_MAX)
        rl_cli_usage_error(cmd, "--nodes must be a whole number of nodes >= 1, not '%s'", arg);
    return (uint32_t)nodes;
}

void rl_cli_redis_cluster_option(const char *cmd, const char *spec)
{
    unsigned primaries, replicas;
    char seeds[4096], err[512];
    if (rl_redis_cluster_parse(spec, &primaries, &replicas, seeds, sizeof seeds, err, sizeof err) !=
        0)
        rl_cli_usage_error(cmd, "%s", err);
    redis_cluster_spec = spec;
}

/* The cluster --redis-cluster names or starts, into cfg->remote. */
static void prepare_cluster(const char *cmd, struct rl_config *cfg)
{
    unsigned primaries, replicas;
    char seeds[4096], err[1024];
    rl_redis_cluster_parse(redis_cluster_spec, &primaries, &replicas, seeds, sizeof seeds, err,
                           sizeof err);
    if (primaries == 0) {
        int rc = rl_redis_cluster_join(&cluster, seeds, err, sizeof err);
        if (rc == -2)
            rl_cli_usage_error(cmd, "%s", err);
        if (rc != 0)
            rl_cli_run_error(cmd, "--redis-cluster: %s", err);
    } else {
        if (!rl_redis_cluster_available())
            rl_cli_usage_error(cmd, "redis-server not found: install it (make deps) or give "
                                    "--redis-cluster HOST:PORT");
        if (rl_redis_cluster_start(&cluster, primaries, replicas, err, sizeof err) != 0)
            rl_cli_run_error(cmd, "cannot start the Redis Cluster %s: %s", redis_cluster_spec, err);
    }
    cfg->remote = cluster.address;
}

size_t rl_cli_prepare_remote(const char *cmd, const struct rl_algo **algos, size_t count,
                             const char *redis, bool skip_remote, struct rl_config *cfg)
{
    static struct rl_redis_server server; /* stopped at exit (redis_server.c) */
    if (redis && redis_cluster_spec)
        rl_cli_usage_error(cmd, "--redis and --redis-cluster name two servers: give one");
    bool any_remote = false;
    for (size_t i = 0; i < count; i++)
        any_remote |= (algos[i]->flags & RL_REMOTE) != 0;
    if (faults.count) {
        unsigned primaries = 0, replicas;
        char seeds[4096], err[512];
        if (redis_cluster_spec)
            rl_redis_cluster_parse(redis_cluster_spec, &primaries, &replicas, seeds, sizeof seeds,
                                   err, sizeof err);
        if (primaries == 0)
            rl_cli_usage_error(cmd, "--fault needs a private cluster: give --redis-cluster NxR "
                                    "(ratelab never faults a cluster it joined)");
        if (!any_remote)
            rl_cli_usage_error(cmd, "--fault acts on the Redis algorithms (redis_*): none asked");
    }
    if (!any_remote)
        return count;
    char err[512];
    if (redis_cluster_spec) {
        prepare_cluster(cmd, cfg);
        return count;
    }
    if (redis) {
        static char address[PATH_MAX]; /* cfg->remote points here for the whole run */
        if (rl_redis_address_check(redis, address, sizeof address, err, sizeof err) != 0)
            rl_cli_usage_error(cmd, "%s", err);
        if (rl_redis_ping(address, err, sizeof err) != 0)
            rl_cli_usage_error(cmd, "%s", err);
        cfg->remote = address;
        return count;
    }
    if (server.pid == 0 && rl_redis_server_available() &&
        rl_redis_server_start(&server, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
    if (server.pid > 0) {
        cfg->remote = server.address;
        return count;
    }
    if (!skip_remote)
        rl_cli_usage_error(cmd, "redis-server not found: install it (make deps) or give --redis");
    size_t kept = 0;
    for (size_t i = 0; i < count; i++)
        if (!(algos[i]->flags & RL_REMOTE))
            algos[kept++] = algos[i];
    fprintf(stderr, "ratelab %s: redis-server not found: skipping the %zu Redis algorithms\n", cmd,
            count - kept);
    return kept;
}

enum rl_keyed_expiry rl_cli_parse_expiry(const char *cmd, const char *arg)
{
    for (int i = 0; rl_keyed_expiry_names[i]; i++)
        if (strcmp(rl_keyed_expiry_names[i], arg) == 0)
            return (enum rl_keyed_expiry)i;
    rl_cli_usage_error(cmd, "unknown expiry '%s' (accepted: never, lazy, sweeper)", arg);
}

static bool progress_shown;

void rl_cli_require_writable(const char *cmd, const char *option, const char *path)
{
    char folder[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(folder, sizeof folder, ".");
    else if (slash == path)
        snprintf(folder, sizeof folder, "/");
    else
        snprintf(folder, sizeof folder, "%.*s", (int)(slash - path), path);
    struct stat st;
    if (path[0] == '\0')
        rl_cli_usage_error(cmd, "%s: the file name is empty", option);
    if (strcmp(path, "-") == 0)
        return; /* standard output */
    if (path[strlen(path) - 1] == '/' || (stat(path, &st) == 0 && S_ISDIR(st.st_mode)))
        rl_cli_usage_error(cmd, "%s: '%s' is a folder, not a file", option, path);
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* a device or a pipe is written in place (io/outfile.h) */
        if (access(path, W_OK) != 0)
            rl_cli_usage_error(cmd, "%s: cannot write %s: %s", option, path, strerror(errno));
        return;
    }
    if (stat(folder, &st) != 0 || !S_ISDIR(st.st_mode))
        rl_cli_usage_error(cmd, "%s: cannot write %s: no folder %s", option, path, folder);
    if (access(folder, W_OK | X_OK) != 0)
        rl_cli_usage_error(cmd, "%s: cannot write %s: %s", option, path, strerror(errno));
    /* access() says yes to root everywhere, /sys and read-only mounts
     * included: create the temporary the run will write, and remove it. */
    struct rl_outfile probe;
    char err[PATH_MAX + 128];
    if (rl_outfile_open(&probe, path, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "%s: %s", option, err);
    rl_outfile_abort(&probe);
}

void rl_cli_require_distinct_files(const char *cmd, const struct rl_cli_file *files, size_t count)
{
    struct rl_file_id ids[RL_CLI_MAX_FILES];
    if (count > RL_CLI_MAX_FILES)
        count = RL_CLI_MAX_FILES;
    for (size_t i = 0; i < count; i++)
        if (files[i].path)
            rl_file_identify(files[i].path, &ids[i]);
    for (size_t i = 0; i < count; i++)
        for (size_t j = 0; j < count; j++) {
            /* each pair once, the output named first; two inputs may be one file */
            const struct rl_cli_file *a = &files[i], *b = &files[j];
            if (i == j || !a->path || !b->path || !a->output || (b->output && j < i) ||
                !rl_file_same(&ids[i], &ids[j]))
                continue;
            if (strcmp(a->path, b->path) == 0)
                rl_cli_usage_error(cmd, "%s and %s name the same file (%s); nothing was written",
                                   a->option, b->option, a->path);
            rl_cli_usage_error(cmd, "%s and %s name the same file (%s and %s); nothing was written",
                               a->option, b->option, a->path, b->path);
        }
}

int rl_cli_getopt(const char *cmd, int argc, char **argv, const struct option *options)
{
    /* Which options have their value: one command's parse at a time; a
     * fresh parse (optind back at its start) forgets the last. */
    static const struct option *parsing;
    static bool given[128];
    if (optind <= 1 || parsing != options) {
        memset(given, 0, sizeof given);
        parsing = options;
    }
    int index = -1;
    int code = getopt_long(argc, argv, ":h", options, &index);
    if (code == -1 || index < 0 || index >= (int)(sizeof given / sizeof given[0]) ||
        options[index].has_arg == no_argument)
        return code;
    if (given[index])
        rl_cli_usage_error(cmd,
                           "--%s is given twice: give each option once (see ratelab %s --help)",
                           options[index].name, cmd);
    given[index] = true;
    return code;
}

void rl_cli_progress(const char *fmt, ...)
{
    if (!isatty(STDERR_FILENO))
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("\r\033[K", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
    progress_shown = true;
}

void rl_cli_progress_line(const char *line)
{
    if (line)
        rl_cli_progress("%s", line);
    else
        rl_cli_progress_done();
}

void rl_cli_progress_done(void)
{
    if (progress_shown)
        fputs("\r\033[K", stderr);
    progress_shown = false;
}

void rl_cli_warn_load(const char *cmd, const struct rl_result *rows, size_t count)
{
    size_t busy = 0, measured = 0;
    double most_load = 0;
    uint32_t most_runnable = 0;
    unsigned cpus = 0;
    for (size_t i = 0; i < count; i++) {
        const struct rl_result *r = &rows[i];
        if (!r->has_load)
            continue;
        measured++;
        /* Busy with other work: the average alone would also count this
         * command's own earlier runs (threads above the CPUs push it over),
         * but at a run's start its threads are not yet running, so the
         * runnable count is the rest of the machine and ratelab itself. */
        if (r->load_1m > (double)r->cpus && r->runnable > r->cpus) {
            busy++;
            cpus = r->cpus;
            most_load = r->load_1m > most_load ? r->load_1m : most_load;
            most_runnable = r->runnable > most_runnable ? r->runnable : most_runnable;
        }
    }
    if (busy == 0)
        return;
    rl_cli_progress_done();
    fprintf(
        stderr,
        "ratelab %s: warning: %zu of %zu runs started with the load above the %u CPUs (1-minute "
        "average up to %.2f, up to %u threads runnable): other work shared the CPUs; see "
        "load_1m and runnable\n",
        cmd, busy, measured, cpus, most_load, most_runnable);
}
