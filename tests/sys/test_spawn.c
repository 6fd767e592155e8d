/* test_spawn.c — running a child (harness/sys/spawn.h): its output is
 * captured (cut to the buffer, never overrun), its exit status comes back,
 * a missing program is exit status 127 and an error, and a child that
 * outlives its time limit is killed. */
#include "tests/support/test_util.h"

#include "harness/sys/spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_captures_output(void)
{
    char *argv[] = {"/bin/sh", "-c", "printf 'one\\ntwo\\n'; echo noise >&2", NULL};
    char out[64], err[256] = "";
    int status = 99;
    int rc = rl_spawn_capture(argv, 0, out, sizeof out, &status, err, sizeof err);
    EXPECT(rc == 0 && status == 0, "rc %d, status %d, %s", rc, status, err);
    EXPECT(strcmp(out, "one\ntwo\n") == 0, "captured '%s'", out);
}

static void test_output_cut_to_buffer(void)
{
    char *argv[] = {"/bin/sh", "-c", "seq 1 20000", NULL};
    char out[8], err[256] = "";
    int status = 99;
    int rc = rl_spawn_capture(argv, 0, out, sizeof out, &status, err, sizeof err);
    EXPECT(rc == 0 && status == 0, "rc %d, status %d, %s", rc, status, err);
    EXPECT(strcmp(out, "1\n2\n3\n4") == 0, "captured '%s'", out);
}

static void test_exit_status(void)
{
    char *argv[] = {"/bin/sh", "-c", "echo partial; exit 3", NULL};
    char out[64], err[256] = "";
    int status = 99;
    int rc = rl_spawn_capture(argv, 0, out, sizeof out, &status, err, sizeof err);
    EXPECT(rc == -1 && status == 3, "rc %d, status %d", rc, status);
    EXPECT(strstr(err, "did not succeed") != NULL, "err '%s'", err);
    EXPECT(strcmp(out, "partial\n") == 0, "captured '%s'", out);
}

static void test_missing_program(void)
{
    char *argv[] = {"/nonexistent/ratelab-no-such-program", NULL};
    char out[64], err[256] = "";
    int status = 99;
    int rc = rl_spawn_capture(argv, 0, out, sizeof out, &status, err, sizeof err);
    EXPECT(rc == -1 && status == 127, "rc %d, status %d", rc, status);
    EXPECT(out[0] == '\0', "captured '%s'", out);
}

/* The child would leave a file behind if it ran to its end: the file's
 * absence shows it was killed, with no timing in the assertion. */
static void test_timeout_kills(void)
{
    char dir[] = "/tmp/ratelab-test-spawn-XXXXXX", marker[64], script[160];
    EXPECT_FATAL(mkdtemp(dir) != NULL, "mkdtemp");
    snprintf(marker, sizeof marker, "%s/finished", dir);
    snprintf(script, sizeof script, "echo started; sleep 2; : > %s", marker);
    char *argv[] = {"/bin/sh", "-c", script, NULL};
    char out[64], err[256] = "";
    int status = 99;
    int rc = rl_spawn_capture(argv, 200, out, sizeof out, &status, err, sizeof err);
    EXPECT(rc == -1 && status == -1, "rc %d, status %d", rc, status);
    EXPECT(strstr(err, "did not finish within 200 ms") != NULL, "err '%s'", err);
    EXPECT(strcmp(out, "started\n") == 0, "captured '%s'", out);
    EXPECT(access(marker, F_OK) != 0, "the child ran to its end: not killed");
    unlink(marker);
    rmdir(dir);
}

RL_TEST_SUITE("spawn", {"stdout captured, stderr dropped", test_captures_output},
              {"output cut to the buffer", test_output_cut_to_buffer},
              {"a non-zero exit status", test_exit_status},
              {"a missing program", test_missing_program},
              {"a child past its time limit is killed", test_timeout_kills})
