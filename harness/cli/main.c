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
#define RL_COMMAND(name, summary) {#name, rl_cmd_##name, summary},
#include "commands.def"
#undef RL_COMMAND
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
    fprintf(stderr, "ratelab: unknown command '%s' (accepted:", argv[1]);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(stderr, "%s %s", i ? "," : "", commands[i].name);
    fprintf(stderr, "; see ratelab --help)\n");
    return 2;
}
