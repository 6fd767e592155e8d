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
}

/* Two runs of every strategy with jitter, loss and a skewed spread: the
 * same bytes. */
static void test_same_csv_twice(void)
{
    static struct rl_cli_outcome a, b;
    const char *args = RUN "--nodes 12 --coord all --sync 20ms --rtt 2ms --jitter 1ms "
                           "--loss 0.02 --spread skew:1 --format csv";
    rl_cli_run(&a, args);
    rl_cli_run(&b, args);
    EXPECT_EQ(a.status, 0);
    EXPECT(rl_cli_lines(a.out) == 9, "want a header and 8 rows: %s", a.out);
    EXPECT(strcmp(a.out, b.out) == 0, "two runs differ:\n%s\n%s", a.out, b.out);
}

/* The row says what the checker found against the strategy's bound. */
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
}

RL_TEST_SUITE("nodes_cli", {"bad_inputs", test_bad_inputs}, {"same_csv_twice", test_same_csv_twice},
              {"row_judged", test_row_judged});
