/* main.c — `ratelab SUBCOMMAND [options]`: dispatch and top-level help. */
#include "commands.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"list", rl_cmd_list, "list the algorithms: name, family, promise, thread safety, summary"},
    {"sim", rl_cmd_sim, "replay a trace or workload in virtual time and check every decision"},
    {"stress", rl_cmd_stress, "closed-loop threads: ns/op, Mops/s, ratio to faa, accuracy"},
    {"replay", rl_cmd_replay, "send a trace on time from T threads: latency percentiles, accuracy"},
    {"trace", rl_cmd_trace, "write a generated workload as a trace CSV (t_ns,key,n)"},
    {"check", rl_cmd_check, "check any decision log (t_ns,key,n,admitted,thread) against L, I"},
    {"clocks", rl_cmd_clocks, "measure each clock's cost per read and resolution"},
    {"keys", rl_cmd_keys, "memory of the keyed container: per key, and under key churn"},
    {"bench", rl_cmd_bench, "run a benchmark suite and write a results CSV"},
    {"litmus", rl_cmd_litmus, "hardware litmus tests (SB, MP) per memory order, per 10^6 trials"},
    {"teach", rl_cmd_teach, "lessons on atomicity and memory ordering: list them, or run one"},
    {"claims", rl_cmd_claims, "measure published claims: source, figure, verdict, command"},
};

static void usage(FILE *out)
{
    fprintf(out, "ratelab — a laboratory for rate limiters\n\n"
                 "usage: ratelab COMMAND [options]   (ratelab COMMAND --help for its options)\n\n"
                 "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nExit status: 0 success, 1 a run failed (or its output could not be\n"
                 "written), 2 bad usage or input, 3 the run finished but some decisions\n"
                 "were errors (a limiter's backend failed).\n");
}

/* A closed standard output must fail the run, not lend its descriptor to
 * the next file opened (a results CSV would then receive the tables). A
 * read-only /dev/null there makes every write fail, and the end says so. */
static void hold_standard_descriptors(void)
{
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int held = open("/dev/null", O_RDONLY);
            if (held >= 0 && held != fd) {
                dup2(held, fd);
                close(held);
            }
        }
}

/* Tables, CSV and JSON on stdout are results too: a full disk or a closed
 * pipe must not look like success. One line, exit status 1. */
static int finish(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "ratelab: cannot write standard output: %s\n",
                errno ? strerror(errno) : "write error");
        return status == 2 ? 2 : 1;
    }
    return status;
}

int main(int argc, char **argv)
{
    hold_standard_descriptors();
    opterr = 0; /* subcommands report bad options themselves, in one line */
    /* A write to a Redis server that died must be an error answer, not the
     * end of the process. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return finish(0);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return finish(commands[i].run(argc - 1, argv + 1));
    fprintf(stderr,
            "ratelab: unknown command '%s' (accepted: list, sim, stress, replay, trace, claims, "
            "check, clocks, keys, bench, litmus, teach; see ratelab --help)\n",
            argv[1]);
    return 2;
}
