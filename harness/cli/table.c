/* table.c — aligned text tables of result rows. */
#include "harness/report/stats.h"
#include "table.h"

#include "parse.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The length of a UTF-8 sequence at s that a terminal shows as text: a
 * shortest-form code point from U+00A0 up, not a surrogate and not a
 * bidirectional control (U+200E/F, U+202A-E, U+2066-9); 0 otherwise. */
static size_t printable_utf8(const unsigned char *s)
{
    size_t len = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc0 ? 2 : 0;
    if (len == 0 || s[0] >= 0xf5)
        return 0;
    uint32_t cp = s[0] & (0x7f >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < least[len] || cp < 0xa0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    if (cp == 0x200e || cp == 0x200f || (cp >= 0x202a && cp <= 0x202e) ||
        (cp >= 0x2066 && cp <= 0x2069))
        return 0;
    return len;
}

const char *rl_table_text(char *buf, size_t len, const char *text)
{
    size_t used = 0;
    if (len == 0)
        return buf;
    for (const unsigned char *c = (const unsigned char *)(text ? text : ""); *c;) {
        char piece[8];
        size_t step = printable_utf8(c), n = step;
        if (step) {
            memcpy(piece, c, step);
        } else if (*c == '\\') {
            memcpy(piece, "\\\\", 2);
            step = 1, n = 2;
        } else if (*c >= 0x20 && *c < 0x7f) {
            piece[0] = (char)*c;
            step = n = 1;
        } else {
            snprintf(piece, sizeof piece, "\\x%02x", *c);
            step = 1, n = 4;
        }
        if (used + n >= len)
            break;
        memcpy(buf + used, piece, n);
        used += n;
        c += step;
    }
    buf[used] = '\0';
    return buf;
}

/* Whether any of rows counts errors: the tables show an errors column then. */
static bool any_errors(const struct rl_result *rows, size_t count, const char *mode)
{
    for (size_t i = 0; i < count; i++)
        if (rows[i].errors > 0 && (mode == NULL || strcmp(rows[i].mode, mode) == 0))
            return true;
    return false;
}

/* The name column's width: the longest name shown, at least 20. */
static int name_width(const struct rl_result *rows, size_t count)
{
    int width = 20;
    for (size_t i = 0; i < count; i++) {
        int len = (int)strlen(rows[i].algo->name);
        width = len > width ? len : width;
    }
    return width;
}

static void ratio(char *buf, size_t len, uint64_t value, uint64_t limit)
{
    snprintf(buf, len, "%.3f", (double)value / (double)limit);
}

void rl_table_accuracy(FILE *out, const struct rl_result *rows, size_t count)
{
    int width = name_width(rows, count);
    bool errors = any_errors(rows, count, "sim");
    fprintf(out, "%-*s %-10s %-11s %10s %10s%s %9s %9s %9s %10s %10s %7s %5s\n", width, "algo",
            "workload", "promise", "admits", "rejects", errors ? "     errors" : "", "sliding/L",
            "aligned/L", "strong_v", "false_adm", "false_rej", "util", "held");
    for (size_t i = 0; i < count; i++) {
        const struct rl_result *r = &rows[i];
        if (!r->checked || strcmp(r->mode, "sim") != 0)
            continue;
        char sliding[32], aligned[32], util[32] = "-", fa[32] = "-", fr[32] = "-";
        ratio(sliding, sizeof sliding, r->m.max_sliding, r->cfg.limit);
        ratio(aligned, sizeof aligned, r->m.max_aligned, r->cfg.limit);
        if (r->complete) {
            double u = rl_check_utilization(&r->m, true);
            if (isfinite(u))
                snprintf(util, sizeof util, "%.3f", u);
            snprintf(fa, sizeof fa, "%llu", (unsigned long long)r->m.false_admits);
            snprintf(fr, sizeof fr, "%llu", (unsigned long long)r->m.false_rejects);
        }
        char workload[11], errs[32] = ""; /* 10 bytes at most, no escape cut in two */
        if (errors)
            snprintf(errs, sizeof errs, " %10llu", (unsigned long long)r->errors);
        fprintf(out, "%-*s %-10s %-11s %10llu %10llu%s %9s %9s %9llu %10s %10s %7s %5s\n", width,
                r->algo->name, rl_table_text(workload, sizeof workload, r->workload),
                rl_promise_name(r->algo->promise), (unsigned long long)r->admits,
                (unsigned long long)r->rejects, errs, sliding, aligned,
                (unsigned long long)r->m.strong_violations, fa, fr, util,
                rl_result_promise_held(r));
    }
    fputs("\nsliding/L, aligned/L: the most cost admitted in any sliding window [t, t+I) and in\n"
          "any aligned window [k·I, (k+1)·I), ÷ L; strong_v: admits after which (t − I, t] held\n"
          "more than L; false_adm, false_rej: admitted here and rejected by the exact sliding\n"
          "log replaying the same attempts, and the reverse; util: cost admitted ÷ that\n"
          "oracle's; held: the promise kept (yes, no, or n/a: nothing promised or checked).\n",
          out);
}

static bool seen_before(const struct rl_result *rows, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (strcmp(rows[j].mode, "stress") == 0 && rows[j].algo == rows[i].algo &&
            rows[j].threads == rows[i].threads)
            return true;
    return false;
}

/* One stress line's numbers: every repetition of one algorithm at one
 * thread count, gathered before anything is printed. */
struct speed_group {
    struct rl_spread ns, mops, faa, noop;
    unsigned long long errors;     /* over every repetition */
    const struct rl_result *worst; /* a recorded rep, NULL when none was recorded */
    /* each the largest over the recorded reps: the plain maxima, the one the
     * verdict reads (certain), the admits it left out, the largest gap */
    uint64_t sliding, certain, aligned, excluded, uncertainty_ns;
    struct rl_held_tally held; /* the verdict over the reps (harness/check/verdict.h) */
};

static uint64_t most(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Gathers the reps of rows[lead]'s algorithm and threads; the buffers hold
 * count values each. The timings come from the unrecorded runs when there
 * are any, since recording slows a run down. */
static struct speed_group speed_group(const struct rl_result *rows, size_t count, size_t lead,
                                      double *ns, double *mops, double *faa, double *noop)
{
    const struct rl_result *l = &rows[lead];
    bool any_unrecorded = false;
    for (size_t j = lead; j < count; j++)
        any_unrecorded |= rows[j].algo == l->algo && rows[j].threads == l->threads &&
                          !rows[j].checked && strcmp(rows[j].mode, "stress") == 0;
    struct speed_group g = {.errors = 0};
    size_t n = 0, nf = 0, nn = 0;
    for (size_t j = lead; j < count; j++) {
        const struct rl_result *r = &rows[j];
        if (strcmp(r->mode, "stress") != 0 || r->algo != l->algo || r->threads != l->threads)
            continue;
        if (r->checked) {
            g.worst = r;
            g.sliding = most(g.sliding, r->m.max_sliding);
            g.certain = most(g.certain, rl_result_verdict_measure(r));
            g.aligned = most(g.aligned, r->m.max_aligned);
            g.excluded = most(g.excluded, r->m.uncertain_admits);
            g.uncertainty_ns = most(g.uncertainty_ns, r->uncertainty_ns);
        }
        g.errors += r->errors;
        rl_held_tally_add(&g.held, rl_result_held(r), r->checked, r->errors);
        if (r->checked && any_unrecorded)
            continue;
        ns[n] = r->ns_per_op;
        mops[n] = r->mops;
        n++;
        if (isfinite(r->ratio_faa))
            faa[nf++] = r->ratio_faa;
        if (isfinite(r->ratio_noop))
            noop[nn++] = r->ratio_noop;
    }
    g.ns = rl_spread_of(ns, n);
    g.mops = rl_spread_of(mops, n);
    g.faa = rl_spread_of(faa, nf);
    g.noop = rl_spread_of(noop, nn);
    return g;
}

/* The ns/op spread of `floor` at lead's thread count, count 0 when the
 * table has no such line. */
static struct rl_spread floor_spread(const struct rl_result *rows, size_t count,
                                     const struct rl_result *lead, const char *floor, double *ns,
                                     double *mops, double *faa, double *noop)
{
    for (size_t j = 0; j < count; j++)
        if (strcmp(rows[j].mode, "stress") == 0 && rows[j].threads == lead->threads &&
            strcmp(rows[j].algo->name, floor) == 0)
            return speed_group(rows, count, j, ns, mops, faa, noop).ns;
    return (struct rl_spread){.count = 0};
}

/* Whether two ns/op ranges meet: a difference between them is within the
 * noise of these runs. */
static bool overlap(const struct rl_spread *a, const struct rl_spread *b)
{
    return a->count && b->count && a->min <= b->max && b->min <= a->max;
}

/* How a ratio compares with the noise of its runs: the algorithm's ns/op
 * range meets the floor's (within noise), or one of them is a single run
 * (no range to judge by), or neither. The floor itself is never marked. */
static const char *noise_mark(const struct rl_spread *a, const struct rl_spread *floor,
                              bool is_floor)
{
    if (is_floor || a->count == 0 || floor->count == 0)
        return "";
    if (a->count < 2 || floor->count < 2)
        return "?";
    return overlap(a, floor) ? "~" : "";
}

/* "3.55 (3.10-4.02)", the mark (noise_mark) after the median; "-" without
 * ratios. */
static void ratio_spread(char *buf, size_t len, const struct rl_spread *r, const char *mark)
{
    if (r->count == 0) {
        snprintf(buf, len, "-");
        return;
    }
    const char *fmt = r->max < 1000 ? "%.2f%s (%.2f-%.2f)" : "%.0f%s (%.0f-%.0f)";
    snprintf(buf, len, fmt, r->median, mark, r->min, r->max);
}

/* What one line compares against: the floors' ns/op spreads. */
struct speed_floors {
    struct rl_spread faa, noop;
    bool show_noop; /* some line has a ratio to redis_noop */
};

/* rej%: the share of the group's calls that were rejects, in percent, over
 * the runs its timings come from (unrecorded when there are any): which
 * path of the limiter ns/op timed. -1 when no call was made. */
static double reject_share(const struct rl_result *rows, size_t count, const struct rl_result *lead)
{
    bool any_unrecorded = false;
    for (size_t j = 0; j < count; j++)
        any_unrecorded |= strcmp(rows[j].mode, "stress") == 0 && rows[j].algo == lead->algo &&
                          rows[j].threads == lead->threads && !rows[j].checked;
    uint64_t attempts = 0, rejects = 0;
    for (size_t j = 0; j < count; j++)
        if (strcmp(rows[j].mode, "stress") == 0 && rows[j].algo == lead->algo &&
            rows[j].threads == lead->threads && !(rows[j].checked && any_unrecorded)) {
            attempts += rows[j].attempts;
            rejects += rows[j].rejects;
        }
    return attempts ? 100.0 * (double)rejects / (double)attempts : -1;
}

/* rej% as printed: never "100.00" or "0.00" when some calls went the other way. */
static void reject_cell(char *buf, size_t len, double rejected)
{
    snprintf(buf, len, "-");
    if (rejected > 99.99 && rejected < 100)
        snprintf(buf, len, ">99.99");
    else if (rejected > 0 && rejected < 0.01)
        snprintf(buf, len, "<0.01");
    else if (rejected >= 0)
        snprintf(buf, len, "%.2f", rejected);
}

/* One line of the speed table, for the group rows[lead] leads. */
static void print_speed_line(FILE *out, int width, bool errors, const struct rl_result *lead,
                             const struct speed_group *g, const struct speed_floors *f,
                             double rejected)
{
    char range[48], mops[48], x_faa[48], x_noop[48] = "", sliding[16] = "-", certain[16] = "-",
                                         aligned[16] = "-", excluded[24] = "-", uncert[24] = "-";
    snprintf(range, sizeof range, "(%.1f-%.1f)", g->ns.min, g->ns.max);
    snprintf(mops, sizeof mops, "%.3f (%.1f-%.1f)", g->mops.median, g->mops.min, g->mops.max);
    bool is_faa = strcmp(lead->algo->name, "faa") == 0;
    bool is_noop = strcmp(lead->algo->name, "redis_noop") == 0;
    ratio_spread(x_faa, sizeof x_faa, &g->faa, noise_mark(&g->ns, &f->faa, is_faa));
    if (f->show_noop) {
        char cell[40];
        ratio_spread(cell, sizeof cell, &g->noop, noise_mark(&g->ns, &f->noop, is_noop));
        snprintf(x_noop, sizeof x_noop, " %18s", cell);
    }
    if (g->worst) {
        uint64_t limit = g->worst->cfg.limit;
        ratio(sliding, sizeof sliding, g->sliding, limit);
        ratio(certain, sizeof certain, g->certain, limit);
        ratio(aligned, sizeof aligned, g->aligned, limit);
        snprintf(excluded, sizeof excluded, "%llu", (unsigned long long)g->excluded);
        rl_format_duration_human(g->uncertainty_ns, uncert, sizeof uncert);
    }
    char errs[32] = "";
    if (errors)
        snprintf(errs, sizeof errs, " %11llu", g->errors);
    char rej[16];
    reject_cell(rej, sizeof rej, rejected);
    fprintf(out, "%-*s %6u%s %4zu %9.1f %17s %22s %6s %18s%s%s %9s %9s %9s %8s %9s %9s\n", width,
            lead->algo->name, lead->threads, lead->threads > lead->cpus ? "!" : " ", g->ns.count,
            g->ns.median, range, mops, rej, x_faa, x_noop, errs, sliding, certain, aligned,
            excluded, rl_held_tally_name(&g->held), uncert);
}

/* The lines under the table for keyed runs and for limiters that need
 * release: what a column cannot show. */
static void print_speed_notes(FILE *out, const struct rl_result *rows, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const struct rl_result *r = &rows[i];
        if (r->keys > 1 && isfinite(r->bytes_per_key) && !seen_before(rows, i))
            fprintf(out, "%s x%u: %llu keys live at the end, %.0f bytes a key (RSS growth)\n",
                    r->algo->name, r->threads, (unsigned long long)r->keys_live, r->bytes_per_key);
        if (!r->has_in_flight || seen_before(rows, i))
            continue;
        uint64_t most = 0;
        for (size_t j = i; j < count; j++)
            if (rows[j].algo == r->algo && rows[j].threads == r->threads &&
                rows[j].max_in_flight > most)
                most = rows[j].max_in_flight;
        char hold[RL_DURATION_BUF_LEN];
        fprintf(out, "%s x%u: at most %llu in flight (L = %llu), each permit held %s\n",
                r->algo->name, r->threads, (unsigned long long)most,
                (unsigned long long)r->cfg.limit,
                rl_format_duration_ns(r->hold_ns, hold, sizeof hold));
    }
}

void rl_table_speed(FILE *out, const struct rl_result *rows, size_t count)
{
    int width = name_width(rows, count);
    bool errors = any_errors(rows, count, "stress");
    struct speed_floors floors = {.show_noop = false};
    unsigned cpus = 0;
    bool oversubscribed = false;
    for (size_t i = 0; i < count; i++)
        if (strcmp(rows[i].mode, "stress") == 0) {
            floors.show_noop |= isfinite(rows[i].ratio_noop);
            oversubscribed |= rows[i].threads > rows[i].cpus;
            cpus = rows[i].cpus;
        }
    fprintf(out, "%-*s %7s %4s %9s %17s %22s %6s %18s%s%s %9s %9s %9s %8s %9s %9s\n", width, "algo",
            "threads", "runs", "ns/op", "(min-max)", "Mops/s (min-max)", "rej%", "x faa (min-max)",
            floors.show_noop ? "   x noop (min-max)" : "", errors ? "      errors" : "",
            "sliding/L", "certain/L", "aligned/L", "excluded", "held", "uncert");
    double *ns = malloc((count ? count : 1) * sizeof *ns);
    double *mops = malloc((count ? count : 1) * sizeof *mops);
    double *faa = malloc((count ? count : 1) * sizeof *faa);
    double *noop = malloc((count ? count : 1) * sizeof *noop);
    if (!ns || !mops || !faa || !noop)
        goto done;
    for (size_t i = 0; i < count; i++) {
        if (strcmp(rows[i].mode, "stress") != 0 || seen_before(rows, i))
            continue;
        floors.faa = floor_spread(rows, count, &rows[i], "faa", ns, mops, faa, noop);
        floors.noop = floor_spread(rows, count, &rows[i], "redis_noop", ns, mops, faa, noop);
        struct speed_group g = speed_group(rows, count, i, ns, mops, faa, noop);
        print_speed_line(out, width, errors, &rows[i], &g, &floors,
                         reject_share(rows, count, &rows[i]));
    }
    print_speed_notes(out, rows, count);
    fputs("\nruns: the timed runs each median and (min-max) is taken over (the unrecorded ones\n"
          "when a run was also recorded); ns/op: the time for one call, per thread; Mops/s:\n"
          "million attempts a second, all threads; x faa, x noop: ns/op ÷ that of faa (of\n"
          "redis_noop, the server's floor) in the same rep and thread count, ~ after the median:\n"
          "its ns/op range meets the floor's, a difference within the noise of these runs; ?:\n"
          "one of them is a single run, whose noise is not known.\n"
          "sliding/L, aligned/L: the most cost admitted in a sliding and in an aligned window,\n"
          "÷ L, from the stamps; certain/L: the maximum held is judged on (aligned for a weak\n"
          "promise, sliding for the others), counting only admits certainly inside a window\n"
          "(stamp − gap); excluded: admits it left out (their gap crosses an aligned window's\n"
          "start); uncert: the largest gap, the time before a stamp within which its admit was\n"
          "decided; each the largest over the recorded reps. held: yes, no, n/a, or uncertain:\n"
          "no violation among the certain admits, but uncert is above I/10, too wide for a\n"
          "yes. -: not recorded (stress --record).\n",
          out);
    fputs("rej%: the share of calls rejected, so which path of the limiter ns/op timed.\n", out);
    if (oversubscribed)
        fprintf(out,
                "! after threads: more threads than the %u CPUs: oversubscribed, not a scaling "
                "point.\n",
                cpus);
done:
    free(ns);
    free(mops);
    free(faa);
    free(noop);
}

/* A duration with three significant digits and its unit: "412ns",
 * "1.23us", "45.6ms", "2.00s". For latencies from the histograms, which
 * are at most 0.79% above the truth (replay.h): more digits would claim
 * more than they know, and eight columns fit. */
static const char *latency(char *buf, size_t len, uint64_t ns)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if ((double)ns >= units[i].scale * 0.9995) { /* 999.6us prints as 1.00ms */
            double v = (double)ns / units[i].scale;
            snprintf(buf, len, v < 10 ? "%.2f%s" : v < 100 ? "%.1f%s" : "%.0f%s", v, units[i].unit);
            return buf;
        }
    snprintf(buf, len, "%lluns", (unsigned long long)ns);
    return buf;
}

/* One latency's median and (min-max) over the runs in values[0..n). */
static const char *latency_spread(char *buf, size_t len, double *values, size_t n)
{
    struct rl_spread s = rl_spread_of(values, n);
    char median[16], min[16], max[16];
    snprintf(buf, len, "%s (%s-%s)", latency(median, sizeof median, (uint64_t)s.median),
             latency(min, sizeof min, (uint64_t)s.min), latency(max, sizeof max, (uint64_t)s.max));
    return buf;
}

/* With reps, one line per algorithm and thread count under the table: the
 * latencies' medians and spreads over its runs. */
static void print_replay_spreads(FILE *out, const struct rl_result *rows, size_t count)
{
    double *v[4];
    for (int c = 0; c < 4; c++)
        v[c] = malloc((count ? count : 1) * sizeof *v[c]);
    if (v[0] && v[1] && v[2] && v[3]) {
        fputs("over the reps, median (min-max):\n", out);
        for (size_t i = 0; i < count; i++) {
            bool first = rows[i].has_latency;
            for (size_t j = 0; first && j < i; j++)
                first = !(rows[j].has_latency && rows[j].algo == rows[i].algo &&
                          rows[j].threads == rows[i].threads);
            if (!first)
                continue;
            size_t n = 0;
            for (size_t j = i; j < count; j++)
                if (rows[j].has_latency && rows[j].algo == rows[i].algo &&
                    rows[j].threads == rows[i].threads) {
                    v[0][n] = (double)rows[j].lat_p50_ns;
                    v[1][n] = (double)rows[j].lat_p99_ns;
                    v[2][n] = (double)rows[j].lat_max_ns;
                    v[3][n] = (double)rows[j].svc_p99_ns;
                    n++;
                }
            char p50[48], p99[48], max[48], call[48];
            fprintf(
                out, "%s x%u, %zu runs: p50 %s, p99 %s, max %s, call_p99 %s\n", rows[i].algo->name,
                rows[i].threads, n, latency_spread(p50, sizeof p50, v[0], n),
                latency_spread(p99, sizeof p99, v[1], n), latency_spread(max, sizeof max, v[2], n),
                latency_spread(call, sizeof call, v[3], n));
        }
    }
    for (int c = 0; c < 4; c++)
        free(v[c]);
}

void rl_table_replay(FILE *out, const struct rl_result *rows, size_t count)
{
    int width = name_width(rows, count);
    bool reps = false, errors = false, threads = false;
    for (size_t i = 0; i < count; i++) {
        reps |= rows[i].rep > 1;
        errors |= rows[i].has_latency && rows[i].errors > 0;
        threads |= rows[i].threads != rows[0].threads;
    }
    fprintf(out, "%-*s%s%s %8s %8s %8s %8s %8s %8s %8s%s %9s %9s %9s %9s %6s %9s\n", width, "algo",
            threads ? " threads" : "", reps ? " rep" : "", "p50", "p90", "p99", "p99.9", "max",
            "late_max", "call_p99", errors ? "     errors" : "", "sliding/L", "aligned/L",
            "false_adm", "false_rej", "util", "held");
    for (size_t i = 0; i < count; i++) {
        const struct rl_result *r = &rows[i];
        if (!r->has_latency)
            continue;
        char p50[16], p90[16], p99[16], p999[16], max[16], late[16], call[16];
        char sliding[32] = "-", aligned[32] = "-", fa[32] = "-", fr[32] = "-", util[32] = "-";
        if (r->checked) {
            ratio(sliding, sizeof sliding, r->m.max_sliding, r->cfg.limit);
            ratio(aligned, sizeof aligned, r->m.max_aligned, r->cfg.limit);
        }
        if (r->checked && r->complete) {
            double u = rl_check_utilization(&r->m, true);
            if (isfinite(u))
                snprintf(util, sizeof util, "%.3f", u);
            snprintf(fa, sizeof fa, "%llu", (unsigned long long)r->m.false_admits);
            snprintf(fr, sizeof fr, "%llu", (unsigned long long)r->m.false_rejects);
        }
        char rep[16] = "", errs[32] = "", thr[16] = "";
        if (reps)
            snprintf(rep, sizeof rep, " %3u", r->rep);
        if (threads)
            snprintf(thr, sizeof thr, " %6u%s", r->threads, r->threads > r->cpus ? "!" : " ");
        if (errors)
            snprintf(errs, sizeof errs, " %10llu", (unsigned long long)r->errors);
        fprintf(out, "%-*s%s%s %8s %8s %8s %8s %8s %8s %8s%s %9s %9s %9s %9s %6s %9s\n", width,
                r->algo->name, thr, rep, latency(p50, sizeof p50, r->lat_p50_ns),
                latency(p90, sizeof p90, r->lat_p90_ns), latency(p99, sizeof p99, r->lat_p99_ns),
                latency(p999, sizeof p999, r->lat_p999_ns), latency(max, sizeof max, r->lat_max_ns),
                latency(late, sizeof late, r->late_max_ns),
                latency(call, sizeof call, r->svc_p99_ns), errs, sliding, aligned, fa, fr, util,
                rl_result_promise_held(r));
    }
    if (reps)
        print_replay_spreads(out, rows, count);
    fputs("\np50, p90, p99, p99.9, max: decision latency from each attempt's due time\n"
          "(t0 + t/speed) to its decision, all threads; late_max: the latest send after its due\n"
          "time (the harness's own delay); call_p99: the call alone, what a closed-loop tool\n"
          "would report. sliding/L, aligned/L, held: every decision at the time it was known\n"
          "(stamp, gap = the call), most cost in a sliding and an aligned window ÷ L, and the\n"
          "promise kept (uncertain: none broken, but a gap above I/10); false_adm, false_rej:\n"
          "against the exact sliding log on the same attempts; util: cost admitted ÷ that\n"
          "oracle's.\n",
          out);
    if (reps)
        fputs("rep: the repetition.\n", out);
    else
        fputs("Each line is one run: no spread to show (--reps R gives the min-max over R).\n",
              out);
    if (threads)
        fprintf(out,
                "threads: sending threads (! more than the %u CPUs: oversubscribed, not a "
                "scaling point).\n",
                rows[0].cpus);
}
