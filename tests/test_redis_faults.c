/* test_redis_faults.c — what happens when the Redis server goes away: the
 * harness keeps running, counts errors, applies the caller's policy, writes
 * its results whole and cleans up; a restarted server without the scripts is
 * handled by reloading them (NOSCRIPT). */
#include "test_util.h"
#include "harness/check/checker.h"
#include "harness/run/stress.h"
#include "harness/sys/clock.h"
#include "harness/sys/redis_server.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    int rc = rl_stress_run(&params, out, err, sizeof err);
    pthread_join(thread, NULL);
    rl_redis_server_stop(&server);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    CU_ASSERT(out->errors > 0);
    CU_ASSERT_EQUAL(out->attempts, out->admits + out->rejects);
    CU_ASSERT_EQUAL(out->log.len + out->log.dropped, out->admits);
}

/* Fail-closed: every error is a reject, so the bucket's bound still holds. */
static void test_kill_fail_closed(void)
{
    struct rl_stress_outcome out;
    run_through_kill(false, &out);
    CU_ASSERT(out.rejects >= out.errors);
    struct rl_check_params check = {.limit = 100, .interval_ns = 50000000u};
    struct rl_check_result res;
    char err[128];
    CU_ASSERT_EQUAL_FATAL(rl_check(&out.log, &check, &res, err, sizeof err), 0);
    CU_ASSERT(res.total.certain_max_sliding <= 200); /* B + L */
    rl_check_result_free(&res);
    rl_event_log_free(&out.log);
}

/* Fail-open: every error is an admit, and the log shows the flood. */
static void test_kill_fail_open(void)
{
    struct rl_stress_outcome out;
    run_through_kill(true, &out);
    CU_ASSERT(out.admits >= out.errors);
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

/* ---- the CLI, killed server, whole results file -------------------------- */

static pid_t child_redis(pid_t parent)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/task/%d/children", parent, parent);
    FILE *f = fopen(path, "r");
    pid_t found = 0;
    if (f && fgets(line, sizeof line, f))
        found = (pid_t)atoi(line);
    if (f)
        fclose(f);
    return found;
}

static int count_redis_dirs(void)
{
    DIR *d = opendir(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += strncmp(e->d_name, "ratelab-redis-", 14) == 0;
    if (d)
        closedir(d);
    return n;
}

static void test_cli_survives_kill(void)
{
    const char *bin = getenv("RATELAB_BIN") ? getenv("RATELAB_BIN") : "build/ratelab";
    const char *out = "/tmp/ratelab-fault-test.csv";
    unlink(out);
    int dirs_before = count_redis_dirs();
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", 1);
        dup2(devnull, STDOUT_FILENO);
        dup2(devnull, STDERR_FILENO);
        /* faa, redis_noop, then redis_token_bucket: 1 s each */
        execl(bin, bin, "stress", "--algo", "redis_token_bucket", "--threads", "2", "--duration",
              "1s", "--reps", "1", "--out", out, (char *)NULL);
        _exit(127);
    }
    pid_t redis = 0;
    for (int ms = 0; ms < 3000 && redis == 0; ms += 10) {
        sleep_ms(10);
        redis = child_redis(pid);
    }
    CU_ASSERT_FATAL(redis > 0);
    sleep_ms(2500); /* halfway through redis_token_bucket's run, the last one */
    kill(redis, SIGKILL);
    int status;
    waitpid(pid, &status, 0);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CU_ASSERT_EQUAL(count_redis_dirs(), dirs_before); /* cleaned up */
    FILE *f = fopen(out, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char header[8192], line[8192];
    CU_ASSERT_PTR_NOT_NULL_FATAL(fgets(header, sizeof header, f));
    int errors_column = -1, column = 0;
    for (char *save = NULL, *name = strtok_r(header, ",\n", &save); name;
         name = strtok_r(NULL, ",\n", &save), column++)
        if (strcmp(name, "errors") == 0)
            errors_column = column;
    CU_ASSERT_FATAL(errors_column >= 0);
    unsigned long long most_errors = 0;
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        rows++;
        char *save = NULL, *field = strtok_r(line, ",", &save);
        for (int c = 0; field && c < errors_column; c++)
            field = strtok_r(NULL, ",", &save);
        if (field && strtoull(field, NULL, 10) > most_errors)
            most_errors = strtoull(field, NULL, 10);
    }
    fclose(f);
    CU_ASSERT_EQUAL(rows, 3); /* faa, redis_noop and the algorithm */
    CU_ASSERT(most_errors > 0);
    unlink(out);
}

RL_TEST_SUITE("redis_faults",
              {"server killed mid-run, fail-closed: errors counted, bound kept",
               test_kill_fail_closed},
              {"server killed mid-run, fail-open: errors become admits", test_kill_fail_open},
              {"restarted server without scripts: reconnect and reload",
               test_restart_reloads_scripts},
              {"CLI: killed server, results written whole, nothing left", test_cli_survives_kill})
