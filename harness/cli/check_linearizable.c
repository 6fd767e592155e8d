/* check_linearizable.c — `ratelab check --linearizable`: is a recorded
 * concurrent history what the algorithm's sequential self could have
 * answered? (harness/check/linearizable.h) */
#include "check_linearizable.h"

#include "cli.h"
#include "parse.h"
#include "table.h"
#include "harness/check/lin_stream.h"
#include "harness/check/lin_timeline.h"
#include "harness/check/linearizable.h"
#include "harness/io/outfile.h"
#include "harness/run/lin_model.h"
#include "harness/sys/clock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_BUDGET 1000000u

static void lin_help(void)
{
    printf("usage: ratelab check --linearizable --algo NAME --limit L --interval DUR\n"
           "                     [--burst B] [--slots S] --events HISTORY [--budget STATES]\n"
           "                     [--search] [--svg FILE] [--force]\n\n"
           "Is a recorded concurrent history linearizable: is there an order of its\n"
           "operations, and a time for each inside its call, such that the sequential\n"
           "algorithm NAME (as sim runs it, in virtual time) replayed in that order at those\n"
           "times gives every recorded answer? Times never go down along the order, so an\n"
           "operation that returned before another was called comes first. Each key is\n"
           "checked on its own (keys are independent limiters).\n\n"
           "HISTORY is CSV, one line per operation, rejects included, in any order:\n"
           "  # ratelab history algo=NAME epoch_ns=T   (optional comment lines first)\n"
           "  thread,key,cost,call_ns,return_ns,answer,witness_ns\n"
           "thread: the caller, one operation in flight at a time; key: text; cost >= 1;\n"
           "call_ns <= return_ns on the run's clock; answer 1 admit, 0 reject; witness_ns:\n"
           "the time the algorithm read through its clock inside the call, empty when it\n"
           "read none (the column may be left out). epoch_ns: the run's t = 0, where\n"
           "aligned windows start (default 0).\n\n"
           "How it decides:\n"
           "  witness  every operation of a key has a witness: replay the key at the\n"
           "           witnesses in their order; every answer given means linearizable.\n"
           "           A file already in witness order per key (as stress --history\n"
           "           writes it) is replayed as it is read, in bounded memory\n"
           "           (mode: witness, streamed); anything else is read whole\n"
           "  search   otherwise (or when the replay disagrees, or with --search): Wing &\n"
           "           Gong's search as Lowe refined it, remembering states already seen,\n"
           "           each operation tried at max(previous time, its call), its witness,\n"
           "           its return and where the sequential answer flips (a window's end,\n"
           "           enough tokens accrued). not linearizable: no order at those times\n"
           "           explains it\n\n"
           "  --algo NAME       the algorithm the history was recorded with (ratelab list)\n"
           "  --limit L, --interval DUR, --burst B, --slots S   its configuration\n"
           "  --budget STATES   search states the check may visit (default %u, >= 1);\n"
           "                    shrinking and the overshoot score get as many again each.\n"
           "                    A key decided by search needs at least one state per\n"
           "                    operation (a one-word CAS limiter about one, when calls\n"
           "                    are short), so a longer history that falls to search is\n"
           "                    unknown: raise --budget above its operations (twice them\n"
           "                    to start), or record shorter windows (stress\n"
           "                    --history-max, --history-windows). The default stays\n"
           "                    fixed: every state is held in memory until its key is\n"
           "                    decided, and a call that spans many of another thread's\n"
           "                    (a preempted one) makes each state dearer.\n"
           "                    An algorithm whose state is neither one flat word nor\n"
           "                    given a snapshot is copied by replaying its steps, and\n"
           "                    each copy costs its depth\n"
           "  --search          search every key, even where witness replay would do\n"
           "  --svg FILE        also draw the counterexample as SVG\n"
           "  --force           check a history whose header names another algorithm\n\n"
           "Prints the verdict, the mode, the states visited and the overshoot score: the\n"
           "least k for which the history is linearizable against L + k (and B + k), with\n"
           "recorded rejects that no order explains forgiven and counted as false_rejects\n"
           "(a reject breaks no bound: its overshoot is 0; when those are the only fault\n"
           "it says false rejects only). Not linearizable: a counterexample shrunk until\n"
           "dropping any operation makes it linearizable, drawn with threads as rows and\n"
           "calls as spans, ! on the answer no order explains.\n\n"
           "Exit status: 0 linearizable, 1 not linearizable (or the check failed: one line\n"
           "on stderr), 2 bad input, 3 unknown (the budget ran out: never a pass).\n",
           DEFAULT_BUDGET);
}

struct lin_options {
    const char *events_path, *algo_name, *svg_path;
    struct rl_config cfg;
    uint64_t budget;
    bool search, force, limit_given, interval_given;
};

static bool parse_lin_options(const char *cmd, int argc, char **argv, struct lin_options *o)
{
    enum { OPT_LINEARIZABLE = 10000, OPT_BUDGET, OPT_SEARCH, OPT_SVG, OPT_FORCE };
    static const struct option options[] = {RL_CLI_HELP_OPTION,
                                            RL_CLI_LIMITER_OPTIONS,
                                            {"linearizable", no_argument, NULL, OPT_LINEARIZABLE},
                                            {"algo", required_argument, NULL, OPT_ALGO},
                                            {"events", required_argument, NULL, OPT_EVENTS},
                                            {"budget", required_argument, NULL, OPT_BUDGET},
                                            {"search", no_argument, NULL, OPT_SEARCH},
                                            {"svg", required_argument, NULL, OPT_SVG},
                                            {"force", no_argument, NULL, OPT_FORCE},
                                            {0}};
    char err[512];
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        switch (code) {
        case OPT_HELP:
            lin_help();
            return false;
        case OPT_LINEARIZABLE:
            break;
        case OPT_ALGO:
            o->algo_name = optarg;
            break;
        case OPT_EVENTS:
            o->events_path = optarg;
            break;
        case OPT_BUDGET:
            if (rl_parse_u64(optarg, 1, UINT64_MAX / 4, &o->budget, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--budget: %s (the states the search may visit)", err);
            break;
        case OPT_SEARCH:
            o->search = true;
            break;
        case OPT_SVG:
            o->svg_path = optarg;
            break;
        case OPT_FORCE:
            o->force = true;
            break;
        default:
            o->limit_given |= code == OPT_LIMIT;
            o->interval_given |= code == OPT_INTERVAL;
            if (!rl_cli_limiter_option(cmd, code, optarg, &o->cfg))
                rl_cli_bad_option(cmd, code, argv);
        }
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (o->events_path == NULL)
        rl_cli_usage_error(cmd, "--events HISTORY is required (CSV: thread,key,cost,call_ns,"
                                "return_ns,answer,witness_ns)");
    if (o->algo_name == NULL)
        rl_cli_usage_error(cmd, "--algo NAME is required: the algorithm whose sequential "
                                "answers the history is checked against");
    if (!o->limit_given || !o->interval_given)
        rl_cli_usage_error(cmd, "--limit L and --interval DUR are required: the configuration "
                                "the history was recorded with");
    if (o->svg_path)
        rl_cli_require_writable(cmd, "--svg", o->svg_path);
    const struct rl_cli_file files[] = {{"--svg", o->svg_path, true},
                                        {"--events", o->events_path, false}};
    rl_cli_require_distinct_files(cmd, files, sizeof files / sizeof files[0]);
    return true;
}

static uint32_t thread_count(const struct rl_history *h)
{
    uint32_t *seen = malloc((h->len ? h->len : 1) * sizeof *seen), n = 0;
    if (seen == NULL)
        return 0;
    for (size_t i = 0; i < h->len; i++) {
        uint32_t j = 0;
        while (j < n && seen[j] != h->ops[i].thread)
            j++;
        if (j == n && n < 4096)
            seen[n++] = h->ops[i].thread;
    }
    free(seen);
    return n;
}

/* Refuses a history recorded with another algorithm (unless --force). */
static void check_algo(const char *cmd, const struct lin_options *o, const char *recorded,
                       const struct rl_algo *algo)
{
    if (recorded[0] && strcmp(recorded, algo->name) != 0 && !o->force) {
        char shown[256];
        rl_cli_usage_error(cmd, "%s was recorded with %s, not %s (--force checks it anyway)",
                           rl_table_text(shown, sizeof shown, o->events_path), recorded,
                           algo->name);
    }
}

/* Witness mode streamed (check/lin_stream.h): true when it judged the file
 * linearizable and printed so; false to read it whole. */
static bool streamed(const char *cmd, struct lin_options *o, const struct rl_algo *algo)
{
    struct rl_lin_stream s;
    int rc = rl_lin_stream_open(&s, o->events_path);
    if (rc < 0)
        rl_cli_run_error(cmd, "out of memory");
    if (rc > 0)
        return false;
    check_algo(cmd, o, s.head.algo, algo);
    struct rl_config cfg = o->cfg;
    cfg.epoch_ns = s.head.has_epoch ? s.head.epoch_ns : 0;
    struct rl_lin_algo ctx;
    struct rl_lin_model model;
    char err[512];
    if (rl_lin_model_of(algo, &cfg, &ctx, &model, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "--algo %s: %s", algo->name, err);
    ctx.never_cloned = true;
    struct rl_lin_stream_result r;
    double t0 = (double)rl_monotonic_ns() / 1e9;
    rc = rl_lin_stream_run(&s, &model, &r);
    double t1 = (double)rl_monotonic_ns() / 1e9;
    rl_lin_stream_close(&s);
    if (rc < 0)
        rl_cli_run_error(cmd, "out of memory");
    if (rc > 0)
        return false;
    char interval[RL_DURATION_BUF_LEN], shown[1024];
    printf("check --linearizable: %llu operations, %u threads, %u keys from %s\n",
           (unsigned long long)r.ops, r.threads, r.keys,
           rl_table_text(shown, sizeof shown, o->events_path));
    printf("algorithm %s, L=%llu per %s\n\n", algo->name, (unsigned long long)o->cfg.limit,
           rl_format_duration_ns(o->cfg.interval_ns, interval, sizeof interval));
    printf("%-16s %s\n", "verdict", rl_lin_verdict_name(RL_LIN_YES));
    printf("%-16s witness, streamed (%u of %u keys by witness replay)\n", "mode", r.keys, r.keys);
    printf("%-16s 0 (budget %llu)\n", "states", (unsigned long long)o->budget);
    printf("%-16s %.3f s (reading included)\n", "time", t1 - t0);
    printf("%-16s 0 (linearizable against L + 0)\n", "overshoot");
    printf("%-16s 0 (the fewest rejects no order explains; keys at overshoot 0)\n",
           "false_rejects");
    return true;
}

static void write_svg(const char *cmd, const char *path, const struct rl_history *h,
                      const struct rl_lin_result *r)
{
    struct rl_outfile out;
    char err[512];
    if (rl_outfile_open(&out, path, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
    rl_lin_timeline_svg(out.fp, h, r->counter, r->counter_len, r->culprit);
    if (rl_outfile_commit(&out, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
}

/* The verdict and what explains it: the mode, the states, the overshoot
 * score and, not linearizable, the counterexample (its operations indices
 * into h); where says which window it came from ("" for a whole run). */
static void print_verdict(const char *cmd, const struct lin_options *o, const struct rl_history *h,
                          const struct rl_lin_result *r, double secs, const char *where)
{
    char shown[1024];
    printf("%-16s %s\n", "verdict", rl_lin_verdict_name(r->verdict));
    if (r->only_false_rejects)
        printf("%-16s false rejects only: every admit is explained; %llu rejects no order "
               "gives, overshoot 0\n",
               "", (unsigned long long)r->false_rejects);
    printf("%-16s %s (%u of %u keys by witness replay)\n", "mode", r->mode, r->keys_witnessed,
           h->key_count);
    printf("%-16s %llu (budget %llu)\n", "states", (unsigned long long)r->states,
           (unsigned long long)o->budget);
    printf("%-16s %.3f s\n", "time", secs);
    if (r->overshoot_known) {
        printf("%-16s %llu (linearizable against L + %llu)\n", "overshoot",
               (unsigned long long)r->overshoot, (unsigned long long)r->overshoot);
        printf("%-16s %s%llu (the fewest rejects no order explains; keys at overshoot 0%s)\n",
               "false_rejects", r->false_rejects_exact ? "" : "at most ",
               (unsigned long long)r->false_rejects,
               r->false_rejects_exact ? "" : "; the budget ran out before fewer were ruled out");
    } else {
        printf("%-16s unknown (the budget ran out, or no L + k explains the admits)\n",
               "overshoot");
    }
    char kb[32];
    if (r->verdict == RL_LIN_UNKNOWN) {
        const char *key = h->key_names && r->unknown_key < h->key_count
                              ? h->key_names[r->unknown_key]
                              : (snprintf(kb, sizeof kb, "k%u", r->unknown_key), kb);
        printf("\nunknown: the budget of %llu states ran out on key %s after %u of %u keys: at\n"
               "most %zu of its %zu operations placed in one order. Never a pass: raise\n"
               "--budget (a search needs at least one state per operation: %zu for this\n"
               "key), or check a shorter window of the run.\n",
               (unsigned long long)o->budget, rl_table_text(shown, sizeof shown, key),
               r->keys_checked, h->key_count, r->unknown_deepest, r->unknown_ops, r->unknown_ops);
    }
    if (r->verdict == RL_LIN_NO) {
        const char *key = h->key_names && r->failed_key < h->key_count
                              ? h->key_names[r->failed_key]
                              : (snprintf(kb, sizeof kb, "k%u", r->failed_key), kb);
        printf("\ncounterexample%s: %zu operations of key %s (dropping any one makes it\n"
               "linearizable); A admit, R reject, ! the answer no order explains\n",
               where, r->counter_len, rl_table_text(shown, sizeof shown, key));
        rl_lin_timeline_text(stdout, h, r->counter, r->counter_len, r->culprit);
        if (o->svg_path)
            write_svg(cmd, o->svg_path, h, r);
    }
}

/* One window of a run (history.h, # window) judged from its start state:
 * 0 with r filled, exit 2 when the algorithm cannot start from that state. */
static void check_window(const char *cmd, const struct lin_options *o, const struct rl_algo *algo,
                         const struct rl_history *h, uint32_t w, struct rl_history *hw,
                         struct rl_lin_result *r, double *secs)
{
    char err[512];
    if (rl_history_window(h, w, hw) != 0)
        rl_cli_run_error(cmd, "out of memory");
    struct rl_lin_algo ctx;
    struct rl_lin_model model;
    if (rl_lin_model_of(algo, &o->cfg, &ctx, &model, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "--algo %s: %s", algo->name, err);
    const struct rl_hist_window_head *win = &h->windows[w];
    char shown[1024];
    if (win->state &&
        rl_lin_model_start_from(&ctx, win->state, win->state_len, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "%s: line %u: window %u's state: %s",
                           rl_table_text(shown, sizeof shown, o->events_path), win->line, w, err);
    struct rl_lin_options lo = {.budget = o->budget, .no_witness = o->search};
    double t0 = (double)rl_monotonic_ns() / 1e9;
    if (rl_lin_check(hw, &model, &lo, r, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
    *secs = (double)rl_monotonic_ns() / 1e9 - t0;
    rl_lin_model_free(&ctx);
}

/* A history of several windows: each judged on its own from its start
 * state, a row each; overall not linearizable when one is, unknown when
 * one is and none is not, else linearizable. The verdict block below sums
 * the states and false rejects, takes the largest overshoot and shows the
 * deciding window's counterexample. */
static int check_windows(const char *cmd, const struct lin_options *o, const struct rl_algo *algo,
                         struct rl_history *h)
{
    char interval[RL_DURATION_BUF_LEN], shown[1024];
    printf("check --linearizable: %zu operations in %u windows, %u threads, %u keys from %s\n",
           h->len, h->window_count, thread_count(h), h->key_count,
           rl_table_text(shown, sizeof shown, o->events_path));
    printf("algorithm %s, L=%llu per %s; each window from the state it started in\n\n", algo->name,
           (unsigned long long)o->cfg.limit,
           rl_format_duration_ns(o->cfg.interval_ns, interval, sizeof interval));
    printf("%-6s %12s %10s  %-17s %-15s %10s\n", "window", "start ms", "operations", "verdict",
           "mode", "states");
    struct rl_lin_result total = {.verdict = RL_LIN_YES,
                                  .mode = "witness",
                                  .overshoot_known = true,
                                  .false_rejects_exact = true};
    struct rl_history decided = {0};
    struct rl_lin_result decided_r = {0};
    uint32_t decided_w = 0;
    double secs = 0;
    for (uint32_t w = 0; w < h->window_count; w++) {
        struct rl_history hw;
        struct rl_lin_result r;
        double s;
        check_window(cmd, o, algo, h, w, &hw, &r, &s);
        secs += s;
        printf("%-6u %12.3f %10zu  %-17s %-15s %10llu\n", w,
               (double)(h->windows[w].start_ns - o->cfg.epoch_ns) / 1e6, hw.len,
               rl_lin_verdict_name(r.verdict), r.mode, (unsigned long long)r.states);
        total.states += r.states;
        if (w == 0 || r.keys_witnessed < total.keys_witnessed)
            total.keys_witnessed = r.keys_witnessed; /* the fewest in any window */
        if (strcmp(r.mode, "witness") != 0)
            total.mode = "witness+search";
        if (!r.overshoot_known)
            total.overshoot_known = false;
        else if (r.overshoot > total.overshoot)
            total.overshoot = r.overshoot;
        total.false_rejects += r.false_rejects;
        total.false_rejects_exact &= r.false_rejects_exact;
        /* the first window not linearizable decides, else the first unknown */
        bool decides = (r.verdict == RL_LIN_NO && total.verdict != RL_LIN_NO) ||
                       (r.verdict == RL_LIN_UNKNOWN && total.verdict == RL_LIN_YES);
        if (decides) {
            rl_lin_result_free(&decided_r);
            rl_history_free_window(&decided);
            decided_r = r;
            decided = hw;
            decided_w = w;
            total.verdict = r.verdict;
        } else {
            rl_lin_result_free(&r);
            rl_history_free_window(&hw);
        }
    }
    if (total.verdict != RL_LIN_YES) {
        /* the deciding window's own explanation, with the sums above */
        struct rl_lin_result shown_r = decided_r;
        shown_r.states = total.states;
        shown_r.mode = total.mode;
        shown_r.overshoot_known = total.overshoot_known;
        shown_r.overshoot = total.overshoot;
        shown_r.false_rejects = total.false_rejects;
        shown_r.false_rejects_exact = total.false_rejects_exact;
        char where[48];
        snprintf(where, sizeof where, " in window %u", decided_w);
        printf("\n%-16s window %u decides\n", "overall", decided_w);
        print_verdict(cmd, o, &decided, &shown_r, secs, where);
    } else {
        total.only_false_rejects = false;
        printf("\n%-16s every window linearizable\n", "overall");
        print_verdict(cmd, o, h, &total, secs, "");
    }
    int status = total.verdict == RL_LIN_YES ? 0 : total.verdict == RL_LIN_NO ? 1 : 3;
    rl_lin_result_free(&decided_r);
    rl_history_free_window(&decided);
    rl_history_free(h);
    return status;
}

int rl_cmd_check_linearizable(int argc, char **argv)
{
    const char *cmd = "check";
    struct lin_options o = {.budget = DEFAULT_BUDGET};
    rl_cli_limiter_defaults(&o.cfg);
    if (!parse_lin_options(cmd, argc, argv, &o))
        return 0;
    const struct rl_algo *algo = rl_registry_find(o.algo_name);
    if (algo == NULL)
        rl_cli_usage_error(cmd, "unknown --algo '%s' (ratelab list names them)", o.algo_name);
    if (algo->flags & RL_REMOTE)
        rl_cli_usage_error(cmd,
                           "--algo %s decides on a server: its sequential self cannot be "
                           "replayed here",
                           algo->name);
    if (!o.search && streamed(cmd, &o, algo))
        return 0;
    char err[512];
    struct rl_history h;
    if (rl_history_read(o.events_path, &h, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "%s", err);
    check_algo(cmd, &o, h.algo, algo);
    o.cfg.epoch_ns = h.has_epoch ? h.epoch_ns : 0;
    if (h.window_count > 0)
        return check_windows(cmd, &o, algo, &h);
    struct rl_lin_algo ctx;
    struct rl_lin_model model;
    if (rl_lin_model_of(algo, &o.cfg, &ctx, &model, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "--algo %s: %s", algo->name, err);

    struct rl_lin_options lo = {.budget = o.budget, .no_witness = o.search};
    struct rl_lin_result r;
    double t0 = (double)rl_monotonic_ns() / 1e9;
    if (rl_lin_check(&h, &model, &lo, &r, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
    double t1 = (double)rl_monotonic_ns() / 1e9;

    char interval[RL_DURATION_BUF_LEN], shown[1024];
    printf("check --linearizable: %zu operations, %u threads, %u keys from %s\n", h.len,
           thread_count(&h), h.key_count, rl_table_text(shown, sizeof shown, o.events_path));
    printf("algorithm %s, L=%llu per %s\n\n", algo->name, (unsigned long long)o.cfg.limit,
           rl_format_duration_ns(o.cfg.interval_ns, interval, sizeof interval));
    print_verdict(cmd, &o, &h, &r, t1 - t0, "");
    int status = r.verdict == RL_LIN_YES ? 0 : r.verdict == RL_LIN_NO ? 1 : 3;
    rl_lin_result_free(&r);
    rl_lin_model_free(&ctx);
    rl_history_free(&h);
    return status;
}
