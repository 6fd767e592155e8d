/* csv_read.c — one CSV record at a time, quotes and all (see csv_read.h).
 * Fields are copied into the caller's store because a quoted field's
 * doubled quotes shrink when read: the text itself is never written. */
#include "csv_read.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void rl_csv_reader_init(struct rl_csv_reader *r, const char *text, size_t len)
{
    r->at = text;
    r->end = text + len;
    r->line = 1;
}

/* Where one record is being copied to. */
struct record {
    char *store;
    size_t used, len;
};

static bool put(struct record *rec, char c)
{
    if (rec->used >= rec->len)
        return false;
    rec->store[rec->used++] = c;
    return true;
}

/* Reads one field at r->at into rec, ending it with NUL. Leaves r->at on
 * the comma or line end that follows it (or the end). -1 with err set when
 * the field is malformed or does not fit. */
static int read_field(struct rl_csv_reader *r, struct record *rec, size_t start_line, char *err,
                      size_t err_len)
{
    const char *p = r->at, *end = r->end;
    if (p < end && *p == '"') {
        for (p++;; p++) {
            if (p == end) {
                snprintf(err, err_len, "line %zu: a quoted field is never closed", start_line);
                return -1;
            }
            if (*p == '"') {
                if (p + 1 < end && p[1] == '"') {
                    p++;
                } else {
                    p++;
                    break;
                }
            } else if (*p == '\n') {
                r->line++;
            }
            if (!put(rec, *p))
                goto too_long;
        }
        if (p < end && *p != ',' && *p != '\n' && !(*p == '\r' && p + 1 < end && p[1] == '\n') &&
            !(*p == '\r' && p + 1 == end)) {
            snprintf(err, err_len, "line %zu: text after a closing quote", r->line);
            return -1;
        }
    } else {
        for (; p < end && *p != ',' && *p != '\n'; p++) {
            if (*p == '\r' && (p + 1 == end || p[1] == '\n'))
                break;
            if (*p == '"') {
                snprintf(err, err_len, "line %zu: a quote inside an unquoted field", r->line);
                return -1;
            }
            if (!put(rec, *p))
                goto too_long;
        }
    }
    r->at = p;
    if (put(rec, '\0'))
        return 0;
too_long:
    snprintf(err, err_len, "line %zu: a record longer than %zu bytes", start_line, rec->len);
    return -1;
}

int rl_csv_next(struct rl_csv_reader *r, char *store, size_t store_len, char **fields, size_t max,
                char *err, size_t err_len)
{
    if (r->at >= r->end)
        return 0;
    struct record rec = {.store = store, .len = store_len};
    size_t start_line = r->line, count = 0;
    for (;;) {
        if (count == max) {
            snprintf(err, err_len, "line %zu: more than %zu fields", start_line, max);
            return -1;
        }
        size_t at = rec.used;
        if (read_field(r, &rec, start_line, err, err_len) != 0)
            return -1;
        fields[count++] = store + at;
        if (r->at < r->end && *r->at == ',') {
            r->at++;
            continue;
        }
        break;
    }
    if (r->at < r->end && *r->at == '\r')
        r->at++;
    if (r->at < r->end && *r->at == '\n')
        r->at++;
    r->line++;
    return (int)count;
}

int rl_csv_column(char *const *fields, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(fields[i], name) == 0)
            return i;
    return -1;
}
