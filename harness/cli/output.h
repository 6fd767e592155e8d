/* output.h — how every command that produces results hands them out
 * (docs/design.md, Outputs): --format table|csv|json picks the view on
 * standard output, and --out FILE writes the same rows as CSV through the
 * output layer (io/outfile.h: a temporary, then renamed; "-" is standard
 * output, which then carries that CSV only). */
#ifndef RL_CLI_OUTPUT_H
#define RL_CLI_OUTPUT_H

#include "harness/report/result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum rl_cli_format { RL_FORMAT_TABLE, RL_FORMAT_CSV, RL_FORMAT_JSON, RL_FORMAT_NONE };
enum rl_cli_format rl_cli_parse_format(const char *cmd, const char *arg);

/* --format and --out as given. */
struct rl_cli_output {
    enum rl_cli_format format; /* table unless --format says otherwise */
    bool format_given;
    const char *out_path; /* NULL: no --out */
};

/* The two options, and their lines for --help ("-" and the temporary
 * name explained once). */
#define RL_CLI_OUTPUT_OPTIONS                                                                      \
    {"format", required_argument, NULL, OPT_FORMAT},                                               \
    {                                                                                              \
        "out", required_argument, NULL, OPT_OUT                                                    \
    }
extern const char rl_cli_output_help[];

/* --format or --out into o; false if code is neither. Exits 2 on a bad
 * format. */
bool rl_cli_output_option(const char *cmd, int code, const char *arg, struct rl_cli_output *o);

/* Before the run: --out must be writable (cli.h, rl_cli_require_writable),
 * and `--out -` (the CSV on standard output) goes with no --format other
 * than csv, which would print a second view beside it. Exits 2. */
void rl_cli_output_check(const char *cmd, const struct rl_cli_output *o);

/* What standard output shows: the --format view, or RL_FORMAT_NONE when
 * `--out -` has it. */
enum rl_cli_format rl_cli_output_view(const struct rl_cli_output *o);

/* Result rows on standard output as csv or json (nothing for a table: the
 * command prints its own), and, with --out, as CSV in that file, written
 * whole. A failed write exits 1 with one line. */
void rl_cli_write_rows(const char *cmd, const struct rl_cli_output *o, const struct rl_result *rows,
                       size_t count);

/* A sheet: rows of named columns as CSV (a header line, then one line a
 * row) or JSON (an array of objects), for the commands whose rows are not
 * result rows (list, clocks, keys, check). Fields are given in column
 * order; a row ends by itself after its last column. */
struct rl_cli_sheet {
    FILE *out;
    enum rl_cli_format format; /* csv or json */
    const char *const *columns;
    size_t column, rows;
};
void rl_cli_sheet_begin(struct rl_cli_sheet *s, FILE *out, enum rl_cli_format format,
                        const char *const *columns);
void rl_cli_sheet_text(struct rl_cli_sheet *s, const char *value); /* NULL: empty (null) */
void rl_cli_sheet_u64(struct rl_cli_sheet *s, uint64_t value);
void rl_cli_sheet_real(struct rl_cli_sheet *s, double value); /* not finite: empty (null) */
void rl_cli_sheet_empty(struct rl_cli_sheet *s);
void rl_cli_sheet_end(struct rl_cli_sheet *s);

/* Writes a sheet where o says: fill(sheet, data) gives every row, once for
 * the view on standard output when it is csv or json, and once for the
 * --out file as CSV. A failed write exits 1 with one line. */
void rl_cli_write_sheet(const char *cmd, const struct rl_cli_output *o, const char *const *columns,
                        void (*fill)(struct rl_cli_sheet *s, const void *data), const void *data);

#endif
