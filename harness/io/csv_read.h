/* csv_read.h — reading CSV text one record at a time (RFC 4180): fields
 * split by commas, a field in double quotes may hold commas, line breaks
 * and doubled quotes (""), lines end in LF or CRLF, and the last one may
 * lack its line end. For the files ratelab reads back (the results/ CSV files, a
 * child's --format csv output); the traces have their own faster reader
 * (workloads/trace.h). */
#ifndef RL_IO_CSV_READ_H
#define RL_IO_CSV_READ_H

#include <stddef.h>

/* A position in CSV text the caller keeps (not copied). */
struct rl_csv_reader {
    const char *at, *end;
    size_t line; /* the line the next record starts on, from 1 */
};

void rl_csv_reader_init(struct rl_csv_reader *r, const char *text, size_t len);

/* Reads the next record: its fields, unquoted and NUL-terminated, are
 * stored in store (store_len bytes) and pointed to from fields (at most
 * max). Returns the number of fields (an empty line is one empty field),
 * 0 at the end of the text, or -1 with the line and the reason in err: a
 * quote inside an unquoted field, text after a closing quote, a quoted
 * field never closed, more than max fields, or a record longer than
 * store. */
int rl_csv_next(struct rl_csv_reader *r, char *store, size_t store_len, char **fields, size_t max,
                char *err, size_t err_len);

/* The index of the field equal to name among count fields, or -1. */
int rl_csv_column(char *const *fields, int count, const char *name);

#endif
