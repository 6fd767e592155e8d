/* output.c — --format, --out, result rows and sheets (see output.h). */
#include "output.h"

#include "cli.h"
#include "harness/io/outfile.h"

#include <math.h>
#include <string.h>

const char rl_cli_output_help[] =
    "  --format F        standard output: table (default), csv or json\n"
    "  --out FILE        also write the rows as CSV (columns: results/README.md) to\n"
    "                    FILE, under a temporary name, then renamed; - writes them to\n"
    "                    standard output in place of the table\n"
    "Outputs may not name an input or each other (links and ./ seen through):\n"
    "refused with exit 2 before the run. Each option with a value is given once.\n";

enum rl_cli_format rl_cli_parse_format(const char *cmd, const char *arg)
{
    if (strcmp(arg, "table") == 0)
        return RL_FORMAT_TABLE;
    if (strcmp(arg, "csv") == 0)
        return RL_FORMAT_CSV;
    if (strcmp(arg, "json") == 0)
        return RL_FORMAT_JSON;
    rl_cli_usage_error(cmd, "unknown format '%s' (accepted: table, csv, json)", arg);
}

bool rl_cli_output_option(const char *cmd, int code, const char *arg, struct rl_cli_output *o)
{
    switch (code) {
    case OPT_FORMAT:
        o->format = rl_cli_parse_format(cmd, arg);
        o->format_given = true;
        return true;
    case OPT_OUT:
        o->out_path = arg;
        return true;
    }
    return false;
}

static bool out_is_stdout(const struct rl_cli_output *o)
{
    return o->out_path && strcmp(o->out_path, "-") == 0;
}

void rl_cli_output_check(const char *cmd, const struct rl_cli_output *o)
{
    if (o->out_path)
        rl_cli_require_writable(cmd, "--out", o->out_path);
    if (out_is_stdout(o) && o->format_given && o->format != RL_FORMAT_CSV)
        rl_cli_usage_error(cmd,
                           "--out - writes CSV to standard output: leave out --format %s, or give "
                           "--out a file",
                           o->format == RL_FORMAT_JSON ? "json" : "table");
}

enum rl_cli_format rl_cli_output_view(const struct rl_cli_output *o)
{
    return out_is_stdout(o) ? RL_FORMAT_NONE : o->format;
}

/* Opens --out, or exits 1 with one line. */
static void open_out(const char *cmd, const char *path, struct rl_outfile *out)
{
    char err[512];
    if (rl_outfile_open(out, path, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
}

static void commit_out(const char *cmd, struct rl_outfile *out)
{
    char err[512];
    if (rl_outfile_commit(out, err, sizeof err) != 0)
        rl_cli_run_error(cmd, "%s", err);
}

void rl_cli_write_rows(const char *cmd, const struct rl_cli_output *o, const struct rl_result *rows,
                       size_t count)
{
    struct rl_context ctx;
    rl_context_init(&ctx);
    enum rl_cli_format view = rl_cli_output_view(o);
    if (view == RL_FORMAT_CSV) {
        rl_result_csv_header(stdout);
        for (size_t i = 0; i < count; i++)
            rl_result_csv_row(stdout, &rows[i], &ctx);
    } else if (view == RL_FORMAT_JSON) {
        rl_result_json_begin(stdout);
        for (size_t i = 0; i < count; i++)
            rl_result_json_row(stdout, &rows[i], &ctx, i == 0);
        rl_result_json_end(stdout);
    }
    if (o->out_path == NULL)
        return;
    struct rl_outfile out;
    open_out(cmd, o->out_path, &out);
    rl_result_csv_header(out.fp);
    for (size_t i = 0; i < count; i++)
        rl_result_csv_row(out.fp, &rows[i], &ctx);
    commit_out(cmd, &out);
}

/* ---- sheets ------------------------------------------------------------- */

void rl_cli_sheet_begin(struct rl_cli_sheet *s, FILE *out, enum rl_cli_format format,
                        const char *const *columns)
{
    *s = (struct rl_cli_sheet){.out = out, .format = format, .columns = columns};
    if (format == RL_FORMAT_JSON) {
        fputs("[", out);
        return;
    }
    for (size_t i = 0; columns[i]; i++) {
        if (i)
            fputc(',', out);
        rl_csv_field(out, columns[i]);
    }
    fputc('\n', out);
}

/* One field: value is NULL for an empty cell (JSON null); is_text quotes
 * it in JSON. */
static void field(struct rl_cli_sheet *s, const char *value, bool is_text)
{
    const char *name = s->columns[s->column];
    bool first = s->column == 0, last = s->columns[s->column + 1] == NULL;
    if (s->format == RL_FORMAT_JSON) {
        if (first)
            fputs(s->rows ? ",\n  {\n    " : "\n  {\n    ", s->out);
        else
            fputs(",\n    ", s->out);
        rl_json_string(s->out, name);
        fputs(": ", s->out);
        if (value == NULL)
            fputs("null", s->out);
        else if (is_text)
            rl_json_string(s->out, value);
        else
            fputs(value, s->out);
        if (last)
            fputs("\n  }", s->out);
    } else {
        if (!first)
            fputc(',', s->out);
        rl_csv_field(s->out, value ? value : "");
        if (last)
            fputc('\n', s->out);
    }
    s->column = last ? 0 : s->column + 1;
    s->rows += last;
}

void rl_cli_sheet_text(struct rl_cli_sheet *s, const char *value)
{
    field(s, value, true);
}

void rl_cli_sheet_u64(struct rl_cli_sheet *s, uint64_t value)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)value);
    field(s, buf, false);
}

void rl_cli_sheet_real(struct rl_cli_sheet *s, double value)
{
    char buf[32];
    if (!isfinite(value)) {
        field(s, NULL, false);
        return;
    }
    snprintf(buf, sizeof buf, "%.6g", value);
    field(s, buf, false);
}

void rl_cli_sheet_empty(struct rl_cli_sheet *s)
{
    field(s, NULL, false);
}

void rl_cli_sheet_end(struct rl_cli_sheet *s)
{
    if (s->format == RL_FORMAT_JSON)
        fputs(s->rows ? "\n]\n" : "]\n", s->out);
}

void rl_cli_write_sheet(const char *cmd, const struct rl_cli_output *o, const char *const *columns,
                        void (*fill)(struct rl_cli_sheet *s, const void *data), const void *data)
{
    struct rl_cli_sheet sheet;
    enum rl_cli_format view = rl_cli_output_view(o);
    if (view == RL_FORMAT_CSV || view == RL_FORMAT_JSON) {
        rl_cli_sheet_begin(&sheet, stdout, view, columns);
        fill(&sheet, data);
        rl_cli_sheet_end(&sheet);
    }
    if (o->out_path == NULL)
        return;
    struct rl_outfile out;
    open_out(cmd, o->out_path, &out);
    rl_cli_sheet_begin(&sheet, out.fp, RL_FORMAT_CSV, columns);
    fill(&sheet, data);
    rl_cli_sheet_end(&sheet);
    commit_out(cmd, &out);
}
