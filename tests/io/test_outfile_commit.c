/* test_outfile_commit.c — a commit whose writes failed must leave the old
 * target as it was (outfile.h's promise: whole or not at all). The write
 * failure is real: a child process lowers RLIMIT_FSIZE below what it writes,
 * so write(2) fails with EFBIG partway through, as on a full disk. */
#include "tests/support/test_util.h"

#include "harness/io/outfile.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define OLD_CONTENT "the old file, whole\n"

/* Child exit statuses. */
enum { COMMIT_FAILED = 0, COMMIT_SUCCEEDED = 1, OPEN_FAILED = 2, LIMIT_FAILED = 3 };

/* In the child: writes 256 KiB through an outfile on path with a 16 KiB file
 * size limit, then commits. */
static int write_past_the_limit(const char *path)
{
    signal(SIGXFSZ, SIG_IGN); /* EFBIG from write(2), not a signal */
    struct rlimit lim = {16384, 16384};
    if (setrlimit(RLIMIT_FSIZE, &lim) != 0)
        return LIMIT_FAILED;
    struct rl_outfile out;
    char err[512];
    if (rl_outfile_open(&out, path, err, sizeof err) != 0)
        return OPEN_FAILED;
    char line[64];
    for (int i = 0; i < 8192; i++) {
        int len = snprintf(line, sizeof line, "%d,new row of the run that fails\n", i);
        rl_outfile_bytes(&out, line, (size_t)len);
    }
    return rl_outfile_commit(&out, err, sizeof err) == 0 ? COMMIT_SUCCEEDED : COMMIT_FAILED;
}

static void test_failed_commit_keeps_old_file(void)
{
    char dir[] = "/tmp/ratelab-outfile-commit-XXXXXX";
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/result.csv", dir);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(OLD_CONTENT, f);
    fclose(f);

    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0)
        _exit(write_past_the_limit(path));
    int status = 0;
    CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == COMMIT_FAILED,
           "the child's commit: exit %d (0 failed as it must, 1 succeeded, 2 open failed, 3 no "
           "limit), signal %d",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1,
           WIFSIGNALED(status) ? WTERMSIG(status) : 0);

    char got[256] = "";
    f = fopen(path, "r");
    EXPECT(f != NULL, "the old target is gone after a failed commit");
    if (f) {
        size_t n = fread(got, 1, sizeof got - 1, f);
        got[n] = '\0';
        fclose(f);
    }
    EXPECT(strcmp(got, OLD_CONTENT) == 0,
           "the target after a failed commit holds %zu bytes: %.40s…", strlen(got), got);

    /* nothing left beside it: the temporary was removed */
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            strcmp(e->d_name, "result.csv") != 0) {
            EXPECT(0, "left beside the target: %s", e->d_name);
        }
    closedir(d);
    unlink(path);
    CU_ASSERT_EQUAL(rmdir(dir), 0);
}

RL_TEST_SUITE("outfile_commit", {"a commit whose writes failed keeps the old file",
                                 test_failed_commit_keeps_old_file})
