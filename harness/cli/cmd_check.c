/* cmd_check.c — `ratelab check`: the checker on any decision log. */
#include "check_linearizable.h"
#include "check_shape.h"
#include "cli.h"
#include "commands.h"
#include "parse.h"
#include "set_rate_option.h"
#include "table.h"
#include "harness/check/check_file.h"
#include "harness/check/check_merge.h"
#include "harness/check/event_reader.h"
#include "harness/check/verdict.h"
#include "harness/io/errmsg.h"
#include "harness/io/same_file.h"
#include "harness/report/result.h"
#include "harness/sys/clock.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void check_help(void)
{
    printf("usage: ratelab check --events FILE --limit L --interval DUR [--epoch DUR]\n"
           "                     [--promise strong|weak|window|bucket [--burst B]]\n"
           "                     [--promise shape [--burst B] [--max-wait DUR]\n"
           "                      [--set-rate AT:L[/I],...]]\n"
           "                     [--admits-only] [--per-key] [--format table|csv|json]\n"
           "                     [--out FILE.csv] [--reorder LINES]\n"
           "       ratelab check --events FILE|DIR [--events FILE|DIR ...] [--skew DUR] ...\n"
           "       ratelab check --linearizable --algo NAME ... (its own --help)\n\n"
           "Checks a decision log from ratelab (sim, replay or stress --decisions) or from\n"
           "any other system, and with --promise judges it as sim judges an algorithm.\n"
           "FILE is CSV with header t_ns,key,n,admitted,thread, or t_ns,key,n,admitted\n"
           "(thread 0); admitted is 0 or 1. Lines may come in any order: they are sorted by\n"
           "time, stably (equal times keep their file order), before anything is measured.\n"
           "The file is streamed: memory grows with the keys and what their windows hold,\n"
           "not with the length of the log (see --reorder).\n"
           "Reports per key and worst key: max admitted cost in any sliding window [t, t+I)\n"
           "and any aligned window [epoch+kI, epoch+(k+1)I), the excess over L, strong\n"
           "violations, and false admits/rejects against ideal strong (sliding log) and weak\n"
           "(aligned window) oracles replaying the same attempts.\n\n"
           "The limit checked against (both required):\n"
           "  --limit L         admitted cost per interval\n"
           "  --interval DUR    interval I, e.g. 100ms, 1s\n\n"
           "  --promise P       judge the log by promise P and print held yes or no, by\n"
           "                    sim's rule (docs/design.md, Definitions), for every key:\n"
           "                    strong  max_sliding <= L\n"
           "                    weak    max_aligned <= L (aligned from --epoch)\n"
           "                    window  max_sliding <= 2L and window_excess = 0\n"
           "                    bucket  max_sliding <= B + L\n"
           "                    (concurrency is judged on permits held at once, which\n"
           "                    needs release events: stress measures it, a log cannot)\n"
           "                    shape   a shaped log (header with release_ns: sim with a\n"
           "                            shaper or --max-wait): releases causal and within\n"
           "                            B + L·u/I in any span u, no admit waiting longer\n"
           "                            than the max wait and no reject the ideal schedule\n"
           "                            would have released in time; the distance from that\n"
           "                            ideal schedule (GCRA virtual scheduling) is reported\n"
           "  --burst B         bucket capacity for --promise bucket or shape (default L)\n"
           "  --max-wait DUR    --promise shape: the longest wait a caller accepted\n"
           "                    (0s to 86400s); without it any wait is accepted\n"
           "  --set-rate LIST   --promise shape: the run's rate changes (sim --set-rate's\n"
           "                    LIST: AT:L or AT:L/I, comma-separated, I default --interval).\n"
           "                    Each side is judged at its own rate: any span allowed B plus\n"
           "                    the allowance of each rate over its part of the span; the\n"
           "                    ideal schedule knows the changes; old_rate_releases counts\n"
           "                    releases after a change that broke the curve and kept the\n"
           "                    old rate's (reservations made before it)\n"
           "  --epoch DUR       where aligned windows start, in log time (default 0ns)\n"
           "  --admits-only     the log holds admits only (stress --decisions, a service's\n"
           "                    access log): the maxima, excesses, violations and the\n"
           "                    promise still hold, but the oracles need every attempt, so\n"
           "                    false admits/rejects and utilization are left out\n"
           "  --per-key         one line per key as well. The table shows a key over 40\n"
           "                    bytes (here and as worst_key) as its first 40 bytes and\n"
           "                    its length, ab…(300 bytes); csv and json keep it whole\n"
           "  --format F        standard output: table (default), csv (a line for all keys,\n"
           "                    key *, then one per key with --per-key; with --promise, the\n"
           "                    columns promise and held) or json\n"
           "  --out FILE        also write the csv lines to FILE, under a temporary name,\n"
           "                    then renamed; - writes them to standard output in place of\n"
           "                    the table; not the --events file (exit 2, nothing written)\n"
           "  --reorder LINES   how far out of time order the log may be as it streams: a\n"
           "                    line may come after up to LINES lines with later times\n"
           "                    (default %d). A log further out of order is read again\n"
           "                    and sorted in memory (the same numbers, memory growing\n"
           "                    with the log, a note on stderr), or refused if a pipe\n\n"
           "Several logs (one per node, as stress --nodes writes them):\n"
           "  --events FILE     given again for each log; --events DIR takes DIR/*.csv,\n"
           "                    sorted by name. The logs are merged in time order as they\n"
           "                    stream (equal times: in the order listed); a key is one\n"
           "                    key in every log. The figures are the merged log's, and\n"
           "                    a line per log gives that log alone. All logs have one\n"
           "                    header; one file named twice is bad input. A last line\n"
           "                    cut short (no end of line: a node died mid-write) is\n"
           "                    dropped with a note, and the log up to it checked\n"
           "  --skew DUR        the logs' clocks may each be off by up to ±DUR (under\n"
           "                    half of --interval; default 0s). held is then no only if\n"
           "                    every shift within the skew breaks the promise (windows\n"
           "                    of I - 2·DUR), yes only if none can (windows of I + 2·DUR),\n"
           "                    and uncertain between (exit 0): docs/commands.md, check\n\n"
           "Exit status: 0 the promise held (or no --promise), 1 the promise is broken\n"
           "(or the check failed: out of memory, an --out file not written; one line on\n"
           "stderr then), 2 bad input (options, or a log that cannot be read).\n",
           RL_CHECK_FILE_REORDER);
}

static const char *const metric_names[] = {"attempts",
                                           "admits",
                                           "rejects",
                                           "admitted_cost",
                                           "max_sliding",
                                           "max_aligned",
                                           "strong_excess",
                                           "strong_violations",
                                           "weak_excess",
                                           "false_admits",
                                           "false_rejects",
                                           "weak_false_admits",
                                           "weak_false_rejects",
                                           "window_excess",
                                           NULL};

/* The metrics that replay the attempts through an oracle: meaningless
 * without the rejects. */
static bool needs_rejects(size_t metric)
{
    return strstr(metric_names[metric], "false_") != NULL;
}

static void metric_values(const struct rl_key_metrics *m, unsigned long long *v)
{
    unsigned long long values[] = {
        m->attempts,           m->admits,       m->rejects,       m->admitted_cost,
        m->max_sliding,        m->max_aligned,  m->strong_excess, m->strong_violations,
        m->weak_excess,        m->false_admits, m->false_rejects, m->weak_false_admits,
        m->weak_false_rejects, m->window_excess};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++)
        v[i] = values[i];
}

/* The log's key names, by id. */
struct key_names {
    char *const *names;
    uint32_t count;
};

static const char *key_name(const struct key_names *log, uint32_t key, char *buf, size_t len)
{
    if (log->names && key < log->count)
        return log->names[key];
    snprintf(buf, len, "k%u", key);
    return buf;
}

/* A key as the tables show it: cut to a readable length with its full
 * length said (rl_quote_field), then made safe for a terminal. CSV and
 * JSON take key_name, whole. */
#define SHOWN_KEY_LEN (4 * RL_QUOTE_LEN)

static const char *shown_key(const struct key_names *log, uint32_t key, char *buf, size_t len)
{
    char id[32], cut[RL_QUOTE_LEN];
    const char *name = key_name(log, key, id, sizeof id);
    return rl_table_text(buf, len, rl_quote_field(cut, sizeof cut, name, strlen(name)));
}

#define METRIC_COUNT (sizeof metric_names / sizeof metric_names[0] - 1)

/* ---- --promise ----------------------------------------------------------- */

/* The promises a decision log can be judged by, by name; exits 2 on any
 * other. concurrency bounds the permits held at once, which needs the
 * releases, and a log has only decisions. */
static enum rl_promise parse_promise(const char *cmd, const char *arg)
{
    static const enum rl_promise judged[] = {RL_PROMISE_STRONG, RL_PROMISE_WEAK, RL_PROMISE_WINDOW,
                                             RL_PROMISE_BUCKET};
    for (size_t i = 0; i < sizeof judged / sizeof judged[0]; i++)
        if (strcmp(arg, rl_promise_name(judged[i])) == 0)
            return judged[i];
    if (strcmp(arg, rl_promise_name(RL_PROMISE_CONCURRENCY)) == 0)
        rl_cli_usage_error(cmd, "--promise concurrency cannot be judged from a decision log: it "
                                "bounds permits held at once, and a log has no releases (stress "
                                "measures it as max_in_flight)");
    rl_cli_usage_error(
        cmd, "unknown --promise '%s' (accepted: strong, weak, window, bucket, shape)", arg);
}

/* The promise to judge, with the limit (and burst) it is judged against. */
struct judge {
    bool given;
    enum rl_promise promise; /* for its name */
    struct rl_promised promised;
};

/* The verdict sim gives (harness/check/verdict.h) on a log whose decisions
 * were all checked, none dropped and none an error: "yes" or "no", judged on
 * the certain maxima, which equal the plain ones in a log (no certainty
 * gaps). */
static const char *promise_held(const struct judge *j, const struct rl_key_metrics *m)
{
    const struct rl_run_facts run = {.checked = true, .m = m};
    return rl_held_name(rl_verdict(&j->promised, &run));
}

/* The verdict on merged logs (check_merge.h): certain lower bounds in m,
 * possible upper bounds beside, so a skew can leave it uncertain. NULL mc:
 * one log, promise_held. */
static const char *held_of(const struct judge *j, const struct rl_merged_check *mc,
                           const struct rl_key_metrics *m, long key)
{
    if (mc == NULL)
        return promise_held(j, m);
    const struct rl_run_facts run = {.checked = true,
                                     .m = key < 0 ? &mc->certain_total : &mc->certain[key],
                                     .possible =
                                         key < 0 ? &mc->possible_total : &mc->possible[key]};
    return rl_held_name(rl_verdict(&j->promised, &run));
}

struct checked {
    const struct key_names *log;
    const struct rl_check_result *res;
    const struct judge *judge;
    bool per_key;
    const struct rl_merged_check *merged; /* several logs, or a skew; NULL: one log */
};

static void fill_metrics(struct rl_cli_sheet *s, const struct rl_key_metrics *m, bool complete)
{
    unsigned long long v[16];
    metric_values(m, v);
    for (size_t i = 0; metric_names[i]; i++)
        if (complete || !needs_rejects(i))
            rl_cli_sheet_u64(s, v[i]);
        else
            rl_cli_sheet_empty(s);
    rl_cli_sheet_real(s, rl_check_utilization(m, complete));
}

/* The merged csv: a log column first (* for the logs merged), the bounds
 * after utilization, then a line per log, that log alone. */
static void fill_merged_csv(struct rl_cli_sheet *s, const struct checked *c)
{
    const struct rl_merged_check *mc = c->merged;
    const struct rl_check_result *res = c->res;
    char buf[32];
    for (long k = -1; k < (c->per_key ? (long)res->key_count : 0); k++) {
        const struct rl_key_metrics *m = k < 0 ? &res->total : &res->per_key[k];
        rl_cli_sheet_text(s, "*");
        rl_cli_sheet_text(s, k < 0 ? "*" : key_name(c->log, (uint32_t)k, buf, sizeof buf));
        fill_metrics(s, m, res->complete);
        rl_cli_sheet_u64(s, (k < 0 ? &mc->certain_total : &mc->certain[k])->certain_max_sliding);
        rl_cli_sheet_u64(s, (k < 0 ? &mc->possible_total : &mc->possible[k])->max_sliding);
        if (c->judge->given) {
            rl_cli_sheet_text(s, rl_promise_name(c->judge->promise));
            rl_cli_sheet_text(s, held_of(c->judge, mc, m, k));
        }
    }
    for (size_t j = 0; j < mc->log_count; j++) {
        rl_cli_sheet_text(s, mc->logs[j].path);
        rl_cli_sheet_text(s, "*");
        fill_metrics(s, &mc->logs[j].result.total, false);
        rl_cli_sheet_empty(s);
        rl_cli_sheet_empty(s);
        if (c->judge->given) {
            rl_cli_sheet_empty(s);
            rl_cli_sheet_empty(s);
        }
    }
}

static void fill_csv(struct rl_cli_sheet *s, const void *data)
{
    const struct checked *c = data;
    if (c->merged) {
        fill_merged_csv(s, c);
        return;
    }
    const struct rl_check_result *res = c->res;
    unsigned long long v[16];
    char buf[32];
    for (long k = -1; k < (c->per_key ? (long)res->key_count : 0); k++) {
        const struct rl_key_metrics *m = k < 0 ? &res->total : &res->per_key[k];
        metric_values(m, v);
        rl_cli_sheet_text(s, k < 0 ? "*" : key_name(c->log, (uint32_t)k, buf, sizeof buf));
        for (size_t i = 0; metric_names[i]; i++)
            if (res->complete || !needs_rejects(i))
                rl_cli_sheet_u64(s, v[i]);
            else
                rl_cli_sheet_empty(s);
        rl_cli_sheet_real(s, rl_check_utilization(m, res->complete));
        if (c->judge->given) {
            rl_cli_sheet_text(s, rl_promise_name(c->judge->promise));
            rl_cli_sheet_text(s, promise_held(c->judge, m));
        }
    }
}

static void print_json_metrics(const struct rl_key_metrics *m, bool complete)
{
    unsigned long long v[16];
    metric_values(m, v);
    printf("{");
    for (size_t i = 0; metric_names[i]; i++)
        if (complete || !needs_rejects(i))
            printf("%s\"%s\": %llu", i ? ", " : "", metric_names[i], v[i]);
        else
            printf("%s\"%s\": null", i ? ", " : "", metric_names[i]);
    double u = rl_check_utilization(m, complete);
    if (isfinite(u))
        printf(", \"utilization\": %.6g}", u);
    else
        printf(", \"utilization\": null}");
}

/* The merged logs' part of the json: the skew, the bounds and each log. */
static void print_json_merged(const struct rl_merged_check *mc)
{
    printf(",\n  \"skew_ns\": %llu,\n  \"certain_max_sliding\": %llu,\n"
           "  \"possible_max_sliding\": %llu,\n  \"logs\": [",
           (unsigned long long)mc->skew_ns,
           (unsigned long long)mc->certain_total.certain_max_sliding,
           (unsigned long long)mc->possible_total.max_sliding);
    for (size_t j = 0; j < mc->log_count; j++) {
        const struct rl_merged_log *l = &mc->logs[j];
        printf("%s\n    {\"path\": ", j ? "," : "");
        rl_json_string(stdout, l->path);
        printf(", \"decisions\": %llu, \"dropped_line\": ", (unsigned long long)l->events);
        if (l->dropped_line)
            printf("%zu", l->dropped_line);
        else
            printf("null");
        printf(", \"metrics\": ");
        print_json_metrics(&l->result.total, false);
        printf("}");
    }
    printf("\n  ]");
}

static void print_json(const struct key_names *log, const struct rl_check_result *res,
                       const struct judge *judge, bool per_key, const struct rl_merged_check *mc)
{
    char buf[32];
    printf("{\n  \"total\": ");
    print_json_metrics(&res->total, res->complete);
    printf(",\n  \"worst_key\": ");
    rl_json_string(stdout, key_name(log, res->worst_key, buf, sizeof buf));
    if (mc)
        print_json_merged(mc);
    if (judge->given)
        printf(",\n  \"promise\": \"%s\",\n  \"held\": \"%s\"", rl_promise_name(judge->promise),
               held_of(judge, mc, &res->total, -1));
    if (per_key) {
        printf(",\n  \"per_key\": [");
        for (uint32_t k = 0; k < res->key_count; k++) {
            printf("%s\n    {\"key\": ", k ? "," : "");
            rl_json_string(stdout, key_name(log, k, buf, sizeof buf));
            printf(", \"metrics\": ");
            print_json_metrics(&res->per_key[k], res->complete);
            if (judge->given)
                printf(", \"held\": \"%s\"", held_of(judge, mc, &res->per_key[k], (long)k));
            printf("}");
        }
        printf("\n  ]");
    }
    printf("\n}\n");
}

static void print_per_key(const struct key_names *log, const struct rl_check_result *res,
                          const struct judge *judge, const struct rl_merged_check *mc);

/* A log's path as its table line shows it: its last 31 bytes after "…"
 * when longer than 32 (a node's log differs from the next in its name, at
 * the end), never half a UTF-8 character, made safe for a terminal. */
static const char *shown_path(const char *path, char *buf, size_t len)
{
    char cut[64];
    size_t n = strlen(path);
    if (n > 32) {
        const char *tail = path + n - 31;
        while ((*tail & 0xC0) == 0x80)
            tail++;
        snprintf(cut, sizeof cut, "…%s", tail);
        path = cut;
    }
    return rl_table_text(buf, len, path);
}

/* The merged logs' lines of the table: the bounds the verdict weighs, then
 * each log alone. */
static void print_merged_table(const struct rl_merged_check *mc,
                               const struct rl_check_params *params)
{
    double limit = (double)params->limit;
    uint64_t lo = mc->certain_total.certain_max_sliding, hi = mc->possible_total.max_sliding;
    printf("%-20s %14llu   (%.3f L)\n", "certain_max_sliding", (unsigned long long)lo,
           (double)lo / limit);
    printf("%-20s %14llu   (%.3f L)\n", "possible_max_sliding", (unsigned long long)hi,
           (double)hi / limit);
    printf("\n%-32s %12s %10s %12s %12s\n", "log", "decisions", "admits", "max_sliding",
           "max_aligned");
    for (size_t j = 0; j < mc->log_count; j++) {
        const struct rl_key_metrics *m = &mc->logs[j].result.total;
        char shown[1024];
        printf("%-32s %12llu %10llu %12llu %12llu\n",
               shown_path(mc->logs[j].path, shown, sizeof shown),
               (unsigned long long)mc->logs[j].events, (unsigned long long)m->admits,
               (unsigned long long)m->max_sliding, (unsigned long long)m->max_aligned);
    }
}

static void print_table(const struct key_names *log, const struct rl_check_result *res,
                        const struct rl_check_params *params, const struct judge *judge,
                        bool per_key, const struct rl_merged_check *mc)
{
    unsigned long long v[16];
    metric_values(&res->total, v);
    printf("%-20s %14s\n", "metric", "value");
    for (size_t i = 0; metric_names[i]; i++) {
        if (!res->complete && needs_rejects(i)) {
            printf("%-20s %14s\n", metric_names[i], "n/a");
            continue;
        }
        printf("%-20s %14llu", metric_names[i], v[i]);
        if (i == 4 || i == 5) /* the two maxima, as multiples of L */
            printf("   (%.3f L)", (double)v[i] / (double)params->limit);
        printf("\n");
    }
    double u = rl_check_utilization(&res->total, res->complete);
    if (isfinite(u))
        printf("%-20s %14.4f\n", "utilization", u);
    char buf[SHOWN_KEY_LEN];
    printf("%-20s %14s\n", "worst_key", shown_key(log, res->worst_key, buf, sizeof buf));
    if (judge->given) {
        char rule[96];
        rl_verdict_rule(&judge->promised, rule, sizeof rule);
        printf("%-20s %14s   (%s, every key)\n", "promise", rl_promise_name(judge->promise), rule);
        printf("%-20s %14s\n", "held", held_of(judge, mc, &res->total, -1));
    }
    if (mc)
        print_merged_table(mc, params);
    if (per_key)
        print_per_key(log, res, judge, mc);
    printf("\n(N L): the maximum as a multiple of L; n/a: needs the rejects, which an\n"
           "admits-only log lacks. max_sliding, max_aligned: the most cost admitted in any\n"
           "window [t, t+I) and [epoch + k·I, epoch + (k+1)·I); false_adm, false_rej (and the\n"
           "false_* lines): admitted here and rejected by the oracle replaying the same attempts\n"
           "(the sliding log; weak_: the aligned window), and the reverse; worst_key: the key\n"
           "with the largest max_sliding. Every metric: results/README.md (check).\n");
    if (judge->given && mc == NULL)
        printf("held: the promise kept by every key, judged as sim judges it (yes or no).\n");
    if (mc)
        printf("Merged logs: the figures above are the logs' decisions merged at their stamps;\n"
               "certain_max_sliding: the most every clock shift within the skew keeps in one\n"
               "window (windows of I - 2·skew, and each log's own windows of I);\n"
               "possible_max_sliding: the most some shift may put in one (windows of I + 2·skew);\n"
               "a log line: that log alone. held: yes when kept under every shift, no when\n"
               "broken under every shift, uncertain between (docs/commands.md, check).\n");
}

static void print_per_key(const struct key_names *log, const struct rl_check_result *res,
                          const struct judge *judge, const struct rl_merged_check *mc)
{
    char buf[SHOWN_KEY_LEN];
    printf("\n%-16s %10s %10s %12s %12s %10s %10s%s\n", "key", "admits", "rejects", "max_sliding",
           "max_aligned", "false_adm", "false_rej", judge->given ? "  held" : "");
    for (uint32_t k = 0; k < res->key_count; k++) {
        const struct rl_key_metrics *m = &res->per_key[k];
        printf("%-16s %10llu %10llu %12llu %12llu", shown_key(log, k, buf, sizeof buf),
               (unsigned long long)m->admits, (unsigned long long)m->rejects,
               (unsigned long long)m->max_sliding, (unsigned long long)m->max_aligned);
        if (res->complete)
            printf(" %10llu %10llu", (unsigned long long)m->false_admits,
                   (unsigned long long)m->false_rejects);
        else
            printf(" %10s %10s", "n/a", "n/a");
        if (judge->given)
            printf("  %4s", held_of(judge, mc, m, (long)k));
        printf("\n");
    }
}

/* The csv view and --out (results/README.md): key, every metric,
 * utilization, and promise and held when a promise is judged. */
static void sheet_columns(const struct judge *judge, bool merged, const char **columns, size_t len)
{
    size_t n = 0;
    if (merged)
        columns[n++] = "log";
    columns[n++] = "key";
    for (size_t i = 0; metric_names[i] && n + 6 < len; i++)
        columns[n++] = metric_names[i];
    columns[n++] = "utilization";
    if (merged) {
        columns[n++] = "certain_max_sliding";
        columns[n++] = "possible_max_sliding";
    }
    if (judge->given) {
        columns[n++] = "promise";
        columns[n++] = "held";
    }
    columns[n] = NULL;
}

/* What the command line asks for. */
struct check_options {
    const char *events_path; /* the first --events */
    /* Every --events as given, then (expand_events) the logs they name: a
     * folder's *.csv files by name. merged: several logs, a folder or a
     * skew, checked by check_merge.h. */
    const char **given, **logs;
    size_t given_len, log_len, log_cap;
    bool merged, skew_given;
    uint64_t skew_ns;
    struct rl_config cfg;
    struct judge judge;
    uint64_t epoch_ns, reorder;
    bool per_key, admits_only, limit_given, interval_given;
    bool shape, max_wait_set; /* --promise shape (check_shape.c), --max-wait */
    uint64_t max_wait_ns;
    const char *set_rate; /* --set-rate's text, parsed once --interval is known */
    struct rl_rate_change rates[RL_MAX_RATE_CHANGES];
    size_t rate_count;
    struct rl_cli_output output;
};

/* Takes every "--events FILE" and "--events=FILE" out of argv into
 * o->given: rl_cli_getopt refuses an option given twice, and --events is
 * the one check takes again and again (one log each). Stops at "--". */
static void take_events(int *argc, char **argv, struct check_options *o)
{
    o->given = calloc((size_t)*argc, sizeof *o->given);
    if (o->given == NULL)
        rl_cli_run_error("check", "%s", strerror(ENOMEM));
    int kept = 1;
    for (int i = 1; i < *argc; i++) {
        if (strcmp(argv[i], "--") == 0) {
            while (i < *argc)
                argv[kept++] = argv[i++];
            break;
        }
        if (strcmp(argv[i], "--events") == 0 && i + 1 < *argc)
            o->given[o->given_len++] = argv[++i];
        else if (strncmp(argv[i], "--events=", 9) == 0)
            o->given[o->given_len++] = argv[i] + 9;
        else
            argv[kept++] = argv[i];
    }
    argv[kept] = NULL;
    *argc = kept;
}

static void add_log(const char *cmd, struct check_options *o, const char *path)
{
    if (o->log_len == o->log_cap) {
        size_t cap = o->log_cap ? 2 * o->log_cap : 16;
        const char **logs = realloc(o->logs, cap * sizeof *logs);
        if (logs == NULL)
            rl_cli_run_error(cmd, "%s", strerror(ENOMEM));
        o->logs = logs;
        o->log_cap = cap;
    }
    o->logs[o->log_len++] = path;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_csv(const struct dirent *d)
{
    size_t len = strlen(d->d_name);
    return d->d_name[0] != '.' && len > 4 && strcmp(d->d_name + len - 4, ".csv") == 0;
}

/* A folder's logs: its *.csv files sorted by name (stress --nodes writes
 * node-<i>.csv there), each named FOLDER/NAME. Exits 2 when there are none. */
static void add_folder(const char *cmd, struct check_options *o, const char *folder)
{
    struct dirent **names;
    int n = scandir(folder, &names, is_csv, by_name);
    if (n < 0)
        rl_cli_usage_error(cmd, "--events %s: cannot read the folder: %s", folder, strerror(errno));
    if (n == 0)
        rl_cli_usage_error(cmd, "--events %s: a folder with no *.csv log in it", folder);
    size_t len = strlen(folder);
    bool slash = len > 0 && folder[len - 1] == '/';
    for (int i = 0; i < n; i++) {
        char *path = malloc(len + strlen(names[i]->d_name) + 2);
        if (path == NULL)
            rl_cli_run_error(cmd, "%s", strerror(ENOMEM));
        sprintf(path, "%s%s%s", folder, slash ? "" : "/", names[i]->d_name);
        add_log(cmd, o, path); /* freed at exit: the process ends after the check */
        free(names[i]);
    }
    free(names);
}

/* The logs the --events name, and whether they are checked merged; exits 2
 * when one file is named twice (two paths, one file: its decisions would
 * count twice). */
static void expand_events(const char *cmd, struct check_options *o)
{
    bool folder = false;
    for (size_t i = 0; i < o->given_len; i++) {
        struct stat st;
        if (stat(o->given[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            folder = true;
            add_folder(cmd, o, o->given[i]);
        } else {
            add_log(cmd, o, o->given[i]);
        }
    }
    o->merged = o->given_len > 1 || folder || o->skew_given;
    struct rl_file_id *ids = calloc(o->log_len, sizeof *ids);
    if (ids == NULL)
        rl_cli_run_error(cmd, "%s", strerror(ENOMEM));
    for (size_t i = 0; i < o->log_len; i++) {
        rl_file_identify(o->logs[i], &ids[i]);
        for (size_t j = 0; j < i; j++)
            if (ids[i].kind == RL_FILE_EXISTING && rl_file_same(&ids[i], &ids[j]))
                rl_cli_usage_error(cmd,
                                   "--events names one log twice (%s and %s): its decisions "
                                   "would count twice",
                                   o->logs[j], o->logs[i]);
    }
    free(ids);
}

/* The options, each checked as it comes and together after; exits 2 with
 * one line on any bad one. false: --help was asked for and printed (main
 * still checks that stdout was written). */
static bool parse_options(const char *cmd, int argc, char **argv, struct check_options *o)
{
    enum { OPT_PROMISE = 10000, OPT_REORDER, OPT_SKEW }; /* check's own */
    static const struct option options[] = {RL_CLI_HELP_OPTION,
                                            RL_CLI_WINDOW_OPTIONS,
                                            {"events", required_argument, NULL, OPT_EVENTS},
                                            {"epoch", required_argument, NULL, OPT_EPOCH},
                                            {"promise", required_argument, NULL, OPT_PROMISE},
                                            {"burst", required_argument, NULL, OPT_BURST},
                                            {"per-key", no_argument, NULL, OPT_PER_KEY},
                                            {"admits-only", no_argument, NULL, OPT_ADMITS_ONLY},
                                            {"reorder", required_argument, NULL, OPT_REORDER},
                                            {"max-wait", required_argument, NULL, OPT_MAX_WAIT},
                                            {"set-rate", required_argument, NULL, OPT_SET_RATE},
                                            {"skew", required_argument, NULL, OPT_SKEW},
                                            RL_CLI_OUTPUT_OPTIONS,
                                            {0}};
    char err[512];
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        switch (code) {
        case OPT_HELP:
            check_help();
            return false;
        case OPT_EVENTS: /* an abbreviation (--eve); take_events took the rest */
            o->given[o->given_len++] = optarg;
            break;
        case OPT_SKEW:
            if (rl_parse_duration_ns(optarg, &o->skew_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--skew: %s", err);
            o->skew_given = true;
            break;
        case OPT_EPOCH:
            if (rl_parse_duration_ns(optarg, &o->epoch_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--epoch: %s", err);
            break;
        case OPT_PROMISE:
            o->shape = strcmp(optarg, "shape") == 0;
            if (!o->shape)
                o->judge.promise = parse_promise(cmd, optarg);
            o->judge.given = true;
            break;
        case OPT_MAX_WAIT:
            if (rl_parse_max_wait_ns(optarg, &o->max_wait_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--max-wait: %s", err);
            o->max_wait_set = true;
            break;
        case OPT_SET_RATE:
            o->set_rate = optarg;
            break;
        case OPT_PER_KEY:
            o->per_key = true;
            break;
        case OPT_ADMITS_ONLY:
            o->admits_only = true;
            break;
        case OPT_REORDER:
            /* 2^24 lines: about 1.5 GB of buffers, as much as sorting that many in memory */
            if (rl_parse_u64(optarg, 0, (uint64_t)1 << 24, &o->reorder, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--reorder: %s", err);
            break;
        default:
            o->limit_given |= code == OPT_LIMIT;
            o->interval_given |= code == OPT_INTERVAL;
            if (!rl_cli_limiter_option(cmd, code, optarg, &o->cfg) &&
                !rl_cli_output_option(cmd, code, optarg, &o->output))
                rl_cli_bad_option(cmd, code, argv);
        }
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (o->given_len == 0)
        rl_cli_usage_error(cmd, "--events FILE is required (CSV: t_ns,key,n,admitted,thread)");
    o->events_path = o->given[0];
    expand_events(cmd, o);
    if (o->merged && o->shape)
        rl_cli_usage_error(cmd, "--promise shape checks one shaped log: not several, a folder or "
                                "--skew");
    if (o->skew_given && o->interval_given && o->skew_ns * 2 >= o->cfg.interval_ns) {
        char skew[RL_DURATION_BUF_LEN], interval[RL_DURATION_BUF_LEN];
        rl_cli_usage_error(cmd,
                           "--skew %s must be under half of --interval %s: a window of "
                           "I - 2·skew is what every clock shift keeps together",
                           rl_format_duration_ns(o->skew_ns, skew, sizeof skew),
                           rl_format_duration_ns(o->cfg.interval_ns, interval, sizeof interval));
    }
    bool judges_burst = o->judge.given && (o->shape || o->judge.promise == RL_PROMISE_BUCKET);
    if (o->cfg.burst != 0 && !judges_burst)
        rl_cli_usage_error(cmd, "--burst B is the capacity for --promise bucket or shape, and no "
                                "other");
    if (o->max_wait_set && !o->shape)
        rl_cli_usage_error(cmd,
                           "--max-wait is the caller's wait for --promise shape, and no other");
    if (o->set_rate && !o->shape)
        rl_cli_usage_error(cmd, "--set-rate is the run's rate changes for --promise shape, and "
                                "no other");
    if (o->set_rate && rl_parse_set_rate(o->set_rate, o->cfg.interval_ns, o->rates, &o->rate_count,
                                         err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "--set-rate: %s", err);
    if (o->shape && (o->per_key || o->admits_only))
        rl_cli_usage_error(cmd, "--promise shape judges every key together from a complete "
                                "log: no --per-key or --admits-only");
    rl_cli_output_check(cmd, &o->output);
    for (size_t i = 0; i < o->log_len; i++) {
        const struct rl_cli_file files[] = {{"--out", o->output.out_path, true},
                                            {"--events", o->logs[i], false}};
        rl_cli_require_distinct_files(cmd, files, sizeof files / sizeof files[0]);
    }
    return true;
}

/* No default for the limit: a limit guessed for the user judges the wrong
 * promise. But a log that cannot be read is named first, so it is read
 * through (validated, nothing measured) before that is said. */
static void require_limit(const char *cmd, const struct check_options *o)
{
    if (o->limit_given && o->interval_given)
        return;
    struct rl_checked_file checked_file;
    char err[512];
    for (size_t i = 0; o->merged && i < o->log_len; i++) {
        struct rl_event_reader reader;
        if (rl_event_reader_open(&reader, o->logs[i], err, sizeof err) != 0)
            rl_cli_usage_error(cmd, "%s", err);
        rl_event_reader_close(&reader);
    }
    if (!o->merged && rl_check_file(o->events_path, NULL, false, 0, &checked_file, err,
                                    sizeof err) == RL_CHECK_FILE_BAD_INPUT)
        rl_cli_usage_error(cmd, "%s", err);
    rl_checked_file_free(&checked_file);
    rl_cli_usage_error(cmd, "%s required: the limit the log is checked against",
                       !o->limit_given && !o->interval_given ? "--limit L and --interval DUR are"
                       : !o->limit_given                     ? "--limit L is"
                                                             : "--interval DUR is");
}

/* The table view: what was read and how fast, then the metrics. */
static void print_table_view(const struct check_options *o, const struct rl_checked_file *file,
                             const struct rl_check_params *params, double seconds)
{
    const struct rl_check_result *res = &file->result;
    const struct key_names log = {file->key_names, file->key_count};
    char interval[RL_DURATION_BUF_LEN], shown[1024];
    printf("check: %llu decisions over %u key%s from %s; L=%llu per %s\n",
           (unsigned long long)file->events, res->key_count, res->key_count == 1 ? "" : "s",
           rl_table_text(shown, sizeof shown, o->events_path), (unsigned long long)o->cfg.limit,
           rl_format_duration_ns(o->cfg.interval_ns, interval, sizeof interval));
    printf("read and checked in %.2f s (%.1f M decisions/s%s)\n\n", seconds,
           seconds > 0 ? (double)file->events / seconds / 1e6 : 0.0,
           file->in_memory ? ", sorted in memory" : ", streamed");
    print_table(&log, res, params, &o->judge, o->per_key, NULL);
    if (res->complete && res->total.rejects == 0 && res->total.max_sliding > o->cfg.limit)
        printf("\nno rejects in the log: if it holds admits only, the false_* and\n"
               "utilization lines above do not apply; run again with --admits-only\n");
}

/* Several logs, a folder or a skew (check_merge.h): the same views, with
 * the bounds and a line per log. */
static int check_merged(const char *cmd, const struct check_options *o)
{
    struct judge judge = o->judge;
    judge.promised = rl_promised_of(judge.promise, &o->cfg, 0);
    struct rl_check_params params = {
        .limit = o->cfg.limit, .interval_ns = o->cfg.interval_ns, .epoch_ns = o->epoch_ns};
    struct rl_merged_check mc;
    char err[512];
    double t0 = (double)rl_monotonic_ns() / 1e9;
    enum rl_check_file_status status =
        rl_check_merged(o->logs, o->log_len, &params, !o->admits_only, o->reorder, o->skew_ns, &mc,
                        err, sizeof err);
    double t1 = (double)rl_monotonic_ns() / 1e9;
    if (status == RL_CHECK_FILE_BAD_INPUT)
        rl_cli_usage_error(cmd, "%s", err);
    if (status != RL_CHECK_FILE_OK)
        rl_cli_run_error(cmd, "%s", err);
    for (size_t j = 0; j < mc.log_count; j++) {
        const struct rl_merged_log *l = &mc.logs[j];
        if (l->dropped_line)
            fprintf(stderr,
                    "ratelab check: note: %s: its last line %zu, cut short without an end of "
                    "line, is dropped (%s); the log up to it is checked\n",
                    l->path, l->dropped_line, l->dropped_why);
        if (l->in_memory)
            fprintf(stderr,
                    "ratelab check: note: %s: more out of time order than --reorder %llu "
                    "allows; sorted in memory instead (memory grows with the log)\n",
                    l->path, (unsigned long long)o->reorder);
    }
    const struct rl_check_result *res = &mc.result;
    const struct key_names log = {mc.key_names, mc.name_count};
    enum rl_cli_format view = rl_cli_output_view(&o->output);
    if (view == RL_FORMAT_JSON) {
        print_json(&log, res, &judge, o->per_key, &mc);
    } else if (view == RL_FORMAT_TABLE) {
        char interval[RL_DURATION_BUF_LEN], skew[RL_DURATION_BUF_LEN];
        printf("check: %llu decisions over %u key%s from %zu log%s merged, clocks within "
               "±%s; L=%llu per %s\n",
               (unsigned long long)mc.events, res->key_count, res->key_count == 1 ? "" : "s",
               mc.log_count, mc.log_count == 1 ? "" : "s",
               rl_format_duration_ns(o->skew_ns, skew, sizeof skew),
               (unsigned long long)o->cfg.limit,
               rl_format_duration_ns(o->cfg.interval_ns, interval, sizeof interval));
        printf("read and checked in %.2f s (%.1f M decisions/s, merged)\n\n", t1 - t0,
               t1 > t0 ? (double)mc.events / (t1 - t0) / 1e6 : 0.0);
        print_table(&log, res, &params, &judge, o->per_key, &mc);
    }
    struct checked checked = {&log, res, &judge, o->per_key, &mc};
    struct rl_cli_output csv = o->output;
    if (view == RL_FORMAT_JSON || view == RL_FORMAT_TABLE)
        csv.format = RL_FORMAT_TABLE;
    const char *columns[METRIC_COUNT + 8];
    sheet_columns(&judge, true, columns, sizeof columns / sizeof columns[0]);
    rl_cli_write_sheet(cmd, &csv, columns, fill_csv, &checked);
    int exit_status =
        judge.given && strcmp(held_of(&judge, &mc, &res->total, -1), "no") == 0 ? 1 : 0;
    rl_merged_check_free(&mc);
    return exit_status;
}

int rl_cmd_check(int argc, char **argv)
{
    const char *cmd = "check";
    for (int i = 1; i < argc; i++) /* a mode of its own, with its own options */
        if (strcmp(argv[i], "--linearizable") == 0)
            return rl_cmd_check_linearizable(argc, argv);
    struct check_options o = {.reorder = RL_CHECK_FILE_REORDER,
                              .output = {.format = RL_FORMAT_TABLE}};
    rl_cli_limiter_defaults(&o.cfg);
    take_events(&argc, argv, &o);
    if (!parse_options(cmd, argc, argv, &o))
        return 0;
    require_limit(cmd, &o);
    if (o.merged)
        return check_merged(cmd, &o);
    if (o.shape) {
        const struct rl_check_shape_request shape = {.events_path = o.events_path,
                                                     .limit = o.cfg.limit,
                                                     .interval_ns = o.cfg.interval_ns,
                                                     .burst = rl_config_burst(&o.cfg),
                                                     .max_wait_set = o.max_wait_set,
                                                     .max_wait_ns = o.max_wait_ns,
                                                     .rates = o.rates,
                                                     .rate_count = o.rate_count,
                                                     .output = &o.output};
        return rl_check_shape(cmd, &shape);
    }
    o.judge.promised = rl_promised_of(o.judge.promise, &o.cfg, 0);
    struct rl_check_params params = {
        .limit = o.cfg.limit, .interval_ns = o.cfg.interval_ns, .epoch_ns = o.epoch_ns};
    struct rl_checked_file checked_file;
    char err[512];
    double t0 = (double)rl_monotonic_ns() / 1e9;
    enum rl_check_file_status file_status = rl_check_file(
        o.events_path, &params, !o.admits_only, o.reorder, &checked_file, err, sizeof err);
    double t1 = (double)rl_monotonic_ns() / 1e9;
    if (file_status == RL_CHECK_FILE_BAD_INPUT)
        rl_cli_usage_error(cmd, "%s", err);
    if (file_status != RL_CHECK_FILE_OK)
        rl_cli_run_error(cmd, "%s", err);
    if (checked_file.in_memory)
        fprintf(stderr,
                "ratelab check: note: %s; checked in memory instead (memory grows with "
                "the log)\n",
                checked_file.why);
    const struct rl_check_result res = checked_file.result;
    const struct key_names log = {checked_file.key_names, checked_file.key_count};

    enum rl_cli_format view = rl_cli_output_view(&o.output);
    if (view == RL_FORMAT_JSON)
        print_json(&log, &res, &o.judge, o.per_key, NULL);
    else if (view == RL_FORMAT_TABLE)
        print_table_view(&o, &checked_file, &params, t1 - t0);
    /* the csv view and --out: the same lines (a json view has its own form above) */
    struct checked checked = {&log, &res, &o.judge, o.per_key, NULL};
    struct rl_cli_output csv = o.output;
    if (view == RL_FORMAT_JSON || view == RL_FORMAT_TABLE)
        csv.format = RL_FORMAT_TABLE;      /* shown above: only --out is left */
    const char *columns[METRIC_COUNT + 8]; /* (log), key, metrics, utilization, (bounds),
                                              promise, held, NULL */
    sheet_columns(&o.judge, false, columns, sizeof columns / sizeof columns[0]);
    rl_cli_write_sheet(cmd, &csv, columns, fill_csv, &checked);
    /* 1 when the promise is broken, for a user's CI (--help, Exit status) */
    int status = o.judge.given && strcmp(promise_held(&o.judge, &res.total), "no") == 0 ? 1 : 0;
    rl_checked_file_free(&checked_file);
    return status;
}
