/* test_outfile.c — the output layer (harness/io/outfile.h) and what a user
 * sees of it: a device is written in place, never replaced; a planted
 * symlink is never followed; an interrupted writer leaves no temporary; a
 * full or closed standard output is an error. */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"

#include "harness/io/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char dir[64];

static const char *in_dir(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", dir, name);
    return buf;
}

static void make_dir(void)
{
    strcpy(dir, "/tmp/ratelab-test-outfile-XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
}

/* Names in dir other than those listed (NULL-terminated), space separated;
 * "" when there are none. */
static const char *others(const char *const *keep)
{
    static char names[1024];
    names[0] = '\0';
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    for (struct dirent *e; (e = readdir(d));) {
        bool kept = e->d_name[0] == '.' && (e->d_name[1] == '\0' || strcmp(e->d_name, "..") == 0);
        for (size_t i = 0; keep && keep[i] && !kept; i++)
            kept = strcmp(e->d_name, keep[i]) == 0;
        if (!kept && strlen(names) + strlen(e->d_name) + 2 < sizeof names) {
            strcat(names, e->d_name);
            strcat(names, " ");
        }
    }
    closedir(d);
    return names;
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
}

static void write_text(struct rl_outfile *out, const char *text)
{
    rl_outfile_bytes(out, text, strlen(text));
}

static void test_commit_and_abort(void)
{
    make_dir();
    char path[128], err[256];
    struct rl_outfile out;
    in_dir("a.csv", path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(rl_outfile_open(&out, path, err, sizeof err), 0);
    write_text(&out, "x,y\n");
    rl_outfile_u64(&out, 18446744073709551615ull);
    EXPECT(strstr(others(NULL), ".tmp.") != NULL, "no temporary while writing: %s", others(NULL));
    EXPECT(access(path, F_OK) != 0, "the target appears only on commit");
    CU_ASSERT_EQUAL(rl_outfile_commit(&out, err, sizeof err), 0);
    FILE *f = fopen(path, "r");
    char line[64] = "";
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
    fclose(f);
    CU_ASSERT_STRING_EQUAL(line, "18446744073709551615");
    struct stat st;
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    mode_t mask = umask(022);
    umask(mask);
    EXPECT_EQ(st.st_mode & 0777, 0666 & ~mask);

    /* An abort leaves the old file as it was and nothing beside it. */
    CU_ASSERT_EQUAL_FATAL(rl_outfile_open(&out, path, err, sizeof err), 0);
    write_text(&out, "half");
    rl_outfile_abort(&out);
    const char *keep[] = {"a.csv", NULL};
    EXPECT(others(keep)[0] == '\0', "left behind: %s", others(keep));
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    EXPECT_EQ(st.st_size, 24);
    struct rl_outfile zeroed = {0};
    rl_outfile_abort(&zeroed); /* harmless */
    remove_dir();
}

/* A character device named as the output is written in place: the commit's
 * rename would replace the node with a regular file (as root). The node is
 * made in a scratch folder with /dev/null's numbers, never a real /dev
 * entry, where mknod is allowed; elsewhere (not root) the case runs on
 * /dev/null itself, which such a process can neither rename over nor make a
 * temporary beside, so a commit that is not in place fails there too. */
static void test_device_written_in_place(void)
{
    make_dir();
    char path[128], err[256];
    in_dir("null", path, sizeof path);
    bool scratch = mknod(path, S_IFCHR | 0666, makedev(1, 3)) == 0;
    if (!scratch)
        snprintf(path, sizeof path, "/dev/null");
    struct rl_outfile out;
    CU_ASSERT_EQUAL_FATAL(rl_outfile_open(&out, path, err, sizeof err), 0);
    write_text(&out, "into the device\n");
    CU_ASSERT_EQUAL(rl_outfile_commit(&out, err, sizeof err), 0);
    struct stat st;
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    EXPECT(S_ISCHR(st.st_mode), "the device %s was replaced (mode %o)", path, (unsigned)st.st_mode);
    const char *keep[] = {scratch ? "null" : NULL, NULL};
    EXPECT(others(keep)[0] == '\0', "left behind: %s", others(keep));

    /* The same through the CLI: --decisions and --out name the device. */
    char args[512];
    struct rl_cli_outcome *o = malloc(sizeof *o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    snprintf(args, sizeof args,
             "sim --algo fw_cas --workload uniform --decisions %s --format csv > %s", path, path);
    rl_cli_run(o, args);
    EXPECT_EQ(o->status, 0);
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    EXPECT(S_ISCHR(st.st_mode), "the CLI replaced the device (mode %o)", (unsigned)st.st_mode);
    free(o);
    remove_dir();
}

/* A symlink at the target: the commit writes its target's place, and the
 * link stays a link. */
static void test_symlink_target(void)
{
    make_dir();
    char path[128], real[128], err[256];
    in_dir("real.csv", real, sizeof real);
    in_dir("link.csv", path, sizeof path);
    CU_ASSERT_EQUAL_FATAL(symlink(real, path), 0);
    struct rl_outfile out;
    CU_ASSERT_EQUAL_FATAL(rl_outfile_open(&out, path, err, sizeof err), 0);
    write_text(&out, "through the link\n");
    CU_ASSERT_EQUAL(rl_outfile_commit(&out, err, sizeof err), 0);
    struct stat st;
    CU_ASSERT_EQUAL(lstat(path, &st), 0);
    EXPECT(S_ISLNK(st.st_mode), "the link was replaced");
    CU_ASSERT_EQUAL(stat(real, &st), 0);
    EXPECT_EQ(st.st_size, 17);
    remove_dir();
}

/* Polls for a file named with `part` in dir, up to timeout_ms; true when
 * one appeared. */
static bool appears(const char *part, unsigned timeout_ms)
{
    for (unsigned waited = 0; waited < timeout_ms; waited += 5) {
        if (strstr(others(NULL), part))
            return true;
        struct timespec step = {0, 5000000L};
        nanosleep(&step, NULL);
    }
    return false;
}

/* SIGINT or SIGTERM while `trace --out` or `sim --decisions` writes a large
 * file: the process ends by the signal and no temporary is left. The write
 * takes long enough (tens of MB) that the signal lands inside it; a run
 * that finished first counts as not having tested anything. */
static void test_interrupted_writers_clean_up(void)
{
    const char *writers[] = {
        "trace --workload uniform --rate 20000000 --duration 1s --keys 1000 --out %s/big.csv",
        "sim --algo null --workload uniform --rate 5000000 --duration 1s --decisions "
        "%s/big.csv --format csv",
    };
    const int signals[] = {SIGINT, SIGTERM};
    for (size_t w = 0; w < 2; w++)
        for (size_t s = 0; s < 2; s++) {
            make_dir();
            char args[512];
            snprintf(args, sizeof args, writers[w], dir);
            const char *bin = getenv("RATELAB_BIN");
            char cmd[1024];
            snprintf(cmd, sizeof cmd, "exec %s %s >/dev/null 2>&1", bin ? bin : "build/ratelab",
                     args);
            pid_t pid = fork();
            if (pid == 0) {
                execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
                _exit(127);
            }
            bool writing = appears(".tmp.", 20000);
            kill(pid, signals[s]);
            int status = 0;
            waitpid(pid, &status, 0);
            EXPECT(writing, "writer %zu never showed its temporary", w);
            EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == signals[s],
                   "writer %zu, signal %d: not ended by it (status %#x)", w, signals[s], status);
            EXPECT(others(NULL)[0] == '\0', "writer %zu, signal %d left: %s", w, signals[s],
                   others(NULL));
            remove_dir();
        }
}

/* Runs `ratelab ARGS` with stdout redirected as `redirect` says (the shell's
 * words: "> /dev/full", ">&-") and stderr into err; returns the exit status. */
static int run_redirected(const char *args, const char *redirect, char *err, size_t err_len,
                          int *err_lines)
{
    const char *bin = getenv("RATELAB_BIN");
    char err_path[] = "/tmp/ratelab-outfile-err-XXXXXX";
    close(mkstemp(err_path));
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s %s 2>%s </dev/null", bin ? bin : "build/ratelab", args,
             redirect, err_path);
    int raw = system(cmd);
    FILE *f = fopen(err_path, "r");
    size_t n = f ? fread(err, 1, err_len - 1, f) : 0;
    err[n] = '\0';
    if (f)
        fclose(f);
    unlink(err_path);
    *err_lines = 0;
    for (const char *c = err; *c; c++)
        *err_lines += *c == '\n';
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

/* Results on a full or closed standard output: one line, exit status 1. */
static void test_stdout_failures(void)
{
    const char *args[] = {
        "list",
        "sim --algo fw_cas --workload uniform",
        "sim --algo fw_cas --workload uniform --format csv",
        "sim --algo fw_cas --workload uniform --format json",
        "trace --workload uniform --out -",
        "check --help",
    };
    const char *redirects[] = {"> /dev/full", ">&-"};
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        for (size_t r = 0; r < 2; r++) {
            char err[1024];
            int lines = 0;
            int status = run_redirected(args[i], redirects[r], err, sizeof err, &lines);
            EXPECT(status == 1 && lines == 1 && strstr(err, "cannot write") != NULL,
                   "'%s %s': status %d, %d stderr lines: %s", args[i], redirects[r], status, lines,
                   err);
        }
}

RL_TEST_SUITE("outfile", {"commit and abort", test_commit_and_abort},
              {"a device is written in place", test_device_written_in_place},
              {"a symlink target is written through", test_symlink_target},
              {"interrupted writers leave no temporary", test_interrupted_writers_clean_up},
              {"full or closed stdout fails the run", test_stdout_failures})
