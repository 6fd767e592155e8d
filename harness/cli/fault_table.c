/* fault_table.c — outage and lost admits per algorithm and fault, as
 * distributions over the repetitions (stress --fault, bench --suite
 * cluster-faults). */
#include "fault_table.h"

#include "harness/report/stats.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPS 1000

/* "m (lo-hi)", or "m" when every value was the same. */
static void spread_text(char *buf, size_t len, double *values, size_t n, const char *fmt)
{
    struct rl_spread s = rl_spread_of(values, n);
    char m[32], lo[32], hi[32];
    snprintf(m, sizeof m, fmt, s.median);
    snprintf(lo, sizeof lo, fmt, s.min);
    snprintf(hi, sizeof hi, fmt, s.max);
    if (s.min == s.max)
        snprintf(buf, len, "%s", m);
    else
        snprintf(buf, len, "%s (%s-%s)", m, lo, hi);
}

void rl_table_faults(FILE *out, const struct rl_result *rows, size_t count)
{
    bool *done = calloc(count ? count : 1, sizeof *done);
    double *outage = calloc(MAX_REPS, sizeof *outage), *lost = calloc(MAX_REPS, sizeof *lost);
    double *errors = calloc(MAX_REPS, sizeof *errors);
    if (!done || !outage || !lost || !errors)
        goto out;
    bool header = false;
    for (size_t i = 0; i < count; i++) {
        if (done[i] || rows[i].fault == NULL)
            continue;
        if (!header) {
            fprintf(out, "\n  faults (median (min-max) over the runs; outage: fault to every "
                         "slot served again):\n");
            fprintf(out, "  %-20s %-36s %5s %20s %18s %14s  %s\n", "algorithm", "fault", "runs",
                    "outage ms", "lost_admits", "errors", "held");
            header = true;
        }
        size_t n = 0;
        unsigned yes = 0, no = 0, na = 0;
        for (size_t j = i; j < count && n < MAX_REPS; j++) {
            const struct rl_result *r = &rows[j];
            if (done[j] || r->fault == NULL || r->algo != rows[i].algo ||
                strcmp(r->fault, rows[i].fault) != 0 || r->threads != rows[i].threads)
                continue;
            done[j] = true;
            outage[n] = r->outage_ms;
            lost[n] = (double)r->lost_admits;
            errors[n] = (double)r->errors;
            n++;
            enum rl_held h = rl_result_held(r);
            yes += h == RL_HELD_YES, no += h == RL_HELD_NO, na += h == RL_HELD_NA;
        }
        char o[100], l[100], e[100], held[64];
        spread_text(o, sizeof o, outage, n, "%.0f");
        spread_text(l, sizeof l, lost, n, "%.0f");
        spread_text(e, sizeof e, errors, n, "%.0f");
        snprintf(held, sizeof held, "%s%u no, %u n/a, %u yes", "", no, na, yes);
        fprintf(out, "  %-20s %-36s %5zu %20s %18s %14s  %s\n", rows[i].algo->name, rows[i].fault,
                n, o, l, e, held);
    }
out:
    free(done);
    free(outage);
    free(lost);
    free(errors);
}
