/* lin_timeline.c — counterexamples as timelines (lin_timeline.h). */
#include "lin_timeline.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define WIDTH 64 /* columns of the text timeline */

struct span {
    uint64_t t0, t1;
    uint32_t *threads; /* distinct, ascending */
    size_t nthreads;
};

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static bool span_of(const struct rl_history *h, const size_t *idx, size_t n, struct span *s)
{
    memset(s, 0, sizeof *s);
    s->threads = malloc((n ? n : 1) * sizeof *s->threads);
    if (s->threads == NULL)
        return false;
    s->t0 = UINT64_MAX;
    for (size_t i = 0; i < n; i++) {
        const struct rl_hist_op *o = &h->ops[idx[i]];
        s->t0 = o->call_ns < s->t0 ? o->call_ns : s->t0;
        s->t1 = o->return_ns > s->t1 ? o->return_ns : s->t1;
        s->threads[i] = o->thread;
    }
    qsort(s->threads, n, sizeof *s->threads, cmp_u32);
    for (size_t i = 0; i < n; i++)
        if (s->nthreads == 0 || s->threads[s->nthreads - 1] != s->threads[i])
            s->threads[s->nthreads++] = s->threads[i];
    if (n == 0)
        s->t0 = 0;
    return true;
}

static size_t column(const struct span *s, uint64_t t)
{
    uint64_t len = s->t1 - s->t0;
    if (len == 0)
        return 0;
    return (size_t)((double)(t - s->t0) / (double)len * (WIDTH - 1) + 0.5);
}

static const char *key_of(const struct rl_history *h, uint32_t key, char *buf, size_t len)
{
    if (h->key_names && key < h->key_count)
        return h->key_names[key];
    snprintf(buf, len, "k%u", key);
    return buf;
}

void rl_lin_timeline_text(FILE *out, const struct rl_history *h, const size_t *idx, size_t n,
                          size_t culprit)
{
    struct span s;
    if (!span_of(h, idx, n, &s))
        return;
    fprintf(out, "  time 0 = %llu ns on the log's clock; the row spans %llu ns\n",
            (unsigned long long)s.t0, (unsigned long long)(s.t1 - s.t0));
    for (size_t r = 0; r < s.nthreads; r++) {
        char row[WIDTH + 1];
        memset(row, ' ', WIDTH);
        row[WIDTH] = '\0';
        for (size_t i = 0; i < n; i++) {
            const struct rl_hist_op *o = &h->ops[idx[i]];
            if (o->thread != s.threads[r])
                continue;
            size_t a = column(&s, o->call_ns), b = column(&s, o->return_ns);
            for (size_t c = a; c <= b; c++)
                row[c] = '-';
            row[a] = '[';
            row[b] = b > a ? ']' : '|';
            size_t mid = (a + b) / 2;
            char label[8];
            int len = snprintf(label, sizeof label, "%zu%c%s", i + 1, o->admitted ? 'A' : 'R',
                               idx[i] == culprit ? "!" : "");
            if (b > a + 1 && (size_t)len <= b - a - 1) {
                size_t at = mid >= a + 1 + (size_t)len / 2 ? mid - (size_t)len / 2 : a + 1;
                if (at + (size_t)len > b)
                    at = b - (size_t)len;
                memcpy(row + at, label, (size_t)len);
            }
        }
        fprintf(out, "  thread %-4u %s\n", s.threads[r], row);
    }
    fprintf(out, "  %-4s %-6s %-12s %12s %12s %12s %6s  %s\n", "op", "thread", "key", "call",
            "return", "witness", "cost", "answer");
    for (size_t i = 0; i < n; i++) {
        const struct rl_hist_op *o = &h->ops[idx[i]];
        char kb[24], wb[24];
        if (o->has_witness)
            snprintf(wb, sizeof wb, "%llu", (unsigned long long)(o->witness_ns - s.t0));
        else
            snprintf(wb, sizeof wb, "-");
        fprintf(out, "  %-4zu %-6u %-12.12s %12llu %12llu %12s %6llu  %s%s\n", i + 1, o->thread,
                key_of(h, o->key, kb, sizeof kb), (unsigned long long)(o->call_ns - s.t0),
                (unsigned long long)(o->return_ns - s.t0), wb, (unsigned long long)o->cost,
                o->admitted ? "admit" : "reject",
                idx[i] == culprit
                    ? (o->admitted ? "   ! no order lets the sequential algorithm admit this"
                                   : "   ! no order lets the sequential algorithm reject this")
                    : "");
    }
    free(s.threads);
}

void rl_lin_timeline_svg(FILE *out, const struct rl_history *h, const size_t *idx, size_t n,
                         size_t culprit)
{
    struct span s;
    if (!span_of(h, idx, n, &s))
        return;
    const double left = 90, width = 640, row = 44;
    double height = row * (double)s.nthreads + 50;
    double len = s.t1 > s.t0 ? (double)(s.t1 - s.t0) : 1;
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "font-family=\"monospace\" font-size=\"12\">\n",
            left + width + 20, height);
    fprintf(out, "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n");
    for (size_t r = 0; r < s.nthreads; r++)
        fprintf(out, "<text x=\"8\" y=\"%.0f\">thread %u</text>\n", row * (double)r + 30,
                s.threads[r]);
    for (size_t i = 0; i < n; i++) {
        const struct rl_hist_op *o = &h->ops[idx[i]];
        size_t r = 0;
        while (s.threads[r] != o->thread)
            r++;
        double x0 = left + width * (double)(o->call_ns - s.t0) / len;
        double x1 = left + width * (double)(o->return_ns - s.t0) / len;
        double w = x1 - x0 < 3 ? 3 : x1 - x0;
        bool marked = idx[i] == culprit;
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"22\" fill=\"%s\" "
                "stroke=\"%s\" stroke-width=\"%d\"/>\n",
                x0, row * (double)r + 14, w, o->admitted ? "#cfe8cf" : "#f4d6c6",
                marked ? "#c00000" : "#555555", marked ? 3 : 1);
        fprintf(out, "<text x=\"%.1f\" y=\"%.0f\"%s>%zu %s%s</text>\n", x0 + 3,
                row * (double)r + 29, marked ? " fill=\"#c00000\"" : "", i + 1,
                o->admitted ? "admit" : "reject", marked ? " !" : "");
        if (o->has_witness) {
            double xw = left + width * (double)(o->witness_ns - s.t0) / len;
            fprintf(out,
                    "<line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#000\"/>\n", xw,
                    row * (double)r + 10, xw, row * (double)r + 40);
        }
    }
    fprintf(out,
            "<text x=\"%.0f\" y=\"%.0f\">0 to %llu ns; ticks: witnesses; ! the answer no order "
            "explains</text>\n</svg>\n",
            left, height - 10, (unsigned long long)(s.t1 - s.t0));
    free(s.threads);
}
