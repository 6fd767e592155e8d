/* test_nodes_cli.c — `ratelab sim --nodes`: each bad input is one line and
 * exit 2 before any run; the same command gives the same CSV twice. */
#include "tests/support/cli_run.h"
#include "tests/support/test_util.h"

#include <string.h>

#define RUN "sim --workload poisson --duration 1s --limit 100 --interval 100ms "

static void test_bad_inputs(void)
{
    rl_cli_expect_usage_error(RUN "--nodes 0 --coord split", "--nodes must be");
    rl_cli_expect_usage_error(RUN "--nodes x --coord split", "--nodes must be");
    rl_cli_expect_usage_error(RUN "--nodes 4", "--coord is required");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord nope", "unknown coordination strategy 'nope'");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord lease:k=0", "lease: k must be");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord lease:size=3", "unknown parameter 'size'");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord lease:ttl=-1s", "lease: ttl must be");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord split:k=1", "split takes no parameters");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord fps:ewma=2", "ewma must be");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord report: ", "empty parameter list");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord split --sync 0ms", "--sync must be greater");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord split --rtt 5s", "longer than the run");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord split --loss 1", "--loss must be");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord split --spread skew:0", "skew:S needs");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord split --spread hot:x", "hot:MOVE needs");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord split --spread lumpy:1",
                              "--spread must be even");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord lease --node-dies 4@500ms",
                              "node 4 is out of range (nodes are 0 .. 3)");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord lease --node-dies 1@5s", "beyond the run");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord lease --node-dies 1", "takes NODE@TIME");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord lease --node-dies ,", "takes NODE@TIME");
    rl_cli_expect_usage_error(RUN "--nodes 4 --coord lease --node-dies 1@x", "--node-dies 1@x:");
    rl_cli_expect_usage_error(RUN "--nodes 2 --coord lease --node-dies 1@1ms,1@2ms",
                              "node 1 dies twice");
    rl_cli_expect_usage_error(RUN "--nodes 2 --coord lease --node-dies 0@1ms,1@2ms",
                              "every node dies");
}

/* Each line of csv without its last two fields (date and wall_s, the
 * only ones that differ from run to run), into buf. */
static void without_time(const char *csv, char *buf, size_t len)
{
    size_t n = 0;
    for (const char *line = csv; *line && n + 1 < len;) {
        const char *end = strchr(line, '\n');
        if (end == NULL)
            end = line + strlen(line);
        const char *cut = end;
        for (int commas = 0; cut > line && commas < 2;)
            if (*--cut == ',')
                commas++;
        for (const char *c = line; c < cut && n + 1 < len; c++)
            buf[n++] = *c;
        if (n + 1 < len)
            buf[n++] = '\n';
        line = *end ? end + 1 : end;
    }
    buf[n] = '\0';
}

/* Two runs of every strategy with jitter, loss and a skewed spread: the
 * same bytes, but for the date and the wall time. */
static void test_same_csv_twice(void)
{
    static struct rl_cli_outcome a, b;
    const char *args = RUN "--nodes 12 --coord all --sync 20ms --rtt 2ms --jitter 1ms "
                           "--loss 0.02 --spread skew:1 --format csv";
    rl_cli_run(&a, args);
    rl_cli_run(&b, args);
    EXPECT_EQ(a.status, 0);
    EXPECT(rl_cli_lines(a.out) == 9, "want a header and 8 rows: %s", a.out);
    static char x[sizeof a.out], y[sizeof b.out];
    without_time(a.out, x, sizeof x);
    without_time(b.out, y, sizeof y);
    EXPECT(strstr(a.out, ",date,wall_s\n") != NULL, "the last columns: %s", a.out);
    EXPECT(strcmp(x, y) == 0, "two runs differ:\n%s\n%s", x, y);
}

/* The row says what the checker found against the strategy's bound, and
 * where and from which revision it was measured. */
static void test_row_judged(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, RUN "--nodes 4 --coord central+split --format csv");
    EXPECT_EQ(o.status, 0);
    const char *central = strstr(o.out, "sim_nodes,sim,central"),
               *split = strstr(o.out, "sim_nodes,sim,split");
    EXPECT_FATAL(central && split, "rows missing: %s", o.out);
    char held[16];
    EXPECT(strcmp(rl_cli_csv_field(o.out, central, "promise_held", held, sizeof held), "yes") == 0,
           "central held %s", held);
    EXPECT_EQ(rl_cli_csv_number(o.out, central, "bound"), 100);
    EXPECT(rl_cli_csv_number(o.out, split, "max_sliding") <= 100, "split over L");
    /* provenance, as every reference CSV has (tests/provenance.sh reads them) */
    char value[64];
    static const char *const provenance[] = {"host", "git_rev", "date", "cpus"};
    for (size_t i = 0; i < sizeof provenance / sizeof provenance[0]; i++)
        EXPECT(rl_cli_csv_field(o.out, central, provenance[i], value, sizeof value)[0] != '\0',
               "no %s in the row", provenance[i]);
}

/* A death is in the row: which node when, and what it cost. */
static void test_death_row(void)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, RUN "--nodes 4 --coord lease:k=25 --node-dies 2@500ms,3@700ms --format csv");
    EXPECT_EQ(o.status, 0);
    const char *lease = strstr(o.out, "sim_nodes,sim,lease");
    EXPECT_FATAL(lease != NULL, "row missing: %s", o.out);
    char dies[64], ratio[32];
    EXPECT(strcmp(rl_cli_csv_field(o.out, lease, "dies", dies, sizeof dies),
                  "2@500000000ns+3@700000000ns") == 0,
           "dies %s", dies);
    EXPECT(rl_cli_csv_field(o.out, lease, "death_window_ratio", ratio, sizeof ratio)[0] != '\0',
           "no death_window_ratio");
}

RL_TEST_SUITE("nodes_cli", {"bad_inputs", test_bad_inputs}, {"same_csv_twice", test_same_csv_twice},
              {"row_judged", test_row_judged}, {"death_row", test_death_row});
