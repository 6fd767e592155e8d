/* cmd_stress.c — `ratelab stress`: closed-loop throughput per thread count,
 * with faa measured alongside, and accuracy when recorded. */
#include "cli.h"
#include "cmd_stress_nodes.h"
#include "commands.h"
#include "fault_table.h"
#include "parse.h"
#include "stress_history.h"
#include "stress_print.h"
#include "table.h"
#include "harness/run/faults.h"
#include "harness/run/stress_plan.h"
#include "harness/sys/clock.h"
#include "harness/sys/interrupt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_THREAD_COUNTS 32

/* stress's own options beyond cli.h's shared codes. */
enum { OPT_HISTORY = 20000, OPT_HISTORY_MAX, OPT_HISTORY_WINDOWS, OPT_LOOKAHEAD };

static void stress_help(void)
{
    printf("usage: ratelab stress --algo A[,B...|all] [--threads 1,2,4] [--duration DUR]\n"
           "                      [--reps R] [--clock C] [--record] [--pin] [--unsafe]\n"
           "                      [--hold DUR] [--keys K [--zipf S] [--expiry E] [--lookahead D]]\n"
           "                      [--redis ADDR | --redis-cluster C [--fault SPEC]]\n"
           "                      [--wait-replicas N] [--on-error P] [--client-skew DUR]\n"
           "                      [--limit L --interval DUR] [--out FILE.csv] [--format F]\n"
           "                      [--decisions FILE.csv] [--max-wait DUR] [--cancel-share F]\n"
           "                      [--history FILE.csv [--history-max N]\n"
           "                      [--history-windows K]]\n\n"
           "Threads start together and call acquire on one shared limiter as fast as they can\n"
           "(closed loop) until the duration ends. Prints median ns/op (per thread: time for\n"
           "one call) with min-max over repetitions, Mops/s (all threads), and the ratio to\n"
           "faa, which is measured in the same run whether asked for or not. Repetitions are\n"
           "interleaved across algorithms. A thread count above the CPUs is marked '!'.\n\n"
           "       ratelab stress --nodes N --coord NAME[:PARAMS] --sync T (--redis ADDR |\n"
           "                      --redis-cluster C) ...: N node processes sharing one limit\n"
           "                      through the store (docs/nodes.md); its options:\n"
           "                      ratelab stress --nodes 1 --help\n\n"
           "  --threads LIST    thread counts (default 1,2)\n"
           "  --duration DUR    per measurement (default 1s)\n"
           "  --reps R          repetitions (default 3)\n"
           "  --clock C         monotonic (default), coarse, tsc, or cached (cached:T: one\n"
           "                    thread publishes the time every T, default 100us; 10us..1s)\n"
           "  --record          also run each measurement recorded: every admit stamped and\n"
           "                    checked (sliding/aligned maxima, promise held, stamp\n"
           "                    uncertainty), and the recorder's overhead printed\n"
           "  --pin             pin thread i to CPU i mod cores\n"
           "  --hold DUR        limiters that need release (concurrency) hold each permit\n"
           "                    this long before releasing it (default 0ns); the harness\n"
           "                    counts permits held at once and reports the maximum\n"
           "  --keys K          each attempt draws a key, uniform over K (or --zipf S), and\n"
           "                    goes through the keyed container: open-addressing shards,\n"
           "                    looked up without a lock (docs/keys.md)\n"
           "  --expiry E        idle keys: never (default), lazy (each access looks at two\n"
           "                    other entries) or sweeper (a thread sweeps every idle/2)\n"
           "  --lookahead D     keyed, unrecorded, no release, no shaper: each thread draws\n"
           "                    its keys D attempts ahead (the same keys), prefetches each\n"
           "                    key's slot as it is drawn and decides D at a time under one\n"
           "                    announcement (1 to 64; default 0: one at a time)\n"
           "  --client-skew DUR each thread's clock is off by a share of ±DUR, spread evenly\n"
           "                    (thread i: −DUR + 2·DUR·i/(T−1)): clients that disagree on\n"
           "                    the time, for limiters that trust the client's clock\n"
           "  --unsafe          allow algorithms that are not thread-safe with > 1 thread\n"
           "  --decisions FILE  implies --record: write the recorded run's admits\n"
           "                    (t_ns,key,n,admitted,thread; t_ns from the limiter's epoch)\n"
           "                    for ratelab check --admits-only (stress counts rejects but\n"
           "                    does not log them); one --algo, one thread count, --reps 1.\n"
           "                    A shaper's log has every attempt, with release_ns (the\n"
           "                    promise) and woke_ns (when its sleep ended)\n"
           "  --max-wait DUR    shapers (family shaper): how long a caller waits for its\n"
           "                    release (0s to 86400s; default: as long as it takes); each\n"
           "                    thread calls shape and sleeps until the release on the\n"
           "                    run's clock before its next attempt. The timer's overshoot\n"
           "                    (woke - release: p50, p99, max) is printed beside the run\n"
           "                    and in the rows; it is the harness's, not the limiter's.\n"
           "                    Other algorithms decide as always\n"
           "  --history FILE    every operation, rejects included, for the linearizability\n"
           "                    check (ratelab check, docs/commands.md): thread, key,\n"
           "                    cost, call and return stamps on the run's clock, the\n"
           "                    answer, and the witness (the last time the algorithm read\n"
           "                    through its clock handle in the call; the handle is\n"
           "                    wrapped, the algorithm unchanged). One algorithm, one\n"
           "                    thread count; not for shapers, limiters that need\n"
           "                    release, --client-skew or --record. Three runs: plain,\n"
           "                    --record and --history, their ns/op printed side by side\n"
           "                    (the cost of recording)\n"
           "  --history-max N   memory bound: a thread keeps at most N operations a\n"
           "                    window (32 bytes each; default %u). A window opens\n"
           "                    at a quiescent cut (every thread finishes its call and\n"
           "                    waits for the others) and ends at another when every\n"
           "                    thread has kept N (the first there holds its last call\n"
           "                    open until the others have called theirs, so no thread\n"
           "                    fills a window alone and the threads' spans overlap) or\n"
           "                    the next window is due; between windows the run goes on\n"
           "                    unrecorded. Each thread's count is in the file's header\n"
           "                    and printed per window\n"
           "  --history-windows K  record K windows spread over the run (default 1: the\n"
           "                    first only), window w due at w x DUR/K: the file holds\n"
           "                    each window after a line with its start and the\n"
           "                    limiter's state there (its snapshot, or its one word),\n"
           "                    and check --linearizable judges each window from that\n"
           "                    state. At most K x N <= 2^25 operations a thread kept;\n"
           "                    K > 1 needs one key and an algorithm with snapshot or a\n"
           "                    one-word state that no thread of its own changes\n"
           "%s\n"
           "%s\n%s\n%s%s\n%s",
           RL_HISTORY_DEFAULT_MAX, rl_cli_output_help, rl_cli_load_help, rl_cli_limiter_help,
           rl_cli_remote_help, rl_cli_fault_help, rl_cli_exit_help);
}

/* What the options say: the plan's shared run and grid, and what the CLI
 * itself needs (the algorithm names, the outputs). */
struct stress_options {
    const char *algo_list, *redis, *decisions_path, *history_path;
    uint64_t history_max, history_windows;
    uint64_t threads[MAX_THREAD_COUNTS], reps;
    bool unsafe;
    struct rl_cli_output output;
    struct rl_stress_plan plan;
};

/* The options `ratelab stress` takes (--help lists them). */
static const struct option options[] = {
    RL_CLI_HELP_OPTION,
    RL_CLI_LIMITER_OPTIONS,
    {"algo", required_argument, NULL, OPT_ALGO},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"reps", required_argument, NULL, OPT_REPS},
    {"clock", required_argument, NULL, OPT_CLOCK},
    {"record", no_argument, NULL, OPT_RECORD},
    {"pin", no_argument, NULL, OPT_PIN},
    {"hold", required_argument, NULL, OPT_HOLD},
    {"keys", required_argument, NULL, OPT_KEYS},
    {"zipf", required_argument, NULL, OPT_ZIPF},
    {"expiry", required_argument, NULL, OPT_EXPIRY},
    {"lookahead", required_argument, NULL, OPT_LOOKAHEAD},
    {"client-skew", required_argument, NULL, OPT_CLIENT_SKEW},
    RL_CLI_REMOTE_OPTIONS,
    {"fault", required_argument, NULL, OPT_FAULT},
    {"unsafe", no_argument, NULL, OPT_UNSAFE},
    RL_CLI_OUTPUT_OPTIONS,
    {"decisions", required_argument, NULL, OPT_DECISIONS},
    {"max-wait", required_argument, NULL, OPT_MAX_WAIT},
    {"history", required_argument, NULL, OPT_HISTORY},
    {"history-max", required_argument, NULL, OPT_HISTORY_MAX},
    {"history-windows", required_argument, NULL, OPT_HISTORY_WINDOWS},
    {"cancel-share", required_argument, NULL, OPT_CANCEL_SHARE},
    {0}};

/* One case per option, so this reads as the option list (85 lines for that
 * reason: split, it would hide which option does what); checks that need
 * every option come after it.
 * False when --help was answered. */
static bool parse_options(int argc, char **argv, struct stress_options *o)
{
    const char *cmd = "stress";
    struct rl_stress_params *run = &o->plan.run;
    char err[512];
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        switch (code) {
        case OPT_HELP:
            stress_help();
            return false;
        case OPT_ALGO:
            o->algo_list = optarg;
            break;
        case OPT_THREADS:
            if (rl_parse_u64_list(optarg, 1, 1024, o->threads, MAX_THREAD_COUNTS,
                                  &o->plan.thread_count, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--threads: %s", err);
            break;
        case OPT_DURATION:
            if (rl_parse_duration_ns(optarg, &run->duration_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--duration: %s", err);
            if (run->duration_ns == 0)
                rl_cli_usage_error(cmd, "--duration must be greater than zero");
            break;
        case OPT_REPS:
            if (rl_parse_u64(optarg, 1, 1000, &o->reps, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--reps: %s", err);
            break;
        case OPT_CLOCK:
            run->clock = optarg;
            break;
        case OPT_RECORD:
            run->record = true;
            break;
        case OPT_PIN:
            run->pin = true;
            break;
        case OPT_KEYS: {
            uint64_t keys;
            if (rl_parse_u64(optarg, 1, 100000000, &keys, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--keys: %s", err);
            run->keys = (uint32_t)keys;
            break;
        }
        case OPT_ZIPF:
            if (rl_parse_double(optarg, 0.0, &run->zipf_s, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--zipf: %s", err);
            break;
        case OPT_EXPIRY:
            run->expiry = rl_cli_parse_expiry(cmd, optarg);
            break;
        case OPT_LOOKAHEAD: {
            uint64_t depth;
            if (rl_parse_u64(optarg, 1, RL_STRESS_MAX_LOOKAHEAD, &depth, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--lookahead: %s", err);
            run->lookahead = (unsigned)depth;
            break;
        }
        case OPT_REDIS:
            o->redis = optarg;
            break;
        case OPT_REDIS_CLUSTER:
            rl_cli_redis_cluster_option(cmd, optarg);
            break;
        case OPT_FAULT:
            rl_cli_fault_option(cmd, optarg);
            break;
        case OPT_ON_ERROR:
            run->error_admits = rl_cli_parse_on_error(cmd, optarg);
            break;
        case OPT_CLIENT_SKEW:
            if (rl_parse_duration_ns(optarg, &run->client_skew_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--client-skew: %s", err);
            break;
        case OPT_HOLD:
            if (rl_parse_duration_ns(optarg, &run->hold_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--hold: %s", err);
            break;
        case OPT_UNSAFE:
            o->unsafe = true;
            break;
        case OPT_DECISIONS:
            o->decisions_path = optarg;
            o->plan.keep_decisions = true;
            break;
        case OPT_CANCEL_SHARE:
            if (rl_parse_double(optarg, -1e-300, &run->cancel_share, err, sizeof err) != 0 ||
                run->cancel_share > 1)
                rl_cli_usage_error(cmd, "--cancel-share: '%s' is not a share from 0 to 1", optarg);
            break;
        case OPT_MAX_WAIT:
            if (rl_parse_max_wait_ns(optarg, &run->max_wait_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--max-wait: %s", err);
            break;
        case OPT_HISTORY:
            o->history_path = optarg;
            break;
        case OPT_HISTORY_MAX:
            if (rl_parse_u64(optarg, 1, 1u << 25, &o->history_max, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--history-max: %s", err);
            break;
        case OPT_HISTORY_WINDOWS:
            if (rl_parse_u64(optarg, 1, 1u << 16, &o->history_windows, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--history-windows: %s", err);
            break;
        default:
            if (!rl_cli_limiter_option(cmd, code, optarg, &run->cfg) &&
                !rl_cli_output_option(cmd, code, optarg, &o->output))
                rl_cli_bad_option(cmd, code, argv);
        }
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (o->algo_list == NULL)
        rl_cli_usage_error(cmd, "--algo is required (a name from ratelab list, or all)");
    return true;
}

/* Names to algorithms (the CLI's job: the list, Redis), then the plan
 * prepares itself: clock, checks, floors, the --decisions rule. */
static void prepare_plan(struct stress_options *o, const struct rl_algo **list, size_t room)
{
    const char *cmd = "stress";
    const struct rl_algo *asked[RL_CLI_MAX_ALGOS];
    bool all = strcmp(o->algo_list, "all") == 0;
    size_t count = rl_cli_parse_algos(cmd, o->algo_list, asked, RL_CLI_MAX_ALGOS);
    count = rl_cli_prepare_remote(cmd, asked, count, o->redis, all, &o->plan.run.cfg);
    /* a faulted run is recorded: its lost admits come from the checker */
    o->plan.faults = rl_cli_faults();
    o->plan.cluster = rl_cli_cluster();
    if (o->plan.faults)
        o->plan.run.record = true;
    o->plan.threads = o->threads;
    o->plan.reps = (unsigned)o->reps;
    struct rl_stress_asked ask = {.algos = asked, .count = count, .all = all, .unsafe = o->unsafe};
    char err[512];
    if (rl_stress_plan_prepare(&o->plan, &ask, list, room, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "%s", err);
    for (size_t i = 0; i < o->plan.algo_count; i++) {
        const struct rl_algo *algo = o->plan.algos[i];
        if (o->plan.run.cancel_share > 0 && algo->shape && algo->cancel == NULL)
            rl_cli_usage_error(cmd, "--cancel-share: %s cannot cancel a reservation", algo->name);
    }
    const struct rl_stress_params *run = &o->plan.run;
    if (run->lookahead && (run->keys <= 1 || run->record || run->history))
        rl_cli_usage_error(cmd, "--lookahead needs --keys K (K > 1) and an unrecorded run "
                                "(no --record, --decisions, --fault or --history)");
    for (size_t i = 0; i < o->plan.algo_count; i++)
        if (run->lookahead &&
            (o->plan.algos[i]->shape || (o->plan.algos[i]->flags & (RL_NEEDS_RELEASE | RL_REMOTE))))
            rl_cli_usage_error(cmd,
                               "--lookahead: %s %s; the look-ahead decides keys in batches "
                               "through the local container",
                               o->plan.algos[i]->name,
                               o->plan.algos[i]->shape ? "is a shaper"
                               : o->plan.algos[i]->flags & RL_REMOTE
                                   ? "keeps its keys on the server"
                                   : "needs release");
    for (size_t i = 0; i < o->plan.algo_count; i++) /* shapers sleep on the true clock */
        if (o->plan.algos[i]->shape && o->plan.run.client_skew_ns)
            rl_cli_usage_error(cmd,
                               "%s is a shaper: --client-skew would move the clock its "
                               "callers sleep on; run it without",
                               o->plan.algos[i]->name);
}

/* Shapers' rows: the timer's overshoot past the releases, which is the
 * harness's own (beside the run, and in every row's overshoot_* columns). */
static void print_overshoot(FILE *out, const struct rl_result *rows, size_t count)
{
    bool any = false;
    for (size_t i = 0; i < count; i++) {
        const struct rl_result *r = &rows[i];
        if (!r->has_overshoot || strcmp(r->mode, "stress") != 0)
            continue;
        if (!any)
            fprintf(out, "\ntimer overshoot (woke - release, the harness's, not the limiter's):\n");
        any = true;
        fprintf(out, "  %s x%u rep %u%s: p50 %llu ns, p99 %llu ns, max %llu ns", r->algo->name,
                r->threads, r->rep, r->checked ? " recorded" : "",
                (unsigned long long)r->overshoot_p50_ns, (unsigned long long)r->overshoot_p99_ns,
                (unsigned long long)r->overshoot_max_ns);
        if (r->cancels)
            fprintf(out, "; %llu reservations cancelled", (unsigned long long)r->cancels);
        fputc('\n', out);
    }
}

/* Keyed runs (--keys K): the calls a second each key was offered, beside
 * L/I, since L is a key's limit. A closed loop offers what the threads
 * manage, so this is measured: one line per algorithm and thread count,
 * the mean over its reps (the unrecorded ones when there are any). */
static void print_offered_per_key(FILE *out, const struct rl_result *rows, size_t count)
{
    bool any = false;
    for (size_t i = 0; i < count; i++) {
        const struct rl_result *lead = &rows[i];
        bool first = strcmp(lead->mode, "stress") == 0 && lead->keys > 1;
        for (size_t j = 0; first && j < i; j++)
            first = !(rows[j].algo == lead->algo && rows[j].threads == lead->threads);
        if (!first)
            continue;
        bool any_unrecorded = false;
        for (size_t j = i; j < count; j++)
            any_unrecorded |=
                rows[j].algo == lead->algo && rows[j].threads == lead->threads && !rows[j].checked;
        double mops = 0;
        size_t reps = 0;
        for (size_t j = i; j < count; j++)
            if (rows[j].algo == lead->algo && rows[j].threads == lead->threads &&
                !(rows[j].checked && any_unrecorded)) {
                mops += rows[j].mops;
                reps++;
            }
        double per_key = mops / (double)reps * 1e6 / (double)lead->keys;
        double limit = (double)lead->cfg.limit * 1e9 / (double)lead->cfg.interval_ns;
        fprintf(out,
                "%s x%u: offered %.0f/s a key (%.3f Mops/s over %llu keys), against L/I = %.*f/s\n",
                lead->algo->name, lead->threads, per_key, mops / (double)reps,
                (unsigned long long)lead->keys, limit >= 100 ? 0 : 3, limit);
        any = true;
    }
    if (any)
        fputc('\n', out);
}

/* The tables (table view only), the rows, the decisions and the warnings;
 * returns the exit status the rows call for. */
static int report(struct stress_options *o, const struct rl_clock_report *clock_report,
                  const struct rl_result *rows, size_t done)
{
    const char *cmd = "stress";
    const struct rl_stress_plan *plan = &o->plan;
    if (rl_cli_output_view(&o->output) == RL_FORMAT_TABLE) {
        rl_print_stress_header(stdout, plan, clock_report);
        print_offered_per_key(stdout, rows, done);
        rl_table_speed(stdout, rows, done);
        print_overshoot(stdout, rows, done);
        if (plan->run.record && plan->faults == NULL)
            rl_print_recorder_overhead(stdout, rows, done);
        if (plan->faults)
            rl_table_faults(stdout, rows, done);
    }
    rl_cli_write_rows(cmd, &o->output, rows, done);
    char err[512];
    if (o->decisions_path && plan->decisions.len &&
        rl_event_log_write_csv(&plan->decisions, o->decisions_path, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
    rl_cli_warn_dropped(cmd, rows, done);
    int status = rl_cli_errors_status(cmd, rows, done);
    rl_cli_warn_load(cmd, rows, done); /* last: the errors line stays first */
    return status;
}

/* --history is one run of its own (stress_history.h): what it cannot go with. */
static void check_history_options(struct stress_options *o)
{
    const char *cmd = "stress";
    rl_cli_require_writable(cmd, "--history", o->history_path);
    uint64_t max = o->history_max ? o->history_max : RL_HISTORY_DEFAULT_MAX;
    uint64_t windows = o->history_windows ? o->history_windows : 1;
    if (windows * max > (1u << 25))
        rl_cli_usage_error(cmd,
                           "--history-windows %llu x --history-max %llu: at most 2^25 "
                           "operations a thread (32 bytes each)",
                           (unsigned long long)windows, (unsigned long long)max);
    if (windows > 1 && o->plan.run.keys > 1)
        rl_cli_usage_error(cmd, "--history-windows: a later window starts from the limiter's "
                                "state, which a keyed run (--keys) does not take");
    if (o->plan.thread_count != 1)
        rl_cli_usage_error(cmd, "--history records one thread count: give one --threads");
    if (o->decisions_path || o->output.out_path || o->plan.run.record || rl_cli_faults() ||
        o->redis)
        rl_cli_usage_error(cmd, "--history is a run of its own: not with --decisions, --out, "
                                "--record, --fault or Redis");
    o->reps = 1;
}

/* options → plan → run → print. */
int rl_cmd_stress(int argc, char **argv)
{
    const char *cmd = "stress";
    if (rl_stress_wants_nodes(argc, argv)) /* node processes on a real store */
        return rl_cmd_stress_nodes(argc, argv);
    struct stress_options o = {
        .threads = {1, 2},
        .reps = 3,
        .output = {.format = RL_FORMAT_TABLE},
        .plan = {
            .thread_count = 2,
            .run = {.duration_ns = 1000000000u, .clock = "monotonic", .max_wait_ns = UINT64_MAX},
            .progress = rl_cli_progress_line}};
    rl_cli_limiter_defaults(&o.plan.run.cfg);
    if (!parse_options(argc, argv, &o))
        return 0; /* --help */
    /* Checks across options (the outputs), before anything is prepared. */
    rl_cli_output_check(cmd, &o.output);
    if (o.decisions_path)
        rl_cli_require_writable(cmd, "--decisions", o.decisions_path);
    const struct rl_cli_file files[] = {{"--out", o.output.out_path, true},
                                        {"--decisions", o.decisions_path, true}};
    rl_cli_require_distinct_files(cmd, files, sizeof files / sizeof files[0]);

    const struct rl_faults *faults = rl_cli_faults();
    if (faults && faults->list[faults->count - 1].at_ns >= o.plan.run.duration_ns)
        rl_cli_usage_error(cmd, "--fault: every fault must come before the run ends (--duration)");
    const struct rl_algo *list[RL_CLI_MAX_ALGOS + 1];
    if (o.history_path)
        check_history_options(&o);
    else if (o.history_windows)
        rl_cli_usage_error(cmd, "--history-windows needs --history FILE");
    prepare_plan(&o, list, RL_CLI_MAX_ALGOS + 1);
    if (o.history_path) {
        const struct rl_algo *algo = list[o.plan.algo_count - 1]; /* after faa */
        if (o.plan.algo_count > 2 || (algo->flags & RL_REMOTE))
            rl_cli_usage_error(cmd, "--history records one in-process algorithm: give one --algo");
        if (algo->shape || (algo->flags & RL_NEEDS_RELEASE) || o.plan.run.client_skew_ns)
            rl_cli_usage_error(cmd, "--history records acquire calls on the true clock: not a "
                                    "shaper, a limiter that needs release or --client-skew");
        if (o.history_windows > 1 && !rl_hist_can_snapshot(algo))
            rl_cli_usage_error(cmd,
                               "--history-windows: %s has neither snapshot nor a one-word "
                               "state, or a thread of its own changes it, so a later "
                               "window has no start state (record one)",
                               algo->name);
        rl_interrupt_install();
        int status =
            rl_stress_history(&o.plan, algo, o.history_max ? o.history_max : RL_HISTORY_DEFAULT_MAX,
                              o.history_windows ? (unsigned)o.history_windows : 1, o.history_path);
        rl_stress_plan_free(&o.plan);
        return status;
    }
    /* The clock is an experimental variable: measure it before the run. */
    struct rl_clock_report clock_report = {0};
    if (rl_cli_output_view(&o.output) == RL_FORMAT_TABLE)
        rl_clock_measure_started(&o.plan.clock, &clock_report);
    size_t planned = rl_stress_plan_rows(&o.plan);
    struct rl_result *rows = calloc(planned, sizeof *rows);
    if (rows == NULL)
        rl_cli_run_error(cmd, "out of memory");
    rl_interrupt_install();
    bool interrupted, failed;
    char err[512];
    size_t done = rl_stress_plan_run(&o.plan, cmd, rows, &interrupted, &failed, err, sizeof err);
    int status = report(&o, &clock_report, rows, done);
    const char *remote = o.plan.run.cfg.remote;
    if (remote && strncmp(remote, "cluster:", strlen("cluster:")) == 0)
        /* each limiter loads the slot map when it opens: every redirect
         * counted here was followed after that warm-up */
        fprintf(stderr, "ratelab stress: Redis Cluster: %llu MOVED/ASK redirects followed\n",
                (unsigned long long)rl_remote_redirects());
    rl_stress_plan_free(&o.plan);
    free(rows);
    if (interrupted || failed) {
        const char *out_path = o.output.out_path;
        fprintf(stderr, "ratelab stress: %s%s after %zu of %zu runs%s%s\n",
                failed ? "a run failed: " : "interrupted", failed ? err : "", done, planned,
                out_path ? "; the finished runs were written to " : "", out_path ? out_path : "");
        return 1;
    }
    return status;
}
