/* history.c — reading and validating recorded histories (history.h). */
#include "history.h"

#include "harness/io/errmsg.h"
#include "harness/io/file_bytes.h"
#include "harness/io/key_table.h"

#include <stdlib.h>
#include <string.h>

int rl_history_push(struct rl_history *h, const struct rl_hist_op *op)
{
    if (h->len == h->cap) {
        size_t cap = h->cap ? 2 * h->cap : 64;
        struct rl_hist_op *ops = realloc(h->ops, cap * sizeof *ops);
        if (ops == NULL)
            return -1;
        h->ops = ops;
        h->cap = cap;
    }
    h->ops[h->len++] = *op;
    return 0;
}

void rl_history_free(struct rl_history *h)
{
    for (uint32_t w = 0; w < h->window_count; w++)
        free(h->windows[w].state);
    free(h->windows);
    for (uint32_t k = 0; h->key_names && k < h->key_count; k++)
        free(h->key_names[k]);
    free(h->key_names);
    free(h->ops);
    memset(h, 0, sizeof *h);
}

/* A decimal u64 in s[0..len): 0, or -1 when empty, not digits or too big. */
static int parse_u64(const char *s, size_t len, uint64_t *out)
{
    if (len == 0 || len > 20)
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        uint64_t d = (uint64_t)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static const char *const columns[] = {"thread",    "key",    "cost",      "call_ns",
                                      "return_ns", "answer", "witness_ns"};
#define COLUMNS 7

static int parse_u64(const char *s, size_t len, uint64_t *out);

/* "# … algo=NAME epoch_ns=T …": what the comment says of the run. */
void rl_history_read_comment(const char *s, size_t len, struct rl_history *h)
{
    for (size_t i = 0; i < len; i++) {
        if (i > 0 && s[i - 1] != ' ')
            continue;
        size_t j = i, n = 0;
        if (len - i > 5 && memcmp(s + i, "algo=", 5) == 0) {
            for (j = i + 5; j < len && s[j] != ' ' && n + 1 < sizeof h->algo; j++)
                h->algo[n++] = s[j];
            h->algo[n] = '\0';
        } else if (len - i > 9 && memcmp(s + i, "epoch_ns=", 9) == 0) {
            for (j = i + 9; j < len && s[j] != ' ';)
                j++;
            h->has_epoch = parse_u64(s + i + 9, j - i - 9, &h->epoch_ns) == 0;
        }
    }
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "# window W start_ns=T [state=HEX] [notes]" after the header: a new
 * window for the operations that follow. "" or why it is refused in why. */
static void read_window_line(const char *s, size_t len, size_t line, struct rl_history *h,
                             char *why, size_t why_len)
{
    static const char lead[] = "# window ";
    uint32_t w = h->window_count;
    if (len < sizeof lead - 1 || memcmp(s, lead, sizeof lead - 1) != 0) {
        snprintf(why, why_len,
                 "after the header a # line must be a window: # window W "
                 "start_ns=T [state=HEX]");
        return;
    }
    if (w == 0 && h->len > 0) {
        snprintf(why, why_len, "window 0's line must come before every operation");
        return;
    }
    struct rl_hist_window_head win = {.first_op = h->len, .line = (uint32_t)line};
    bool has_start = false, numbered = false;
    for (size_t i = sizeof lead - 1; i < len && why[0] == '\0';) {
        size_t j = i;
        while (j < len && s[j] != ' ')
            j++;
        const char *tok = s + i;
        size_t tl = j - i;
        uint64_t v;
        if (!numbered) {
            numbered = true;
            if (parse_u64(tok, tl, &v) != 0 || v != w)
                snprintf(why, why_len, "window number %.*s where %u comes next",
                         (int)(tl < 20 ? tl : 20), tok, w);
        } else if (tl > 9 && memcmp(tok, "start_ns=", 9) == 0) {
            has_start = parse_u64(tok + 9, tl - 9, &win.start_ns) == 0;
            if (!has_start)
                snprintf(why, why_len, "window %u: start_ns is not a whole number of ns", w);
        } else if (tl >= 6 && memcmp(tok, "state=", 6) == 0) {
            size_t hex = tl - 6;
            if (hex == 0 || hex % 2 != 0 || win.state) {
                snprintf(why, why_len, "window %u: state must be one run of hex byte pairs", w);
                break;
            }
            win.state = malloc(hex / 2);
            if (win.state == NULL) {
                snprintf(why, why_len, "out of memory");
                break;
            }
            win.state_len = hex / 2;
            for (size_t k = 0; k < hex / 2; k++) {
                int hi = hex_digit(tok[6 + 2 * k]), lo = hex_digit(tok[7 + 2 * k]);
                if (hi < 0 || lo < 0) {
                    snprintf(why, why_len, "window %u: state is not hex (0-9, a-f)", w);
                    break;
                }
                win.state[k] = (unsigned char)(hi << 4 | lo);
            }
        }
        i = j + 1;
    }
    if (why[0] == '\0' && !numbered)
        snprintf(why, why_len, "a window line needs its number: # window W start_ns=T");
    else if (why[0] == '\0' && !has_start)
        snprintf(why, why_len, "window %u has no start_ns=T", w);
    else if (why[0] == '\0' && w > 0 && win.state == NULL)
        snprintf(why, why_len,
                 "window %u has no state=HEX: a later window starts from the limiter's "
                 "recorded state",
                 w);
    else if (why[0] == '\0' && w > 0 && win.start_ns < h->windows[w - 1].start_ns)
        snprintf(why, why_len, "window %u starts before window %u", w, w - 1);
    if (why[0] == '\0') {
        struct rl_hist_window_head *more = realloc(h->windows, (w + 1) * sizeof *more);
        if (more == NULL) {
            snprintf(why, why_len, "out of memory");
        } else {
            h->windows = more;
            h->windows[h->window_count++] = win;
            return;
        }
    }
    free(win.state);
}

/* Splits line s[0..len) at commas into at most max fields. */
static size_t split(const char *s, size_t len, const char **f, size_t *flen, size_t max)
{
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= len; i++)
        if (i == len || s[i] == ',') {
            if (n < max) {
                f[n] = s + start;
                flen[n] = i - start;
            }
            n++;
            start = i + 1;
        }
    return n;
}

int rl_history_parse(const char *text, size_t len, const char *name, struct rl_history *h,
                     char *err, size_t err_len)
{
    memset(h, 0, sizeof *h);
    struct rl_key_table kt;
    if (rl_key_table_init(&kt) != 0) {
        rl_set_err(err, err_len, "%s: out of memory", name);
        return -1;
    }
    const char *at = rl_file_bytes_skip_bom(text, len), *end = text + len;
    size_t line = 0, ncol = 0;
    bool header = false;
    char why[160] = "";
    while (at < end && why[0] == '\0') {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        size_t l = (size_t)((nl ? nl : end) - at);
        const char *s = at;
        at = nl ? nl + 1 : end;
        line++;
        if (l > 0 && s[l - 1] == '\r')
            l--;
        if (!header && l > 0 && s[0] == '#') {
            rl_history_read_comment(s, l, h);
            continue;
        }
        const char *f[COLUMNS];
        size_t fl[COLUMNS];
        size_t n = split(s, l, f, fl, COLUMNS);
        if (!header) {
            ncol = n;
            for (size_t i = 0; i < n && why[0] == '\0'; i++)
                if (i >= COLUMNS || fl[i] != strlen(columns[i]) ||
                    memcmp(f[i], columns[i], fl[i]) != 0)
                    ncol = 0;
            if (ncol < COLUMNS - 1)
                snprintf(why, sizeof why,
                         "the header must be thread,key,cost,call_ns,return_ns,answer[,witness_ns]"
                         " (a history needs each operation's call and return)");
            header = true;
            continue;
        }
        if (l == 0)
            continue;
        if (s[0] == '#') {
            read_window_line(s, l, line, h, why, sizeof why);
            continue;
        }
        if (n != ncol) {
            snprintf(why, sizeof why, "%zu fields, the header has %zu", n, ncol);
            break;
        }
        struct rl_hist_op op = {.line = (uint32_t)line};
        uint64_t thread = 0, answer = 0;
        const char *problem = rl_key_problem(f[1], fl[1]);
        if (parse_u64(f[0], fl[0], &thread) != 0 || thread > UINT32_MAX)
            snprintf(why, sizeof why, "thread is not a number below 2^32");
        else if (problem)
            snprintf(why, sizeof why, "key %s", problem);
        else if (parse_u64(f[2], fl[2], &op.cost) != 0 || op.cost == 0)
            snprintf(why, sizeof why, "cost is not a whole number >= 1");
        else if (parse_u64(f[3], fl[3], &op.call_ns) != 0)
            snprintf(why, sizeof why, "call_ns is not a whole number of ns");
        else if (parse_u64(f[4], fl[4], &op.return_ns) != 0)
            snprintf(why, sizeof why, "return_ns is not a whole number of ns");
        else if (parse_u64(f[5], fl[5], &answer) != 0 || answer > 1)
            snprintf(why, sizeof why, "answer is not 0 (reject) or 1 (admit)");
        else if (ncol == COLUMNS && fl[6] > 0 && parse_u64(f[6], fl[6], &op.witness_ns) != 0)
            snprintf(why, sizeof why, "witness_ns is neither empty nor a whole number of ns");
        if (why[0])
            break;
        op.has_witness = ncol == COLUMNS && fl[6] > 0;
        op.thread = (uint32_t)thread;
        op.admitted = answer == 1;
        bool too_many = false;
        int64_t id = rl_key_table_intern(&kt, f[1], fl[1], rl_key_hash(f[1], fl[1]), &too_many);
        if (id < 0 || line > UINT32_MAX) {
            snprintf(why, sizeof why, "%s", too_many ? "too many keys" : "out of memory");
            break;
        }
        op.key = (uint32_t)id;
        if (rl_history_push(h, &op) != 0)
            snprintf(why, sizeof why, "out of memory");
    }
    if (why[0] == '\0' && !header)
        snprintf(why, sizeof why, "empty: no header thread,key,cost,call_ns,return_ns,answer");
    if (why[0]) {
        rl_set_err(err, err_len, "%s: line %zu: %s", name, line, why);
        rl_key_table_free(&kt);
        rl_history_free(h);
        return -1;
    }
    h->key_names = rl_key_table_take_names(&kt, &h->key_count);
    rl_key_table_free(&kt);
    if (rl_history_validate(h, name, err, err_len) != 0) {
        rl_history_free(h);
        return -1;
    }
    return 0;
}

int rl_history_read(const char *path, struct rl_history *h, char *err, size_t err_len)
{
    memset(h, 0, sizeof *h);
    struct rl_file_bytes fb;
    if (rl_file_bytes_load(path, &fb, err, err_len) != 0)
        return -1;
    int rc = rl_history_parse(fb.data, fb.len, path, h, err, err_len);
    rl_file_bytes_free(&fb);
    return rc;
}

static int by_thread_then_call(const void *a, const void *b)
{
    const struct rl_hist_op *x = *(const struct rl_hist_op *const *)a;
    const struct rl_hist_op *y = *(const struct rl_hist_op *const *)b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    if (x->call_ns != y->call_ns)
        return x->call_ns < y->call_ns ? -1 : 1;
    return (x->return_ns > y->return_ns) - (x->return_ns < y->return_ns);
}

int rl_history_validate(const struct rl_history *h, const char *name, char *err, size_t err_len)
{
    for (size_t i = 0; i < h->len; i++) {
        const struct rl_hist_op *o = &h->ops[i];
        if (o->cost == 0) {
            rl_set_err(err, err_len, "%s: line %u: cost 0", name, o->line);
            return -1;
        }
        if (o->return_ns < o->call_ns) {
            rl_set_err(err, err_len, "%s: line %u: returns at %llu ns, before its call at %llu ns",
                       name, o->line, (unsigned long long)o->return_ns,
                       (unsigned long long)o->call_ns);
            return -1;
        }
        if (o->has_witness && (o->witness_ns < o->call_ns || o->witness_ns > o->return_ns)) {
            rl_set_err(err, err_len,
                       "%s: line %u: witness %llu ns outside its call [%llu, %llu] ns", name,
                       o->line, (unsigned long long)o->witness_ns, (unsigned long long)o->call_ns,
                       (unsigned long long)o->return_ns);
            return -1;
        }
    }
    for (uint32_t w = 0; w < h->window_count; w++) {
        size_t end = w + 1 < h->window_count ? h->windows[w + 1].first_op : h->len;
        for (size_t i = h->windows[w].first_op; i < end; i++)
            if (h->ops[i].call_ns < h->windows[w].start_ns) {
                rl_set_err(err, err_len,
                           "%s: line %u: called at %llu ns, before its window %u started at "
                           "%llu ns (line %u)",
                           name, h->ops[i].line, (unsigned long long)h->ops[i].call_ns, w,
                           (unsigned long long)h->windows[w].start_ns, h->windows[w].line);
                return -1;
            }
    }
    /* The usual log: each thread's operations in call order, few threads:
     * one pass with each thread's latest return. */
    enum { FEW_THREADS = 4096 };
    uint64_t *last_return = calloc(FEW_THREADS, sizeof *last_return);
    uint32_t *last_line = calloc(FEW_THREADS, sizeof *last_line);
    uint64_t *last_call = calloc(FEW_THREADS, sizeof *last_call);
    bool in_order = last_return && last_line && last_call;
    for (size_t i = 0; i < h->len && in_order; i++) {
        const struct rl_hist_op *o = &h->ops[i];
        uint32_t t = o->thread;
        if (t >= FEW_THREADS ||
            (last_line[t] && (o->call_ns < last_call[t] ||
                              (o->call_ns == last_call[t] && o->return_ns < last_return[t])))) {
            in_order = false;
            break;
        }
        if (last_line[t] && o->call_ns < last_return[t]) {
            rl_set_err(err, err_len,
                       "%s: lines %u and %u: thread %u has two operations in flight at once "
                       "([%llu, %llu] and [%llu, %llu] ns)",
                       name, last_line[t], o->line, t, (unsigned long long)last_call[t],
                       (unsigned long long)last_return[t], (unsigned long long)o->call_ns,
                       (unsigned long long)o->return_ns);
            free(last_return);
            free(last_line);
            free(last_call);
            return -1;
        }
        last_return[t] = o->return_ns;
        last_call[t] = o->call_ns;
        last_line[t] = o->line ? o->line : 1;
    }
    free(last_return);
    free(last_line);
    free(last_call);
    if (in_order)
        return 0;
    const struct rl_hist_op **sorted = malloc((h->len ? h->len : 1) * sizeof *sorted);
    if (sorted == NULL) {
        rl_set_err(err, err_len, "%s: out of memory", name);
        return -1;
    }
    for (size_t i = 0; i < h->len; i++)
        sorted[i] = &h->ops[i];
    qsort(sorted, h->len, sizeof *sorted, by_thread_then_call);
    for (size_t i = 1; i < h->len; i++) {
        const struct rl_hist_op *a = sorted[i - 1], *b = sorted[i];
        if (a->thread == b->thread && b->call_ns < a->return_ns) {
            rl_set_err(err, err_len,
                       "%s: lines %u and %u: thread %u has two operations in flight at once "
                       "([%llu, %llu] and [%llu, %llu] ns)",
                       name, a->line, b->line, a->thread, (unsigned long long)a->call_ns,
                       (unsigned long long)a->return_ns, (unsigned long long)b->call_ns,
                       (unsigned long long)b->return_ns);
            free(sorted);
            return -1;
        }
    }
    free(sorted);
    return 0;
}

int rl_history_window(const struct rl_history *h, uint32_t w, struct rl_history *out)
{
    memset(out, 0, sizeof *out);
    size_t first = w < h->window_count ? h->windows[w].first_op : 0;
    size_t end = w + 1 < h->window_count ? h->windows[w + 1].first_op : h->len;
    memcpy(out->algo, h->algo, sizeof out->algo);
    out->epoch_ns = h->epoch_ns;
    out->has_epoch = h->has_epoch;
    out->key_names = h->key_names;
    out->key_count = h->key_count;
    out->ops = malloc((end > first ? end - first : 1) * sizeof *out->ops);
    if (out->ops == NULL)
        return -1;
    memcpy(out->ops, h->ops + first, (end - first) * sizeof *out->ops);
    out->len = out->cap = end - first;
    return 0;
}

void rl_history_free_window(struct rl_history *window)
{
    free(window->ops);
    memset(window, 0, sizeof *window);
}
