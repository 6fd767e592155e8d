/* test_claims.c — the published claims (harness/experiments/claims.h): every entry
 * names its source (a URL, or says it was not found), a verdict from the
 * allowed set and a command; every deterministic claim (sim in virtual
 * time, the committed conformance results) gives its known verdict, and
 * the same figure twice; `ratelab claims` lists, runs and refuses as the
 * other commands do. Claims that rest on timing are run by `ratelab claims`
 * and reported, never asserted here. Run from the repository root (the
 * Makefile does): results/conformance.csv is read from there. */
#include "tests/support/cli_run.h"
#include "tests/support/redis_fixture.h"
#include "tests/support/test_util.h"
#include "harness/experiments/claims.h"
#include "harness/experiments/claims_kit.h"
#include "harness/sys/redis_server.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool snake_case(const char *id)
{
    if (!islower((unsigned char)id[0]))
        return false;
    for (const char *c = id; *c; c++)
        if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '_')
            return false;
    return id[strlen(id) - 1] != '_' && strstr(id, "__") == NULL && strlen(id) <= 32;
}

/* Every word of an experiment is a ratelab run or the conformance results. */
static bool known_experiment(const char *experiment)
{
    static const char *const runs[] = {"sim",   "stress",      "replay",
                                       "check", "conformance", "cluster"};
    char copy[128];
    snprintf(copy, sizeof copy, "%s", experiment);
    int words = 0;
    for (char *save, *w = strtok_r(copy, ", ", &save); w; w = strtok_r(NULL, ", ", &save)) {
        bool known = false;
        for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++)
            known |= strcmp(w, runs[i]) == 0;
        if (!known)
            return false;
        words++;
    }
    return words > 0;
}

static void test_registry_complete(void)
{
    size_t count = 0;
    for (const struct rl_claim *c = rl_claims; c->id; c++, count++) {
        EXPECT(snake_case(c->id), "id '%s' is not short snake_case", c->id);
        for (const struct rl_claim *d = rl_claims; d < c; d++)
            EXPECT(strcmp(c->id, d->id) != 0, "id %s appears twice", c->id);
        EXPECT(rl_claim_find(c->id) == c, "%s is not found by its id", c->id);
        EXPECT(c->source_title && c->source_title[0], "%s: no source title", c->id);
        EXPECT(c->source_org && c->source_org[0], "%s: no author or organisation", c->id);
        EXPECT(c->year && c->year[0], "%s: no year (or 'not found')", c->id);
        EXPECT(c->url && (strncmp(c->url, "http://", 7) == 0 ||
                          strncmp(c->url, "https://", 8) == 0 || strstr(c->url, "URL not found")),
               "%s: url '%s' is neither a URL nor an explicit \"URL not found\"", c->id,
               c->url ? c->url : "(null)");
        EXPECT(c->claim && strlen(c->claim) > 20 && c->claim[strlen(c->claim) - 1] == '.',
               "%s: the claim is not one sentence", c->id);
        EXPECT(c->experiment && known_experiment(c->experiment),
               "%s: experiment '%s' names no known run", c->id, c->experiment);
        EXPECT(c->command && (strstr(c->command, "build/ratelab ") ||
                              strstr(c->command, "results/conformance.csv")),
               "%s: no command that repeats it", c->id);
        EXPECT(c->run != NULL, "%s: nothing runs it", c->id);
    }
    EXPECT(count >= 14, "%zu claims, want at least the 14 of the brief", count);
    static const char *const required[] = {
        "cpp_naive_double_admit", "cpp_cas_weak", "cpp_acqrel_faster", "dotnet_expiry_14",
        "dotnet_sweeper",         "wheel_slots",  "redis_article_qps", "cloudflare_error_rate",
        "go_stale_timestamp",     "nginx_ms_cap", "resilience4j_2x",   "relaxed_cas_bucket",
        "varnish_truncation",     "linux_trylock"};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        EXPECT(rl_claim_find(required[i]) != NULL, "no claim %s", required[i]);
    EXPECT(rl_claim_find("no_such_claim") == NULL, "an unknown id was found");
    CU_ASSERT_STRING_EQUAL(rl_claim_verdict_name(RL_CLAIM_HOLDS), "holds");
    CU_ASSERT_STRING_EQUAL(rl_claim_verdict_name(RL_CLAIM_FAILS), "fails");
    CU_ASSERT_STRING_EQUAL(rl_claim_verdict_name(RL_CLAIM_DEPENDS), "depends");
    CU_ASSERT_STRING_EQUAL(rl_claim_verdict_name(RL_CLAIM_NA), "n/a");
}

/* The verdict each deterministic claim must give; a new deterministic
 * claim adds its line here. */
static const struct {
    const char *id;
    enum rl_claim_verdict verdict;
} expected[] = {
    {"cpp_cas_weak", RL_CLAIM_FAILS},
    {"dotnet_expiry_14", RL_CLAIM_HOLDS},
    {"dotnet_sweeper", RL_CLAIM_DEPENDS},
    {"cloudflare_error_rate", RL_CLAIM_DEPENDS},
    {"go_stale_timestamp", RL_CLAIM_HOLDS},
    {"nginx_ms_cap", RL_CLAIM_HOLDS},
    {"resilience4j_2x", RL_CLAIM_HOLDS},
    {"varnish_truncation", RL_CLAIM_HOLDS},
    {"guava_idle_burst", RL_CLAIM_DEPENDS},
    {"drl_disconnected_n", RL_CLAIM_HOLDS},
    {"databricks_5pct", RL_CLAIM_DEPENDS},
    {"gubernator_global", RL_CLAIM_HOLDS},
    {"doorman_lease_death", RL_CLAIM_HOLDS},
    {"uber_idle_no_limit", RL_CLAIM_HOLDS},
    {"uber_noslack_no_block", RL_CLAIM_HOLDS},
    {"uber_slack_no_effect", RL_CLAIM_HOLDS},
    {"uber_slack_unobservable", RL_CLAIM_FAILS},
    {"go_cancelat_restore", RL_CLAIM_HOLDS},
    {"go_setlimit_pending", RL_CLAIM_HOLDS},
    {"go_failed_reserve_state", RL_CLAIM_FAILS},
    {"guava_no_more_than_n", RL_CLAIM_FAILS},
    {"guava_warmup_never_warm", RL_CLAIM_HOLDS},
};

static void expect_sound(const struct rl_claim *c, const struct rl_claim_outcome *o)
{
    EXPECT(!o->failed, "%s could not run: %s", c->id, o->err);
    EXPECT(o->verdict <= RL_CLAIM_NA, "%s: verdict %d outside the set", c->id, (int)o->verdict);
    if (o->verdict != RL_CLAIM_NA)
        EXPECT(o->figure[0] != '\0', "%s: a verdict without a figure", c->id);
    if (o->verdict == RL_CLAIM_DEPENDS || o->verdict == RL_CLAIM_NA)
        EXPECT(o->condition[0] != '\0', "%s: %s without its condition", c->id,
               rl_claim_verdict_name(o->verdict));
    EXPECT(o->seconds >= 0 && o->seconds < 60, "%s took %.1f s", c->id, o->seconds);
}

static void test_deterministic_verdicts(void)
{
    bool redis = rl_redis_server_available();
    struct rl_claim_env env = {.remote = redis ? rl_test_redis_address() : NULL, .root = "."};
    for (const struct rl_claim *c = rl_claims; c->id; c++) {
        if (!c->deterministic)
            continue;
        size_t k = 0;
        while (k < sizeof expected / sizeof expected[0] && strcmp(expected[k].id, c->id) != 0)
            k++;
        EXPECT_FATAL(k < sizeof expected / sizeof expected[0],
                     "deterministic claim %s has no expected verdict in this test", c->id);
        struct rl_claim_outcome first, again;
        rl_claim_run(c, &env, &first);
        expect_sound(c, &first);
        enum rl_claim_verdict want = c->needs_redis && !redis ? RL_CLAIM_NA : expected[k].verdict;
        EXPECT(first.verdict == want, "%s: %s, want %s (figure: %s; condition: %s)", c->id,
               rl_claim_verdict_name(first.verdict), rl_claim_verdict_name(want), first.figure,
               first.condition);
        /* deterministic: the same figure and verdict again */
        rl_claim_run(c, &env, &again);
        EXPECT(again.verdict == first.verdict && strcmp(again.figure, first.figure) == 0,
               "%s is not deterministic: '%s' then '%s'", c->id, first.figure, again.figure);
    }
}

/* Without a server a Redis claim answers n/a and says why; it does not fail. */
static void test_redis_claims_without_a_server(void)
{
    struct rl_claim_env none = {.remote = NULL, .root = "."};
    size_t seen = 0;
    for (const struct rl_claim *c = rl_claims; c->id; c++) {
        if (!c->needs_redis)
            continue;
        struct rl_claim_outcome o;
        rl_claim_run(c, &none, &o);
        EXPECT(o.verdict == RL_CLAIM_NA && !o.failed && strstr(o.condition, "Redis"),
               "%s without a server: %s, condition '%s'", c->id, rl_claim_verdict_name(o.verdict),
               o.condition);
        seen++;
    }
    EXPECT(seen >= 2, "only %zu claims need Redis", seen);
}

/* Conformance-based claims answer n/a, not a guess, when the results are not there. */
static void test_conformance_missing(void)
{
    struct rl_claim_env elsewhere = {.remote = NULL, .root = "/nonexistent-ratelab-root"};
    struct rl_claim_outcome o;
    rl_claim_run(rl_claim_find("go_stale_timestamp"), &elsewhere, &o);
    EXPECT(o.verdict == RL_CLAIM_NA && strstr(o.condition, "conformance"),
           "go_stale_timestamp without results: %s, '%s'", rl_claim_verdict_name(o.verdict),
           o.condition);
}

/* A timing claim runs and answers from the set; its verdict is not asserted. */
static void test_timing_claim_runs(void)
{
    const struct rl_claim *c = rl_claim_find("linux_trylock");
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_FALSE(c->deterministic);
    struct rl_claim_outcome o;
    rl_claim_run(c, NULL, &o);
    expect_sound(c, &o);
    EXPECT(o.verdict == RL_CLAIM_HOLDS || o.verdict == RL_CLAIM_DEPENDS, "linux_trylock: %s",
           rl_claim_verdict_name(o.verdict));
}

/* Field `index` (from 0) of the CSV line at row, quotes honoured, into buf. */
static const char *quoted_field(const char *row, int index, char *buf, size_t len)
{
    size_t n = 0;
    bool quoted = false;
    for (int field = 0; *row && (*row != '\n' || quoted); row++) {
        if (*row == '"') {
            if (quoted && row[1] == '"' && field == index && n + 1 < len)
                buf[n++] = '"';
            if (quoted && row[1] == '"')
                row++;
            else
                quoted = !quoted;
        } else if (*row == ',' && !quoted) {
            if (field++ == index)
                break;
        } else if (field == index && n + 1 < len) {
            buf[n++] = *row;
        }
    }
    buf[n] = '\0';
    return buf;
}

static void test_cli(void)
{
    struct rl_cli_outcome o;
    rl_cli_run(&o, "claims --list");
    EXPECT_EQ(o.status, 0);
    for (const struct rl_claim *c = rl_claims; c->id; c++) {
        char line[64];
        snprintf(line, sizeof line, "\n%s ", c->id);
        EXPECT(strncmp(o.out, line + 1, strlen(line + 1)) == 0 || strstr(o.out, line),
               "claims --list does not name %s", c->id);
    }
    rl_cli_run(&o, "claims --list --format csv");
    EXPECT_EQ(o.status, 0);
    static const char list_header[] = "id,source_title,source_org,year,url,claim,experiment,"
                                      "command,deterministic,needs_redis\n";
    EXPECT(strncmp(o.out, list_header, strlen(list_header)) == 0, "claims --list csv: %.200s",
           o.out);

    rl_cli_run(&o, "claims dotnet_expiry_14 resilience4j_2x --format csv");
    EXPECT_EQ(o.status, 0);
    static const char header[] = "id,source_title,source_org,year,url,claim,experiment,command,"
                                 "figure,verdict,condition,deterministic,seconds,host,git_rev,"
                                 "date\n";
    EXPECT(strncmp(o.out, header, strlen(header)) == 0, "claims csv header: %.300s", o.out);
    const char *row = strstr(o.out, "\ndotnet_expiry_14,");
    char verdict[32];
    EXPECT_FATAL(row != NULL, "no dotnet_expiry_14 row in %.300s", o.out);
    EXPECT(strcmp(quoted_field(row + 1, 9, verdict, sizeof verdict), "holds") == 0,
           "dotnet_expiry_14: verdict %s", verdict); /* column 9: verdict */
    EXPECT(rl_cli_lines(o.out) == 3, "%d lines, want a header and 2 rows", rl_cli_lines(o.out));

    rl_cli_run(&o, "claims cpp_cas_weak");
    EXPECT_EQ(o.status, 0);
    EXPECT(strstr(o.out, "cpp_cas_weak  fails") && strstr(o.out, "repeat:") &&
               strstr(o.out, "build/ratelab sim --algo fw_cas"),
           "table: %.500s", o.out);

    rl_cli_run(&o, "claims dotnet_expiry_14 --out /tmp/ratelab-test-claims.csv --format json");
    EXPECT_EQ(o.status, 0);
    EXPECT(o.out[0] == '[' && strstr(o.out, "\"verdict\": \"holds\""), "json: %.300s", o.out);
    char file[8192];
    rl_cli_slurp("/tmp/ratelab-test-claims.csv", file, sizeof file);
    EXPECT(strncmp(file, "id,source_title,", 16) == 0 && strstr(file, "\ndotnet_expiry_14,"),
           "--out: %.200s", file);
    remove("/tmp/ratelab-test-claims.csv");

    rl_cli_expect_usage_error("claims no_such_claim", "unknown claim 'no_such_claim'");
    rl_cli_expect_usage_error("claims --format yaml", "unknown format");
    rl_cli_expect_usage_error("claims --out /nonexistent-dir/c.csv", "no folder");
    rl_cli_run(&o, "claims --help");
    EXPECT(o.status == 0 && strstr(o.out, "Exit status: 0 "), "claims --help: %.200s", o.out);
    rl_cli_run(&o, "bench --help");
    EXPECT(o.status == 0 && strstr(o.out, "  claims "), "bench --help lists no claims suite");
    rl_cli_expect_usage_error("bench --suite claims --out /nonexistent-dir/c.csv", "no folder");
}

/* Two timings whose min-max intervals overlap are within noise: the claim
 * says so with both intervals and never holds or fails on them; disjoint
 * ones are ordered and leave the verdict alone. */
static void test_within_noise(void)
{
    struct rl_claim_outcome o = {.verdict = RL_CLAIM_HOLDS};
    struct rl_spread a = {.median = 34.2, .min = 22.5, .max = 43.9, .count = 3};
    struct rl_spread b = {.median = 30.0, .min = 28.0, .max = 31.0, .count = 3};
    CU_ASSERT_EQUAL(rl_claim_compare(&o, "seq_cst", a, "acq_rel", b, " ns"), RL_CLAIM_WITHIN_NOISE);
    CU_ASSERT_EQUAL(o.verdict, RL_CLAIM_DEPENDS);
    EXPECT(strstr(o.condition, "within noise: seq_cst 34.2 ns (min-max 22.5-43.9, 3 runs)") != NULL,
           "condition: %s", o.condition);
    EXPECT(strstr(o.condition, "acq_rel 30.0 ns (28.0-31.0, 3 runs)") != NULL, "condition: %s",
           o.condition);

    struct rl_claim_outcome apart = {.verdict = RL_CLAIM_HOLDS};
    struct rl_spread c = {.median = 50.0, .min = 44.0, .max = 60.0, .count = 3};
    CU_ASSERT_EQUAL(rl_claim_compare(&apart, "seq_cst", a, "mutex", c, " ns"), RL_CLAIM_A_BELOW);
    CU_ASSERT_EQUAL(rl_claim_compare(&apart, "mutex", c, "seq_cst", a, " ns"), RL_CLAIM_B_BELOW);
    CU_ASSERT_EQUAL(apart.verdict, RL_CLAIM_HOLDS);
    CU_ASSERT_STRING_EQUAL(apart.condition, "");

    /* a timing not measured cannot be told apart from anything */
    struct rl_claim_outcome none = {.verdict = RL_CLAIM_FAILS};
    struct rl_spread missing = {.median = NAN, .min = NAN, .max = NAN, .count = 0};
    CU_ASSERT_EQUAL(rl_claim_compare(&none, "x", missing, "y", b, " ns"), RL_CLAIM_WITHIN_NOISE);
    CU_ASSERT_EQUAL(none.verdict, RL_CLAIM_DEPENDS);
}

RL_TEST_SUITE("claims", {"timings whose min-max overlap: within noise", test_within_noise},
              {"every claim: source, URL, sentence, runs, command", test_registry_complete},
              {"deterministic claims: known verdicts, same figure twice",
               test_deterministic_verdicts},
              {"Redis claims without a server: n/a with the reason",
               test_redis_claims_without_a_server},
              {"conformance results missing: n/a", test_conformance_missing},
              {"a timing claim answers from the set", test_timing_claim_runs},
              {"ratelab claims: list, csv, json, table, bad input", test_cli})
