/* latency_cdf.c — percentile points of a latency histogram and their CSV
 * (latency_cdf.h). */
#include "latency_cdf.h"

#include "harness/io/outfile.h"
#include "harness/sys/build_info.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void rl_latency_cdf_from(struct rl_latency_cdf *cdf, const struct rl_histogram *h)
{
    cdf->total = h->total;
    cdf->count = 0;
    if (h->total == 0)
        return;
    /* Halving `half` leaves a tail of 2^-half; its tick i leaves
     * 2^-half · (1 − i / (2·TICKS)). Stop once a tail holds under one value. */
    for (unsigned half = 0; half < 64; half++) {
        for (unsigned i = 0; i < RL_CDF_TICKS; i++) {
            double tail = ldexp(1.0 - (double)i / (2.0 * RL_CDF_TICKS), -(int)half);
            if (tail * (double)h->total < 1.0)
                goto done;
            double percentile = 100.0 * (1.0 - tail);
            cdf->points[cdf->count++] =
                (struct rl_cdf_point){percentile, rl_histogram_percentile(h, percentile)};
        }
    }
done:
    cdf->points[cdf->count++] = (struct rl_cdf_point){100.0, h->max};
}

int rl_latency_cdf_path(const char *results_path, char *out, size_t len)
{
    const char *slash = strrchr(results_path, '/');
    int folder = slash ? (int)(slash - results_path + 1) : 0;
    int n = snprintf(out, len, "%.*slatency-%s", folder, results_path, results_path + folder);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

int rl_latency_cdf_write(const char *path, const struct rl_result *rows,
                         const struct rl_latency_cdf *cdfs, size_t count, char *err, size_t err_len)
{
    struct rl_context ctx;
    rl_context_init(&ctx);
    struct rl_outfile out;
    if (rl_outfile_open(&out, path, err, err_len) != 0)
        return -1;
    fputs("algo,workload,clock,threads,rep,speed,limit,interval_ns,percentile,one_in,latency_ns,"
          "total,host,git_rev,date\n",
          out.fp);
    for (size_t r = 0; r < count; r++) {
        const struct rl_result *row = &rows[r];
        const struct rl_latency_cdf *cdf = &cdfs[r];
        for (size_t p = 0; p < cdf->count; p++) {
            const struct rl_cdf_point *pt = &cdf->points[p];
            /* 1/(1 − p), the log scale a tail is read on; the maximum is
             * the one value in `total` */
            double one_in =
                pt->percentile >= 100.0 ? (double)cdf->total : 100.0 / (100.0 - pt->percentile);
            fprintf(out.fp, "%s,", row->algo->name);
            rl_csv_field(out.fp, row->workload);
            fprintf(out.fp, ",%s,%u,%u,%g,%llu,%llu,%.10g,%.10g,%llu,%llu,", row->clock,
                    row->threads, row->rep, row->speed, (unsigned long long)row->cfg.limit,
                    (unsigned long long)row->cfg.interval_ns, pt->percentile, one_in,
                    (unsigned long long)pt->value_ns, (unsigned long long)cdf->total);
            rl_csv_field(out.fp, ctx.host);
            fprintf(out.fp, ",%s,%s\n", ctx.git_rev, ctx.date);
        }
    }
    return rl_outfile_commit(&out, err, err_len);
}
