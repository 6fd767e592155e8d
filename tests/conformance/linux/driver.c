/* driver.c — the conformance peer driver for Linux's ___ratelimit
 * (lib/ratelimit.c, v6.1), protocol in ../README.md:
 *
 *   driver --mode real|port-rounded|port-exact --limit L --interval-ns I
 *          --burst B [--hz N] [--jiffies0 J] [--msg-on-release] TRACE.csv
 *
 * One limiter per key, created at the key's first attempt with interval =
 * I in jiffies and burst = L (ratelab's B is accepted and ignored: a fixed
 * window has no capacity). For each attempt, jiffies = J + ⌊t_ns·HZ/10^9⌋.
 *   real          the kernel's ___ratelimit, compiled from lib/ratelimit.c
 *                 with the shims in shim/, decides;
 *   port-rounded  our port of its arithmetic in jiffies (the begin == 0
 *                 sentinel, the signed time_after, strict expiry);
 *   port-exact    the same port in ns with ratelab's fw_trylock rule: a
 *                 new window when now − begin > I ns.
 * J defaults to INITIAL_JIFFIES of a 64-bit kernel, (unsigned)(−300·HZ), as
 * jiffies never reads 0 there; with --jiffies0 0 an attempt in the first
 * tick meets the kernel's "rs->begin == 0 means unset" sentinel.
 *
 * Skipped (exit 3, one line), in every mode, as the kernel cannot express
 * them: I not a whole number of jiffies, I in jiffies or L above INT_MAX,
 * and a trace with any cost n > 1 (___ratelimit decides one event; ratelab
 * admits n as a whole, and n calls would admit part of it).
 * Exit 2: bad usage or a malformed trace (the rules of ratelab's reader);
 * exit 1: out of memory or a failed write.
 */
#include <linux/ratelimit.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the shims' globals (shim/kshim.h) ----------------------------------- */

volatile unsigned long jiffies;
unsigned int rl_kshim_hz = 1000;
unsigned long rl_kshim_printk_calls;
struct task_struct rl_kshim_task = {"conformance"};

int printk_deferred(const char *fmt, ...)
{
    (void)fmt;
    rl_kshim_printk_calls++;
    return 0;
}

/* ---- errors -------------------------------------------------------------- */

static const char *prog = "driver";

__attribute__((noreturn, format(printf, 2, 3))) static void die(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", code == 3 ? "skipped" : prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(code);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        die(1, "out of memory");
    return p;
}

static bool parse_u64(const char *s, size_t len, uint64_t max, uint64_t *out)
{
    if (len == 0)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned d = (unsigned char)s[i] - '0';
        if (d > 9 || v > (max - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

static uint64_t need_u64(const char *opt, const char *arg, uint64_t min, uint64_t max)
{
    uint64_t v;
    if (!parse_u64(arg, strlen(arg), max, &v) || v < min)
        die(2, "%s: '%s' is not a whole number in %llu..%llu", opt, arg, (unsigned long long)min,
            (unsigned long long)max);
    return v;
}

/* ---- the trace ------------------------------------------------------------ */

struct attempt {
    uint64_t t_ns;
    uint32_t n;
    uint32_t key; /* dense id */
    const char *name;
    size_t name_len;
};

struct trace {
    struct attempt *a;
    size_t len;
    uint32_t keys;
    char *bytes; /* the file, which the names point into */
};

/* Open-addressing table from key text to dense id. */
struct key_table {
    uint32_t *slot; /* id + 1, 0 = empty */
    size_t mask;
    const struct attempt **first; /* the first attempt of each id */
    uint32_t count;
};

static uint32_t key_intern(struct key_table *kt, const struct attempt *a)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < a->name_len; i++)
        h = (h ^ (unsigned char)a->name[i]) * 1099511628211ull;
    for (size_t i = h & kt->mask;; i = (i + 1) & kt->mask) {
        uint32_t s = kt->slot[i];
        if (s == 0) {
            kt->slot[i] = kt->count + 1;
            kt->first[kt->count] = a;
            return kt->count++;
        }
        const struct attempt *f = kt->first[s - 1];
        if (f->name_len == a->name_len && memcmp(f->name, a->name, a->name_len) == 0)
            return s - 1;
    }
}

/* The rules of ratelab's reader (workloads/trace.h): header t_ns,key,n; three
 * fields a line; t_ns 0..2^64−1 and n 1..2^32−1 digits only; the key non-empty
 * without commas or control bytes (tab allowed); \n or \r\n; no blank lines;
 * times may go back (decided in file order). */
static void read_trace(const char *path, struct trace *tr)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        die(2, "%s: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *b = xmalloc(cap);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            if ((b = realloc(b, cap)) == NULL)
                die(1, "out of memory");
        }
        size_t got = fread(b + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f))
        die(2, "%s: read failed", path);
    fclose(f);
    tr->bytes = b;
    const char *p = b, *end = b + len;
    if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    size_t lines = 0;
    for (const char *q = p; q < end; q++)
        lines += *q == '\n';
    tr->a = xmalloc((lines + 1) * sizeof *tr->a);
    tr->len = 0;
    size_t line_no = 1;
    bool header = true;
    while (p < end || header) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *le = nl ? nl : end;
        if (le > p && le[-1] == '\r')
            le--;
        if (header) {
            if ((size_t)(le - p) != 10 || memcmp(p, "t_ns,key,n", 10) != 0)
                die(2, "%s:1: header must be 't_ns,key,n'", path);
            header = false;
        } else {
            const char *c1 = memchr(p, ',', (size_t)(le - p));
            const char *c2 = c1 ? memchr(c1 + 1, ',', (size_t)(le - c1 - 1)) : NULL;
            if (le == p)
                die(2, "%s:%zu: blank line", path, line_no);
            if (c2 == NULL || memchr(c2 + 1, ',', (size_t)(le - c2 - 1)) != NULL)
                die(2, "%s:%zu: expected 3 fields (t_ns,key,n)", path, line_no);
            struct attempt *a = &tr->a[tr->len];
            uint64_t n;
            if (!parse_u64(p, (size_t)(c1 - p), UINT64_MAX, &a->t_ns))
                die(2, "%s:%zu: time is not an integer 0..2^64-1", path, line_no);
            if (!parse_u64(c2 + 1, (size_t)(le - c2 - 1), UINT32_MAX, &n) || n == 0)
                die(2, "%s:%zu: cost is not an integer 1..2^32-1", path, line_no);
            a->n = (uint32_t)n;
            a->name = c1 + 1;
            a->name_len = (size_t)(c2 - c1 - 1);
            if (a->name_len == 0)
                die(2, "%s:%zu: key is empty", path, line_no);
            for (size_t i = 0; i < a->name_len; i++) {
                unsigned char c = (unsigned char)a->name[i];
                if (c != '\t' && (c < 0x20 || c == 0x7F))
                    die(2, "%s:%zu: key holds a control byte", path, line_no);
            }
            tr->len++;
        }
        line_no++;
        if (nl == NULL)
            break;
        p = nl + 1;
    }
    struct key_table kt = {0};
    size_t slots = 16;
    while (slots < 2 * tr->len)
        slots *= 2;
    kt.mask = slots - 1;
    kt.slot = calloc(slots, sizeof *kt.slot);
    kt.first = xmalloc((tr->len + 1) * sizeof *kt.first);
    if (kt.slot == NULL)
        die(1, "out of memory");
    for (size_t i = 0; i < tr->len; i++)
        tr->a[i].key = key_intern(&kt, &tr->a[i]);
    tr->keys = kt.count;
    free(kt.slot);
    free(kt.first);
}

/* ---- the three deciders ---------------------------------------------------- */

enum mode { REAL, PORT_ROUNDED, PORT_EXACT };

struct config {
    enum mode mode;
    uint64_t limit, interval_ns, hz, jiffies0;
    int interval_j, burst; /* as the kernel holds them */
    bool msg_on_release;
};

/* jiffies at t: the tick count since the trace's t = 0, from J. */
static unsigned long to_jiffies(const struct config *c, uint64_t t_ns)
{
    return (unsigned long)(c->jiffies0 + (uint64_t)((unsigned __int128)t_ns * c->hz / 1000000000u));
}

/* port-rounded: ___ratelimit's arithmetic, line by line, in jiffies. */
struct port_j {
    unsigned long begin; /* 0 = not started, as rs->begin */
    int printed;
};

static bool port_rounded(const struct config *c, struct port_j *s, unsigned long now)
{
    if (s->begin == 0)
        s->begin = now;
    if ((long)(s->begin + (unsigned long)c->interval_j - now) < 0) { /* time_after */
        s->begin = now;
        s->printed = 0;
    }
    if (c->burst > s->printed) {
        s->printed++;
        return true;
    }
    return false;
}

/* port-exact: the same in ratelab's ns and rule (algorithms/windows/fw_trylock.c). */
struct port_ns {
    bool started;
    uint64_t begin, used;
};

static bool port_exact(const struct config *c, struct port_ns *s, uint64_t now, uint64_t n)
{
    if (!s->started) {
        s->started = true;
        s->begin = now;
    }
    if (now > s->begin && now - s->begin > c->interval_ns) {
        s->begin = now;
        s->used = 0;
    }
    if (n > c->limit - s->used)
        return false;
    s->used += n;
    return true;
}

static void usage_and_exit(void)
{
    die(2, "usage: driver --mode real|port-rounded|port-exact --limit L --interval-ns I "
           "--burst B [--hz N] [--jiffies0 J] [--msg-on-release] TRACE.csv");
}

int main(int argc, char **argv)
{
    struct config c = {.hz = 1000};
    const char *mode = NULL, *path = NULL;
    bool have_limit = false, have_interval = false, have_burst = false, have_j0 = false;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (strcmp(o, "--msg-on-release") == 0) {
            c.msg_on_release = true;
            continue;
        }
        if (strncmp(o, "--", 2) != 0) {
            if (path != NULL)
                usage_and_exit();
            path = o;
            continue;
        }
        if (i + 1 >= argc)
            usage_and_exit();
        const char *v = argv[++i];
        if (strcmp(o, "--mode") == 0)
            mode = v;
        else if (strcmp(o, "--limit") == 0)
            c.limit = need_u64(o, v, 1, UINT32_MAX), have_limit = true;
        else if (strcmp(o, "--interval-ns") == 0)
            c.interval_ns = need_u64(o, v, 1, UINT64_MAX), have_interval = true;
        else if (strcmp(o, "--burst") == 0)
            (void)need_u64(o, v, 0, UINT64_MAX), have_burst = true;
        else if (strcmp(o, "--hz") == 0)
            c.hz = need_u64(o, v, 1, 1000000000);
        else if (strcmp(o, "--jiffies0") == 0)
            c.jiffies0 = need_u64(o, v, 0, ULONG_MAX), have_j0 = true;
        else
            usage_and_exit();
    }
    if (mode == NULL || path == NULL || !have_limit || !have_interval || !have_burst)
        usage_and_exit();
    if (strcmp(mode, "real") == 0)
        c.mode = REAL;
    else if (strcmp(mode, "port-rounded") == 0)
        c.mode = PORT_ROUNDED;
    else if (strcmp(mode, "port-exact") == 0)
        c.mode = PORT_EXACT;
    else
        die(2, "--mode: '%s' is not real, port-rounded or port-exact", mode);
    rl_kshim_hz = (unsigned)c.hz;
    if (!have_j0) /* INITIAL_JIFFIES, include/linux/jiffies.h, on 64 bits */
        c.jiffies0 = (unsigned long)(unsigned int)(0u - 300u * (unsigned)c.hz);

    unsigned __int128 ij_scaled = (unsigned __int128)c.interval_ns * c.hz;
    if (ij_scaled % 1000000000u != 0)
        die(3, "interval %llu ns is not a whole number of jiffies at HZ=%llu",
            (unsigned long long)c.interval_ns, (unsigned long long)c.hz);
    if (ij_scaled / 1000000000u > INT_MAX)
        die(3, "interval of %llu jiffies does not fit the kernel's int",
            (unsigned long long)(ij_scaled / 1000000000u));
    if (c.limit > INT_MAX)
        die(3, "limit %llu does not fit the kernel's int burst", (unsigned long long)c.limit);
    c.interval_j = (int)(ij_scaled / 1000000000u);
    c.burst = (int)c.limit;

    struct trace tr;
    read_trace(path, &tr);
    for (size_t i = 0; i < tr.len; i++)
        if (tr.a[i].n > 1)
            die(3,
                "the kernel has no cost: attempt %zu has n = %u (one ___ratelimit call is "
                "one event)",
                i + 1, tr.a[i].n);

    struct ratelimit_state *rs = NULL;
    struct port_j *pj = NULL;
    struct port_ns *pn = NULL;
    bool *seen = calloc(tr.keys + 1, sizeof *seen);
    if (seen == NULL)
        die(1, "out of memory");
    if (c.mode == REAL)
        rs = xmalloc((tr.keys + 1) * sizeof *rs);
    else if (c.mode == PORT_ROUNDED)
        pj = calloc(tr.keys + 1, sizeof *pj);
    else
        pn = calloc(tr.keys + 1, sizeof *pn);
    if (c.mode != REAL && pj == NULL && pn == NULL)
        die(1, "out of memory");

    static char outbuf[1 << 16];
    setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
    fputs("t_ns,key,n,admitted\n", stdout);
    for (size_t i = 0; i < tr.len; i++) {
        const struct attempt *a = &tr.a[i];
        bool admit;
        switch (c.mode) {
        case REAL: {
            struct ratelimit_state *s = &rs[a->key];
            if (!seen[a->key]) {
                seen[a->key] = true;
                ratelimit_state_init(s, c.interval_j, c.burst);
                if (c.msg_on_release)
                    ratelimit_set_flags(s, RATELIMIT_MSG_ON_RELEASE);
            }
            jiffies = to_jiffies(&c, a->t_ns);
            admit = ___ratelimit(s, "conformance") != 0;
            if (s->lock.locked)
                die(1, "internal: ___ratelimit returned holding the lock");
            break;
        }
        case PORT_ROUNDED:
            admit = port_rounded(&c, &pj[a->key], to_jiffies(&c, a->t_ns));
            break;
        default:
            admit = port_exact(&c, &pn[a->key], a->t_ns, a->n);
            break;
        }
        printf("%llu,%.*s,%u,%d\n", (unsigned long long)a->t_ns, (int)a->name_len, a->name, a->n,
               admit);
    }
    if (c.mode == REAL)
        for (uint32_t k = 0; k < tr.keys; k++)
            ratelimit_state_exit(&rs[k]);
    if (fflush(stdout) != 0 || ferror(stdout))
        die(1, "writing the decisions failed");
    return 0;
}
