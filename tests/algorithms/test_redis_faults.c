/* test_redis_faults.c — what happens when the Redis server goes away: the
 * harness keeps running, counts errors, applies the caller's policy, writes
 * its results whole and cleans up; a restarted server without the scripts is
 * handled by reloading them (NOSCRIPT). Through the CLI, a killed or frozen
 * server ends the run with exit 3, a warning line and the errors shown. */
#include "tests/support/cli_run.h"
#include "tests/support/redis_fixture.h"
#include "tests/support/stress_check.h"
#include "tests/support/test_util.h"
#include "harness/check/checker.h"
#include "harness/report/result.h"
#include "harness/run/stress.h"
#include "harness/sys/clock.h"
#include "harness/sys/redis_server.h"

#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&pause, NULL);
}

struct killer {
    struct rl_redis_server *server;
    long after_ms;
};

static void *kill_later(void *arg)
{
    struct killer *k = arg;
    sleep_ms(k->after_ms);
    rl_redis_server_kill(k->server);
    return NULL;
}

/* A recorded 2-thread run of redis_token_bucket whose server dies 200 ms in. */
static void run_through_kill(bool error_admits, struct rl_stress_outcome *out)
{
    struct rl_redis_server server;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_redis_server_start(&server, err, sizeof err), 0);
    const struct rl_algo *algo = rl_registry_find("redis_token_bucket");
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    struct rl_stress_params params = {
        .algo = algo,
        .cfg = {.limit = 100, .interval_ns = 50000000u, .remote = server.address},
        .threads = 2,
        .duration_ns = 600000000u,
        .clock = "monotonic",
        .record = true,
        .error_admits = error_admits,
    };
    pthread_t thread;
    struct killer killer = {&server, 200};
    pthread_create(&thread, NULL, kill_later, &killer);
    int rc = rl_stress_counted(&params, out, err, sizeof err); /* errors counted at the acquire */
    pthread_join(thread, NULL);
    rl_redis_server_stop(&server);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT(out->errors > 0);
}

/* Fail-closed: every error is a reject (rl_stress_counted: rejects = the
 * reject answers + the error answers), so the bucket's bound still holds. */
static void test_kill_fail_closed(void)
{
    struct rl_stress_outcome out;
    run_through_kill(false, &out);
    struct rl_check_params check = {.limit = 100, .interval_ns = 50000000u};
    struct rl_check_result res;
    char err[128];
    CU_ASSERT_EQUAL_FATAL(rl_check(&out.log, &check, &res, err, sizeof err), 0);
    CU_ASSERT(res.total.certain_max_sliding <= 200); /* B + L */
    rl_check_result_free(&res);
    rl_event_log_free(&out.log);
}

/* Fail-open: every error is an admit (rl_stress_counted), and the log
 * shows the flood: with the server gone, the admits recorded in some
 * window of I pass the bucket's bound B + L, which fail-closed keeps. */
static void test_kill_fail_open(void)
{
    struct rl_stress_outcome out;
    run_through_kill(true, &out);
    struct rl_check_params check = {.limit = 100, .interval_ns = 50000000u};
    struct rl_check_result res;
    char err[128];
    CU_ASSERT_EQUAL_FATAL(rl_check(&out.log, &check, &res, err, sizeof err), 0);
    EXPECT(res.total.certain_max_sliding > 200,
           "fail-open: %llu errors admitted, yet the log's busiest window holds %llu admits, "
           "within B + L = 200: no flood",
           (unsigned long long)out.errors, (unsigned long long)res.total.certain_max_sliding);
    rl_check_result_free(&res);
    rl_event_log_free(&out.log);
}

/* The server restarts empty: the limiter reconnects and reloads its script. */
static void test_restart_reloads_scripts(void)
{
    struct rl_redis_server server;
    char err[256];
    CU_ASSERT_EQUAL_FATAL(rl_redis_server_start(&server, err, sizeof err), 0);
    const struct rl_algo *algo = rl_registry_find("redis_token_bucket");
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    struct rl_config cfg = {.limit = 1000000, .interval_ns = 1000000000u, .remote = server.address};
    void *state = algo->create(&cfg, err, sizeof err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(state);
    struct rl_clock clock;
    rl_clock_init(&clock, "monotonic", err, sizeof err);
    CU_ASSERT_EQUAL(algo->acquire(state, &clock, 1, 1), RL_ADMIT);
    CU_ASSERT_EQUAL_FATAL(rl_redis_server_restart(&server, err, sizeof err), 0);
    int recovered_after_ms = -1;
    for (int ms = 0; ms < 2000 && recovered_after_ms < 0; ms += 5) {
        if (algo->acquire(state, &clock, 1, 1) == RL_ADMIT)
            recovered_after_ms = ms;
        else
            sleep_ms(5);
    }
    CU_ASSERT(recovered_after_ms >= 0);
    algo->destroy(state);
    rl_redis_server_stop(&server);
}

/* A run with errors never says its promise held: `n/a` instead of `yes`,
 * while a violation among the decisions it made still shows as `no`. */
static void test_verdict_with_errors(void)
{
    const struct rl_algo *algo = rl_registry_find("redis_gcra");
    CU_ASSERT_PTR_NOT_NULL_FATAL(algo);
    struct rl_result r = {.algo = algo, .mode = "sim", .checked = true, .complete = true};
    r.cfg.limit = 10;
    r.cfg.interval_ns = 1000;
    r.m.max_sliding = r.m.certain_max_sliding = 10;
    r.m.max_aligned = r.m.certain_max_aligned = 10;
    CU_ASSERT_STRING_EQUAL(rl_result_promise_held(&r), "yes");
    r.errors = 1;
    CU_ASSERT_STRING_EQUAL(rl_result_promise_held(&r), "n/a");
    r.m.max_sliding = r.m.certain_max_sliding = r.m.max_aligned = r.m.certain_max_aligned = 100;
    CU_ASSERT_STRING_EQUAL(rl_result_promise_held(&r), "no");
}

/* ---- the CLI: a killed or frozen server -------------------------------- */

/* DBSIZE of the server at the socket path, -1 when it does not answer. */
static long long keys_held(const char *socket_path)
{
    struct timeval timeout = {1, 0};
    redisContext *c = redisConnectUnixWithTimeout(socket_path, timeout);
    long long keys = -1;
    if (c && c->err == 0) {
        redisReply *reply = redisCommand(c, "DBSIZE");
        if (reply && reply->type == REDIS_REPLY_INTEGER)
            keys = reply->integer;
        if (reply)
            freeReplyObject(reply);
    }
    if (c)
        redisFree(c);
    return keys;
}

struct fault_run {
    int status;      /* exit status; -1 if it did not exit by itself */
    double seconds;  /* from the fault to ratelab's exit */
    bool faulted;    /* the signal reached a server that was deciding */
    char dir[4096];  /* the private server's folder */
    char out[65536]; /* stdout */
    char err[8192];  /* stderr */
    int err_lines;
};

/* Runs `ratelab ARGS` (NULL-terminated) with stdout and stderr captured.
 * Once its private redis-server holds a key (the measured limiter is
 * deciding), waits after_ms and sends sig to the server. Waits for ratelab
 * at most limit_s after that; past it, continues the server, kills ratelab
 * and reports status -1. */
static void run_with_fault(const char *const *args, int sig, long after_ms, int limit_s,
                           struct fault_run *o)
{
    const char *bin = getenv("RATELAB_BIN") ? getenv("RATELAB_BIN") : "build/ratelab";
    char out_path[] = "/tmp/ratelab-fault-out-XXXXXX", err_path[] = "/tmp/ratelab-fault-err-XXXXXX";
    close(mkstemp(out_path));
    close(mkstemp(err_path));
    const char *argv[32] = {bin};
    for (size_t i = 0; args[i] && i + 2 < sizeof argv / sizeof *argv; i++)
        argv[i + 1] = args[i];
    memset(o, 0, sizeof *o);
    o->status = -1;
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int out = open(out_path, O_WRONLY | O_TRUNC), err = open(err_path, O_WRONLY | O_TRUNC);
        dup2(out, STDOUT_FILENO);
        dup2(err, STDERR_FILENO);
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    pid_t redis = 0;
    for (int ms = 0; ms < 5000 && (redis == 0 || o->dir[0] == '\0'); ms += 10) {
        sleep_ms(10);
        redis = rl_test_child_pid(pid);
        rl_test_server_folder(redis, o->dir, sizeof o->dir);
    }
    char socket_path[4200];
    snprintf(socket_path, sizeof socket_path, "%s/redis.sock", o->dir);
    int status;
    bool deciding = false;
    for (int ms = 0; redis > 0 && o->dir[0] && ms < 10000 && !deciding; ms += 10) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            pid = 0; /* over before its limiter decided anything */
            break;
        }
        deciding = keys_held(socket_path) > 0;
        if (!deciding)
            sleep_ms(10);
    }
    if (deciding) {
        sleep_ms(after_ms);
        o->faulted = kill(redis, sig) == 0;
    }
    uint64_t start = rl_monotonic_ns();
    bool exited = pid == 0;
    while (!exited && rl_monotonic_ns() - start < (uint64_t)limit_s * 1000000000u) {
        exited = waitpid(pid, &status, WNOHANG) == pid;
        if (!exited)
            sleep_ms(20);
    }
    o->seconds = (double)(rl_monotonic_ns() - start) / 1e9;
    if (!exited) {
        kill(redis, SIGCONT);
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
    } else if (WIFEXITED(status)) {
        o->status = WEXITSTATUS(status);
    }
    rl_cli_slurp(out_path, o->out, sizeof o->out);
    rl_cli_slurp(err_path, o->err, sizeof o->err);
    for (const char *c = o->err; *c; c++)
        o->err_lines += *c == '\n';
    unlink(out_path);
    unlink(err_path);
}

/* The cell of the table row starting with `row` (then a space) under the
 * column `column` of the header line above it, counted from the right:
 * every cell from that column on is one word, while cells on the left may
 * hold spaces or overflow their width. "" when there is none. */
static const char *table_cell(const char *table, const char *row, const char *column, char *cell,
                              size_t len)
{
    cell[0] = '\0';
    char start[80];
    snprintf(start, sizeof start, "\n%s ", row);
    const char *line = strstr(table, start);
    if (line == NULL)
        return cell;
    line++;
    const char *header = line, *name = NULL, *header_end = NULL;
    while (header > table && name == NULL) { /* the nearest line above that names it */
        header--;
        while (header > table && header[-1] != '\n')
            header--;
        header_end = strchr(header, '\n');
        for (const char *at = header; (at = strstr(at, column)) && at < header_end; at++)
            if ((at == header || at[-1] == ' ') &&
                (at[strlen(column)] == ' ' || at[strlen(column)] == '\n'))
                name = at;
    }
    if (name == NULL)
        return cell;
    int after = 0; /* words right of the column's name */
    for (const char *c = name + strlen(column); c < header_end; c++)
        after += *c != ' ' && c[-1] == ' ';
    const char *end = line + strcspn(line, "\n"), *word_end = end;
    for (int skipped = 0; word_end > line; skipped++) {
        while (word_end > line && word_end[-1] == ' ')
            word_end--;
        const char *word = word_end;
        while (word > line && word[-1] != ' ')
            word--;
        if (skipped == after) {
            snprintf(cell, len, "%.*s", (int)(word_end - word), word);
            break;
        }
        word_end = word;
    }
    return cell;
}

/* The field `column` of the CSV row (in csv, header first) that starts with
 * `row` and a comma; "" when there is none. Fields hold no commas here. */
static const char *csv_cell(const char *csv, const char *row, const char *column, char *cell,
                            size_t len)
{
    cell[0] = '\0';
    int index = -1, i = 0;
    size_t header_len = strcspn(csv, "\n");
    for (const char *f = csv; f < csv + header_len; f += strcspn(f, ",\n") + 1, i++)
        if (strncmp(f, column, strlen(column)) == 0 &&
            (f[strlen(column)] == ',' || f[strlen(column)] == '\n'))
            index = i;
    char start[80];
    snprintf(start, sizeof start, "\n%s,", row);
    const char *line = strstr(csv, start);
    if (index < 0 || line == NULL)
        return cell;
    line++;
    for (i = 0; i < index && line; i++)
        line = strchr(line, ',') ? strchr(line, ',') + 1 : NULL;
    if (line)
        snprintf(cell, len, "%.*s", (int)strcspn(line, ",\n"), line);
    return cell;
}

/* What every run through a failed backend must say: exit 3, one warning
 * line with the count, the count in the table, no `yes` verdict. */
static void expect_errors_reported(const char *what, const struct fault_run *o, const char *cmd,
                                   bool held_column)
{
    EXPECT_FATAL(o->faulted, "%s: the server was not hit while deciding (%s)", what, o->err);
    EXPECT(o->status == 3, "%s: exit %d, want 3 (errors); stderr: %s", what, o->status, o->err);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "ratelab %s: warning: ", cmd);
    const char *warning = strstr(o->err, prefix);
    unsigned long long errors = 0, attempts = 0;
    EXPECT(warning && sscanf(warning + strlen(prefix), "%llu of %llu decisions were errors",
                             &errors, &attempts) == 2,
           "%s: no warning line: %s", what, o->err);
    EXPECT(errors > 0 && errors <= attempts, "%s: %llu of %llu errors", what, errors, attempts);
    EXPECT(o->err_lines == 1, "%s: %d stderr lines, want the warning alone: %s", what, o->err_lines,
           o->err);
    char cell[64];
    table_cell(o->out, "redis_gcra", "errors", cell, sizeof cell);
    EXPECT(strtoull(cell, NULL, 10) > 0, "%s: the table's errors column says '%s':\n%s", what, cell,
           o->out);
    if (held_column) {
        table_cell(o->out, "redis_gcra", "held", cell, sizeof cell);
        EXPECT(cell[0] && strcmp(cell, "yes") != 0, "%s: the table says held '%s':\n%s", what, cell,
               o->out);
    }
}

/* stress: the server SIGKILLed halfway through redis_gcra, the last run. */
static void test_cli_stress_killed(void)
{
    const char *out = "/tmp/ratelab-fault-test.csv";
    unlink(out);
    static struct fault_run o;
    const char *args[] = {"stress", "--algo", "redis_gcra", "--threads", "2", "--duration",
                          "500ms",  "--reps", "1",          "--out",     out, NULL};
    run_with_fault(args, SIGKILL, 150, 30, &o);
    expect_errors_reported("stress, server killed", &o, "stress", true);
    struct stat st;
    EXPECT(o.dir[0] && stat(o.dir, &st) != 0, "%s was left behind", o.dir); /* cleaned up */
    static char csv[65536];
    rl_cli_slurp(out, csv, sizeof csv);
    int rows = 0;
    for (const char *c = strchr(csv, '\n'); c && c[1]; c = strchr(c + 1, '\n'))
        rows++;
    CU_ASSERT_EQUAL(rows, 3); /* faa, redis_noop and the algorithm: written whole */
    char cell[64];
    EXPECT(strtoull(csv_cell(csv, "redis_gcra", "errors", cell, sizeof cell), NULL, 10) > 0,
           "errors column '%s'", cell);
    EXPECT(strcmp(csv_cell(csv, "redis_gcra", "promise_held", cell, sizeof cell), "yes") != 0,
           "promise_held '%s'", cell);
    unlink(out);
}

/* stress: the server frozen (SIGSTOP) halfway through: each call waits out
 * the connection's command timeout, and the run still ends. */
static void test_cli_stress_frozen(void)
{
    static struct fault_run o;
    const char *args[] = {"stress",     "--algo", "redis_gcra", "--threads", "2",
                          "--duration", "500ms",  "--reps",     "1",         NULL};
    run_with_fault(args, SIGSTOP, 100, 40, &o);
    EXPECT(o.status >= 0, "stress with a frozen server still running after %.0f s", o.seconds);
    expect_errors_reported("stress, server frozen", &o, "stress", true);
}

/* sim: every decision is checked, so without errors held would be yes. */
static void test_cli_sim_killed(void)
{
    static struct fault_run o;
    const char *args[] = {"sim",     "--algo",     "redis_gcra", "--workload",
                          "uniform", "--duration", "20s",        NULL};
    run_with_fault(args, SIGKILL, 200, 60, &o);
    expect_errors_reported("sim, server killed", &o, "sim", true);
}

/* replay: the same, open loop, CSV included. */
static void test_cli_replay_killed(void)
{
    const char *out = "/tmp/ratelab-fault-replay.csv";
    unlink(out);
    static struct fault_run o;
    const char *args[] = {"replay",     "--algo", "redis_gcra", "--workload", "uniform",
                          "--duration", "2s",     "--out",      out,          NULL};
    run_with_fault(args, SIGKILL, 300, 30, &o);
    expect_errors_reported("replay, server killed", &o, "replay", true);
    static char csv[65536];
    rl_cli_slurp(out, csv, sizeof csv);
    char cell[64];
    EXPECT(strtoull(csv_cell(csv, "redis_gcra", "errors", cell, sizeof cell), NULL, 10) > 0,
           "errors column '%s'", cell);
    csv_cell(csv, "redis_gcra", "promise_held", cell, sizeof cell);
    EXPECT(strcmp(cell, "n/a") == 0 || strcmp(cell, "no") == 0, "promise_held '%s'", cell);
    unlink(out);
}

/* sim and replay with the server frozen: each decision after the first
 * timeout answers at once (the connection backs off rather than waiting out
 * another timeout per call), so the run ends in bounded time. */
static void test_cli_sim_frozen(void)
{
    static struct fault_run o;
    const char *args[] = {"sim",     "--algo",     "redis_gcra", "--workload",
                          "uniform", "--duration", "20s",        NULL};
    run_with_fault(args, SIGSTOP, 200, 40, &o);
    EXPECT(o.status >= 0, "sim with a frozen server still running after %.0f s", o.seconds);
    expect_errors_reported("sim, server frozen", &o, "sim", true);
}

static void test_cli_replay_frozen(void)
{
    static struct fault_run o;
    const char *args[] = {"replay",  "--algo",     "redis_gcra", "--workload",
                          "uniform", "--duration", "2s",         NULL};
    run_with_fault(args, SIGSTOP, 300, 40, &o);
    EXPECT(o.status >= 0, "replay with a frozen server still running after %.0f s", o.seconds);
    expect_errors_reported("replay, server frozen", &o, "replay", true);
}

RL_TEST_SUITE(
    "redis_faults",
    {"server killed mid-run, fail-closed: errors counted, bound kept", test_kill_fail_closed},
    {"server killed mid-run, fail-open: errors become admits", test_kill_fail_open},
    {"restarted server without scripts: reconnect and reload", test_restart_reloads_scripts},
    {"promise_held is never yes with errors", test_verdict_with_errors},
    {"CLI stress, server killed: exit 3, warning, errors shown, written whole",
     test_cli_stress_killed},
    {"CLI stress, server frozen: ends, exit 3, warning, errors shown", test_cli_stress_frozen},
    {"CLI sim, server killed: exit 3, warning, held not yes", test_cli_sim_killed},
    {"CLI replay, server killed: exit 3, warning, held not yes", test_cli_replay_killed},
    {"CLI sim, server frozen: ends, exit 3, warning", test_cli_sim_frozen},
    {"CLI replay, server frozen: ends, exit 3, warning", test_cli_replay_frozen})
