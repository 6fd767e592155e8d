/* event_log_sort.c — the stable sort of a decision log by time: a radix sort
 * for big logs (recorder merges reach 10^7 events), an in-place merge sort
 * for short ones and for when no scratch memory can be had. */
#include "event_log.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Reverses a[lo, hi); three reversals make a rotation. */
static void reverse(struct rl_event *a, size_t lo, size_t hi)
{
    while (lo + 1 < hi) {
        struct rl_event t = a[lo];
        a[lo++] = a[--hi];
        a[hi] = t;
    }
}

/* Merges the sorted runs [lo, mid) and [mid, hi) in place, stably, by
 * splitting the longer run at its middle, rotating, and recursing: no extra
 * memory, O(n log n) per merge. The fallback when no scratch buffer can be
 * had, and the sort for short logs. */
static void merge_in_place(struct rl_event *a, size_t lo, size_t mid, size_t hi)
{
    while (lo < mid && mid < hi) {
        if (hi - lo == 2) {
            if (a[mid].t_ns < a[lo].t_ns) {
                struct rl_event t = a[lo];
                a[lo] = a[mid];
                a[mid] = t;
            }
            return;
        }
        size_t cut1, cut2;
        if (mid - lo >= hi - mid) {
            cut1 = lo + (mid - lo) / 2;
            /* right-run elements strictly earlier than a[cut1] move before it */
            size_t l = mid, r = hi;
            while (l < r) {
                size_t m = l + (r - l) / 2;
                if (a[m].t_ns < a[cut1].t_ns)
                    l = m + 1;
                else
                    r = m;
            }
            cut2 = l;
        } else {
            cut2 = mid + (hi - mid) / 2;
            /* left-run elements at the same time as a[cut2] stay before it */
            size_t l = lo, r = mid;
            while (l < r) {
                size_t m = l + (r - l) / 2;
                if (a[m].t_ns <= a[cut2].t_ns)
                    l = m + 1;
                else
                    r = m;
            }
            cut1 = l;
        }
        reverse(a, cut1, mid);
        reverse(a, mid, cut2);
        reverse(a, cut1, cut2);
        size_t new_mid = cut1 + (cut2 - mid);
        merge_in_place(a, lo, cut1, new_mid);
        lo = new_mid, mid = cut2; /* the second half iteratively */
    }
}

/* Insertion sort on runs of 16, then bottom-up in-place merges:
 * O(n log² n), stable, no allocation. */
static void sort_in_place(struct rl_event *a, size_t len)
{
    const size_t run = 16;
    for (size_t lo = 0; lo < len; lo += run) {
        size_t hi = lo + run < len ? lo + run : len;
        for (size_t i = lo + 1; i < hi; i++) {
            struct rl_event v = a[i];
            size_t j = i;
            for (; j > lo && a[j - 1].t_ns > v.t_ns; j--)
                a[j] = a[j - 1];
            a[j] = v;
        }
    }
    for (size_t width = run; width < len; width *= 2)
        for (size_t lo = 0; lo + width < len; lo += 2 * width) {
            size_t hi = len - lo > 2 * width ? lo + 2 * width : len;
            merge_in_place(a, lo, lo + width, hi);
        }
}

void *rl_event_alloc_big(size_t bytes)
{
    void *p = malloc(bytes);
    if (p != NULL && bytes >= ((size_t)32 << 20)) {
        uintptr_t start = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
        uintptr_t end = ((uintptr_t)p + bytes) & ~(uintptr_t)4095;
        madvise((void *)start, end - start, MADV_HUGEPAGE); /* a hint: failure is harmless */
    }
    return p;
}

#define RADIX_MAX_BITS 11 /* 2048 buckets: the counts stay in L1 */

/* LSD radix sort on t_ns − min with as few passes of at most 11 bits as the
 * time span needs (a 10 s run spans 34 bits: 4 passes of 9 bits), skipping a
 * pass whose digit is the same in every event. Counting passes are stable,
 * so equal times keep their order. -1 when the scratch buffer cannot be
 * had. */
static int sort_radix(struct rl_event *a, size_t len, uint64_t min, uint64_t max)
{
    int span_bits = 64 - __builtin_clzll(max - min); /* max > min: the log is unsorted */
    int passes = (span_bits + RADIX_MAX_BITS - 1) / RADIX_MAX_BITS;
    int digit_bits = (span_bits + passes - 1) / passes;
    size_t buckets = (size_t)1 << digit_bits, mask = buckets - 1;
    struct rl_event *scratch = rl_event_alloc_big(len * sizeof *scratch);
    size_t *counts = calloc((size_t)passes * buckets, sizeof *counts);
    if (scratch == NULL || counts == NULL) {
        free(scratch);
        free(counts);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        uint64_t v = a[i].t_ns - min;
        for (int p = 0; p < passes; p++)
            counts[(size_t)p * buckets + ((v >> (p * digit_bits)) & mask)]++;
    }
    struct rl_event *src = a, *dst = scratch;
    for (int p = 0; p < passes; p++) {
        size_t *offset = counts + (size_t)p * buckets, sum = 0;
        bool one_bucket = false;
        for (size_t d = 0; d < buckets; d++) {
            size_t c = offset[d];
            one_bucket |= c == len;
            offset[d] = sum;
            sum += c;
        }
        if (one_bucket)
            continue;
        int shift = p * digit_bits;
        for (size_t i = 0; i < len; i++)
            dst[offset[((src[i].t_ns - min) >> shift) & mask]++] = src[i];
        struct rl_event *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, len * sizeof *a);
    free(scratch);
    free(counts);
    return 0;
}

/* Cannot fail: an already sorted log (the recorder's merge gives one) is
 * detected in one pass and left alone; without memory for the radix sort's
 * scratch buffer the slower in-place sort takes over. */
void rl_event_log_sort(struct rl_event_log *log)
{
    struct rl_event *a = log->events;
    size_t len = log->len;
    if (len < 2)
        return;
    bool sorted = true;
    uint64_t min = a[0].t_ns, max = a[0].t_ns;
    for (size_t i = 1; i < len; i++) {
        uint64_t t = a[i].t_ns;
        sorted &= a[i - 1].t_ns <= t;
        min = t < min ? t : min;
        max = t > max ? t : max;
    }
    if (sorted)
        return;
    if (len < 512 || sort_radix(a, len, min, max) < 0)
        sort_in_place(a, len);
}

/* rl_event_log_sort_with_columns: by (time, position), through an index. */
struct indexed_time {
    uint64_t t_ns;
    size_t at;
};

static int by_time_then_position(const void *a, const void *b)
{
    const struct indexed_time *x = a, *y = b;
    if (x->t_ns != y->t_ns)
        return x->t_ns < y->t_ns ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Puts column (len entries, or NULL) in order's order, through scratch. */
static void permute(uint64_t *column, const struct indexed_time *order, size_t len,
                    uint64_t *scratch)
{
    if (column == NULL)
        return;
    for (size_t i = 0; i < len; i++)
        scratch[i] = column[order[i].at];
    memcpy(column, scratch, len * sizeof *column);
}

int rl_event_log_sort_with_columns(struct rl_event_log *log)
{
    size_t len = log->len;
    if (len < 2)
        return 0;
    struct indexed_time *order = malloc(len * sizeof *order);
    struct rl_event *events = malloc(len * sizeof *events);
    uint64_t *scratch = malloc(len * sizeof *scratch);
    if (order == NULL || events == NULL || scratch == NULL) {
        free(order);
        free(events);
        free(scratch);
        return -1;
    }
    for (size_t i = 0; i < len; i++)
        order[i] = (struct indexed_time){log->events[i].t_ns, i};
    qsort(order, len, sizeof *order, by_time_then_position);
    for (size_t i = 0; i < len; i++)
        events[i] = log->events[order[i].at];
    memcpy(log->events, events, len * sizeof *events);
    permute(log->release_ns, order, len, scratch);
    permute(log->woke_ns, order, len, scratch);
    permute(log->cancel_ns, order, len, scratch);
    free(order);
    free(events);
    free(scratch);
    return 0;
}
