/* cost.c — what each memory order costs on this machine: ns per call of the
 * functions in tests/asm/orders.c, linked from the host's orders.o that
 * tests/asm/build.sh compiled (so each call goes into another object and is
 * never inlined), on one thread with a private word and on two threads calling
 * on one shared word, beside an empty function (`nop`) that shows the call
 * overhead every row carries. Run by tests/asm/cost.sh (make asm), which
 * writes its Markdown table to build/asm/cost.md. The numbers are printed,
 * never asserted.
 *
 * Usage: cost [ATOMICS_DIR [CALLS_1 [CALLS_2]]]
 *   ATOMICS_DIR  build.sh's per-target folder (build/asm/x86-64): the
 *                instructions column is read from its <fn>.atomics; "-" for none
 *   CALLS_1      calls per measurement on one thread (default 30000000)
 *   CALLS_2      calls per thread per measurement on two threads (default 5000000)
 */
#include "orders.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 5 /* measurements per cell; the cell is their median */

typedef uint64_t (*faa_fn)(_Atomic uint64_t *, uint64_t);
typedef void (*store_fn)(_Atomic uint64_t *, uint64_t);
typedef uint64_t (*load_fn)(_Atomic uint64_t *);

enum kind { FAA, STORE, LOAD };

struct fn {
    const char *name;
    const char *order;
    enum kind kind;
    faa_fn faa; /* the one of these three that kind says */
    store_fn store;
    load_fn load;
    const char *base; /* the row the ratio columns divide by; NULL: none */
};

/* The call-overhead baseline: a fetch-add's shape, no memory access. Called
 * through the same opaque pointer as the others, so it is never inlined. */
static uint64_t nop(_Atomic uint64_t *p, uint64_t n)
{
    (void)p;
    return n;
}

static const struct fn fns[] = {
    {"nop", "— (empty function: the call overhead)", FAA, nop, NULL, NULL, NULL},
    {"faa_relaxed", "relaxed", FAA, faa_relaxed, NULL, NULL, "faa_relaxed"},
    {"faa_acquire", "acquire", FAA, faa_acquire, NULL, NULL, "faa_relaxed"},
    {"faa_release", "release", FAA, faa_release, NULL, NULL, "faa_relaxed"},
    {"faa_acq_rel", "acq_rel", FAA, faa_acq_rel, NULL, NULL, "faa_relaxed"},
    {"faa_seq_cst", "seq_cst", FAA, faa_seq_cst, NULL, NULL, "faa_relaxed"},
    {"store_release", "release", STORE, NULL, store_release, NULL, "store_release"},
    {"store_seq_cst", "seq_cst", STORE, NULL, store_seq_cst, NULL, "store_release"},
    {"load_acquire", "acquire", LOAD, NULL, NULL, load_acquire, "load_acquire"},
    {"load_seq_cst", "seq_cst", LOAD, NULL, NULL, load_seq_cst, "load_acquire"},
};
#define NFNS (sizeof fns / sizeof fns[0])

/* Each word on its own cache line. */
struct line {
    _Alignas(64) _Atomic uint64_t word;
};
static struct line private_line, shared_line;

static volatile uint64_t sink; /* keeps every result alive */

static void die(const char *what)
{
    fprintf(stderr, "asm cost: %s failed\n", what);
    exit(1);
}

static double now_ns(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_MONOTONIC, &t) != 0)
        die("clock_gettime");
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* CALLS calls of F on W. The pointer is read through a volatile, so the
 * compiler cannot see which function it is: every row is the same indirect
 * call into its object. */
static uint64_t run_calls(const struct fn *f, _Atomic uint64_t *w, long calls)
{
    uint64_t s = 0;
    switch (f->kind) {
    case FAA: {
        faa_fn g = *(const volatile faa_fn *)&f->faa;
        for (long i = 0; i < calls; i++)
            s += g(w, 1);
        break;
    }
    case STORE: {
        store_fn g = *(const volatile store_fn *)&f->store;
        for (long i = 0; i < calls; i++)
            g(w, (uint64_t)i);
        break;
    }
    case LOAD: {
        load_fn g = *(const volatile load_fn *)&f->load;
        for (long i = 0; i < calls; i++)
            s += g(w);
        break;
    }
    }
    return s;
}

struct worker {
    _Alignas(64) const struct fn *f;
    long calls;
    pthread_barrier_t *go;
    double t0, t1;
    uint64_t s;
};

static void *work(void *arg)
{
    struct worker *k = arg;
    pthread_barrier_wait(k->go);
    k->t0 = now_ns();
    k->s = run_calls(k->f, &shared_line.word, k->calls);
    k->t1 = now_ns();
    return NULL;
}

/* ns per call of F on one thread and its private word. */
static double one_thread(const struct fn *f, long calls)
{
    double t0 = now_ns();
    sink += run_calls(f, &private_line.word, calls);
    return (now_ns() - t0) / (double)calls;
}

/* ns per call of F with two threads on one word: wall time from the first
 * start to the last finish over the calls each thread makes. */
static double two_threads(const struct fn *f, long calls)
{
    pthread_barrier_t go;
    struct worker k[2];
    pthread_t t[2];
    if (pthread_barrier_init(&go, NULL, 2) != 0)
        die("pthread_barrier_init");
    for (int i = 0; i < 2; i++) {
        k[i] = (struct worker){.f = f, .calls = calls, .go = &go};
        if (pthread_create(&t[i], NULL, work, &k[i]) != 0)
            die("pthread_create");
    }
    for (int i = 0; i < 2; i++)
        if (pthread_join(t[i], NULL) != 0)
            die("pthread_join");
    pthread_barrier_destroy(&go);
    sink += k[0].s + k[1].s;
    double t0 = k[0].t0 < k[1].t0 ? k[0].t0 : k[1].t0;
    double t1 = k[0].t1 > k[1].t1 ? k[0].t1 : k[1].t1;
    return (t1 - t0) / (double)calls;
}

/* The index of the row named NAME. */
static size_t row(const char *name)
{
    for (size_t i = 0; i < NFNS; i++)
        if (strcmp(fns[i].name, name) == 0)
            return i;
    fprintf(stderr, "asm cost: no row %s\n", name);
    exit(1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of the REPS samples in V (sorts V). */
static double median(double *v)
{
    qsort(v, REPS, sizeof v[0], cmp_double);
    return v[REPS / 2];
}

/* The instructions build.sh extracted for NAME, each in backquotes; "—" when
 * it has none (plain loads and stores), "?" when DIR has no file for it. */
static void print_insns(const char *dir, const char *name)
{
    char path[4096], line[256];
    if (strcmp(name, "nop") == 0) {
        printf(" — |");
        return;
    }
    if (strcmp(dir, "-") == 0) {
        printf(" ? |");
        return;
    }
    snprintf(path, sizeof path, "%s/%s.atomics", dir, name);
    FILE *in = fopen(path, "r");
    if (in == NULL) {
        printf(" ? |");
        return;
    }
    int n = 0;
    while (fgets(line, sizeof line, in) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] != '\0') {
            printf(" `%s`", line);
            n++;
        }
    }
    fclose(in);
    printf("%s |", n == 0 ? " —" : "");
}

static long arg_long(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v <= 0) {
        fprintf(stderr, "asm cost: '%s' is not a positive call count\n", s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    if (argc > 4) {
        fprintf(stderr, "usage: %s [ATOMICS_DIR [CALLS_1 [CALLS_2]]]\n", argv[0]);
        return 2;
    }
    const char *dir = argc > 1 ? argv[1] : "-";
    long calls1 = argc > 2 ? arg_long(argv[2]) : 30000000;
    long calls2 = argc > 3 ? arg_long(argv[3]) : 5000000;
    double one_s[NFNS][REPS], two_s[NFNS][REPS], one[NFNS], two[NFNS];

    /* Round by round over every function, so a burst of load from another
     * process lands on all rows alike instead of on one row's five runs. */
    for (int r = 0; r < REPS; r++) {
        for (size_t i = 0; i < NFNS; i++) {
            one_s[i][r] = one_thread(&fns[i], calls1);
            two_s[i][r] = two_threads(&fns[i], calls2);
        }
    }
    for (size_t i = 0; i < NFNS; i++) {
        one[i] = median(one_s[i]);
        two[i] = median(two_s[i]);
    }

    printf("| function | order | instructions | 1 thread, own word ns/call "
           "| 2 threads, one word ns/call | ratio, 1 thread | ratio, 2 threads |\n");
    printf("|---|---|---|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < NFNS; i++) {
        const struct fn *f = &fns[i];
        printf("| `%s` | %s |", f->name, f->order);
        print_insns(dir, f->name);
        printf(" %.2f | %.2f |", one[i], two[i]);
        if (f->base == NULL) {
            printf(" — | — |\n");
        } else {
            size_t b = row(f->base);
            printf(" %.2f | %.2f |\n", one[i] / one[b], two[i] / two[b]);
        }
    }
    printf("\nns per call: median of %d rounds of %ld calls (1 thread, its own word) and of "
           "%ld calls per thread (2 threads on one shared word: wall time from the first "
           "thread's start to the last one's finish, over the calls one thread makes). "
           "Every function is called through a pointer into orders.o, so every row "
           "includes the `nop` row's call overhead. Ratios divide by the relaxed "
           "fetch-add, the release store or the acquire load in the same column. "
           "Instructions: the table's column for this host; rows with the same instructions "
           "differ only by noise (code placement, other load on the machine), so their gap is "
           "the table's resolution. Printed, never asserted.\n",
           REPS, calls1, calls2);
    return 0;
}
