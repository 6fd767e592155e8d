/* cmd_claims.c — `ratelab claims [ID...]`: run the published claims
 * (harness/experiments/claims.h) and show each with its source, figure, verdict
 * and the command that repeats it; --list shows them without running.
 * `ratelab bench --suite claims` comes here too, with --out. */
#include "cli.h"
#include "commands.h"
#include "table.h"
#include "harness/experiments/claims.h"
#include "harness/sys/build_info.h"
#include "harness/sys/interrupt.h"
#include "harness/sys/redis_server.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Beyond the shared option codes (cli.h). */
enum { OPT_CLAIMS_LIST = 1000 };

#define WIDTH 100 /* the table's lines are wrapped before this column */

static void claims_help(void)
{
    printf("usage: ratelab claims [ID...] [--list] [--format F] [--out FILE.csv]\n"
           "                      [--redis ADDR]\n\n"
           "Published claims about rate limiters, each measured by ratelab's own runs: the\n"
           "source (title, author or organisation, year, URL), the claim as its author made\n"
           "it (paraphrased), the runs that test it and the command that repeats them, the\n"
           "figure they give, and a verdict: holds, fails, depends (the condition says on\n"
           "what) or n/a (not measurable here: the condition says why). With no ID every\n"
           "claim runs, most in well under a second, the stress ones in a few seconds.\n"
           "Claims marked deterministic give the same figure on every machine; the others\n"
           "rest on timing and vary from run to run.\n\n"
           "  ID...             run only these (ratelab claims --list names them)\n"
           "  --list            print the ids and the claims without running them\n"
           "%s"
           "  --redis ADDR      the Redis server for the claims that need one, instead of a\n"
           "                    private redis-server on a Unix socket (started only when\n"
           "                    such a claim runs): unix:PATH, or 127.x.x.x:PORT,\n"
           "                    localhost:PORT, [::1]:PORT; without either, those claims\n"
           "                    answer n/a\n\n"
           "Results and conformance files are looked for under the current folder\n"
           "(results/conformance.csv, build/conformance/): run it from the repository root.\n\n"
           "Exit status: 0 ok, 1 a run failed or was interrupted, 2 bad usage\n",
           rl_cli_output_help);
}

/* Prints text from the current column `at` on, broken at spaces so no line
 * passes WIDTH; continuation lines start at column `indent`. Columns count
 * characters, not bytes (UTF-8). Ends the line. */
static void wrapped(const char *text, int at, int indent, bool escape)
{
    char shown[4 * RL_CLAIM_TEXT];
    if (escape)
        text = rl_table_text(shown, sizeof shown, text);
    int column = at;
    bool line_start = true;
    while (*text) {
        size_t bytes = strcspn(text, " ");
        int chars = 0;
        for (size_t i = 0; i < bytes; i++)
            chars += ((unsigned char)text[i] & 0xC0) != 0x80;
        if (!line_start && column + 1 + chars > WIDTH) {
            printf("\n%*s", indent, "");
            column = indent;
            line_start = true;
        }
        if (!line_start) {
            putchar(' ');
            column++;
        }
        printf("%.*s", (int)bytes, text);
        column += chars;
        line_start = false;
        text += bytes;
        text += strspn(text, " ");
    }
    putchar('\n');
}

/* One labelled paragraph of a claim's block. The registry's own text is
 * shown as written (a command stays one to copy); what a run wrote, which
 * may quote a path or a server's error, is escaped (table.h). */
static void paragraph(const char *label, const char *text, bool escape)
{
    if (text == NULL || text[0] == '\0')
        return;
    printf("  %-9s", label);
    wrapped(text, 11, 11, escape);
}

/* ---- rows ------------------------------------------------------------------ */

struct ran {
    const struct rl_claim *claim[64];
    struct rl_claim_outcome out[64];
    size_t count;
    struct rl_context ctx;
};

static const char *const run_columns[] = {
    "id",         "source_title", "source_org", "year",    "url",       "claim",
    "experiment", "command",      "figure",     "verdict", "condition", "deterministic",
    "seconds",    "host",         "git_rev",    "date",    NULL};

static const char *const list_columns[] = {
    "id",         "source_title", "source_org",    "year",        "url", "claim",
    "experiment", "command",      "deterministic", "needs_redis", NULL};

static void fill_source(struct rl_cli_sheet *s, const struct rl_claim *c)
{
    rl_cli_sheet_text(s, c->id);
    rl_cli_sheet_text(s, c->source_title);
    rl_cli_sheet_text(s, c->source_org);
    rl_cli_sheet_text(s, c->year);
    rl_cli_sheet_text(s, c->url);
    rl_cli_sheet_text(s, c->claim);
    rl_cli_sheet_text(s, c->experiment);
    rl_cli_sheet_text(s, c->command);
}

static void fill_run(struct rl_cli_sheet *s, const void *data)
{
    const struct ran *r = data;
    for (size_t i = 0; i < r->count; i++) {
        const struct rl_claim *c = r->claim[i];
        const struct rl_claim_outcome *o = &r->out[i];
        fill_source(s, c);
        rl_cli_sheet_text(s, o->figure);
        rl_cli_sheet_text(s, rl_claim_verdict_name(o->verdict));
        rl_cli_sheet_text(s, o->condition);
        rl_cli_sheet_text(s, c->deterministic ? "yes" : "no");
        rl_cli_sheet_real(s, round(o->seconds * 1000) / 1000);
        rl_cli_sheet_text(s, r->ctx.host);
        rl_cli_sheet_text(s, r->ctx.git_rev);
        rl_cli_sheet_text(s, r->ctx.date);
    }
}

static void fill_list(struct rl_cli_sheet *s, const void *data)
{
    const struct ran *r = data;
    for (size_t i = 0; i < r->count; i++) {
        fill_source(s, r->claim[i]);
        rl_cli_sheet_text(s, r->claim[i]->deterministic ? "yes" : "no");
        rl_cli_sheet_text(s, r->claim[i]->needs_redis ? "yes" : "no");
    }
}

/* ---- tables ----------------------------------------------------------------- */

static void print_list(const struct ran *r)
{
    for (size_t i = 0; i < r->count; i++) {
        const struct rl_claim *c = r->claim[i];
        printf("%-23s %-17s", c->id, c->experiment);
        wrapped(c->claim, 41, 41, false);
    }
}

static void print_runs(const struct ran *r)
{
    printf("claims: %zu on %s (%s, %u cpus), git %s, %s\n", r->count, r->ctx.host, r->ctx.cpu_model,
           r->ctx.cores, r->ctx.git_rev, r->ctx.date);
    size_t tally[4] = {0};
    for (size_t i = 0; i < r->count; i++) {
        const struct rl_claim *c = r->claim[i];
        const struct rl_claim_outcome *o = &r->out[i];
        char source[2048];
        snprintf(source, sizeof source, "%s; %s; %s; %s", c->source_title, c->source_org, c->year,
                 c->url);
        printf("\n%s  %s  (%s, %s, %.2f s)\n", c->id, rl_claim_verdict_name(o->verdict),
               c->experiment, c->deterministic ? "deterministic" : "timing", o->seconds);
        paragraph("claim:", c->claim, false);
        paragraph("source:", source, false);
        paragraph("figure:", o->figure, true);
        paragraph("when:", o->condition, true);
        paragraph("repeat:", c->command, false);
        tally[o->verdict]++;
    }
    printf("\n%zu claims: %zu hold, %zu fail, %zu depend, %zu n/a\n\n", r->count,
           tally[RL_CLAIM_HOLDS], tally[RL_CLAIM_FAILS], tally[RL_CLAIM_DEPENDS],
           tally[RL_CLAIM_NA]);
    printf("holds, fails: the measured figure agrees with the claim or refutes it; depends:\n"
           "it holds under the condition in `when`; n/a: not measured here (`when` says why).\n"
           "repeat: the ratelab runs behind the figure; --format csv adds every column.\n");
}

/* ---- Redis ----------------------------------------------------------------- */

/* A Redis server for the claims that need one: `redis` checked and pinged,
 * or a private one when redis-server exists; NULL when there is none. */
static const char *prepare_redis(const char *cmd, const char *redis)
{
    static struct rl_redis_server server; /* stopped at exit (redis_server.c) */
    static char address[PATH_MAX];
    char err[512];
    if (redis) {
        if (rl_redis_address_check(redis, address, sizeof address, err, sizeof err) != 0 ||
            rl_redis_ping(address, err, sizeof err) != 0)
            rl_cli_usage_error(cmd, "%s", err);
        return address;
    }
    if (!rl_redis_server_available())
        return NULL;
    if (rl_redis_server_start(&server, err, sizeof err) != 0) {
        fprintf(stderr, "ratelab %s: %s: the claims that need Redis answer n/a\n", cmd, err);
        return NULL;
    }
    return server.address;
}

/* What the command line asked for. */
struct claims_args {
    const char *redis;
    struct rl_cli_output output;
    bool list;
};

/* Parses the options into *a; returns 1 when --help was shown (exit 0). */
static int parse_options(int argc, char **argv, const char *cmd, struct claims_args *a)
{
    static const struct option options[] = {RL_CLI_HELP_OPTION,
                                            {"list", no_argument, NULL, OPT_CLAIMS_LIST},
                                            RL_CLI_OUTPUT_OPTIONS,
                                            {"redis", required_argument, NULL, OPT_REDIS},
                                            {0}};
    *a = (struct claims_args){.output = {.format = RL_FORMAT_TABLE}};
    int code;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        switch (code) {
        case OPT_HELP:
            claims_help();
            return 1;
        case OPT_CLAIMS_LIST:
            a->list = true;
            break;
        case OPT_REDIS:
            a->redis = optarg;
            break;
        default:
            if (!rl_cli_output_option(cmd, code, optarg, &a->output))
                rl_cli_bad_option(cmd, code, argv);
        }
    }
    return 0;
}

/* The claims named by ids (every claim when there are none), each once, in
 * the order given; an unknown id is a usage error naming the known ones. */
static void select_claims(const char *cmd, char **ids, int count, struct ran *ran)
{
    if (count == 0) {
        for (const struct rl_claim *c = rl_claims; c->id && ran->count < 64; c++)
            ran->claim[ran->count++] = c;
    }
    for (int i = 0; i < count; i++) {
        const struct rl_claim *c = rl_claim_find(ids[i]);
        if (c == NULL) {
            char known[2048] = "";
            for (const struct rl_claim *k = rl_claims; k->id; k++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                         k == rl_claims ? "" : ", ", k->id);
            char shown[256];
            rl_cli_usage_error(cmd, "unknown claim '%s' (accepted: %s)",
                               rl_table_text(shown, sizeof shown, ids[i]), known);
        }
        bool twice = false;
        for (size_t j = 0; j < ran->count; j++)
            twice |= ran->claim[j] == c;
        if (!twice && ran->count < 64)
            ran->claim[ran->count++] = c;
    }
}

/* Runs the selected claims until done or interrupted; ran->count becomes
 * the number finished. Returns 1 when a run failed, else 0. */
static int run_claims(const char *cmd, const char *redis, struct ran *ran)
{
    bool need_redis = false;
    for (size_t i = 0; i < ran->count; i++)
        need_redis |= ran->claim[i]->needs_redis;
    struct rl_claim_env env = {.remote = need_redis ? prepare_redis(cmd, redis) : NULL,
                               .root = "."};
    rl_interrupt_install();
    int status = 0;
    size_t done = 0;
    for (; done < ran->count && !rl_interrupted; done++) {
        rl_cli_progress("claims: %zu/%zu %s", done + 1, ran->count, ran->claim[done]->id);
        rl_claim_run(ran->claim[done], &env, &ran->out[done]);
        if (ran->out[done].failed) {
            fprintf(stderr, "ratelab %s: %s: %s\n", cmd, ran->claim[done]->id, ran->out[done].err);
            status = 1;
        }
    }
    rl_cli_progress_done();
    ran->count = done;
    return status;
}

int rl_cmd_claims(int argc, char **argv)
{
    const char *cmd = "claims";
    struct claims_args a;
    if (parse_options(argc, argv, cmd, &a))
        return 0;
    static struct ran ran;
    memset(&ran, 0, sizeof ran);
    select_claims(cmd, argv + optind, argc - optind, &ran);
    rl_cli_output_check(cmd, &a.output);
    bool table = rl_cli_output_view(&a.output) == RL_FORMAT_TABLE;
    rl_context_init(&ran.ctx);
    if (a.list) {
        if (table)
            print_list(&ran);
        rl_cli_write_sheet(cmd, &a.output, list_columns, fill_list, &ran);
        return 0;
    }
    size_t planned = ran.count;
    int status = run_claims(cmd, a.redis, &ran);
    if (table)
        print_runs(&ran);
    rl_cli_write_sheet(cmd, &a.output, run_columns, fill_run, &ran);
    if (table && a.output.out_path)
        printf("\nwrote %zu claims to %s\n", ran.count, a.output.out_path);
    if (ran.count < planned) {
        fprintf(stderr, "ratelab %s: interrupted; the %zu finished claims were written\n", cmd,
                ran.count);
        status = 1;
    }
    return status;
}
