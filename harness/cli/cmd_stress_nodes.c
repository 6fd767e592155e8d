/* cmd_stress_nodes.c — `ratelab stress --nodes N --coord NAME[:PARAMS]`:
 * N node processes, each with its own workers, tick thread and node state,
 * coordinating through a real Redis (one server or a cluster); the trace
 * spread over them as `sim --nodes` spreads it, each node's decisions in
 * its own log, and the merged logs judged against the strategy's bound
 * (docs/nodes.md, Real runs). */
#include "cli.h"
#include "cmd_stress_nodes.h"
#include "nodes_rows.h"
#include "parse.h"
#include "harness/run/nodes_real.h"
#include "harness/sys/interrupt.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { OPT_NODES = 1000, OPT_COORD, OPT_SYNC };

static void nodes_help(void)
{
    printf(
        "usage: ratelab stress --nodes N --coord NAME[:PARAMS] [--sync T] [--threads K]\n"
        "                      (--redis ADDR | --redis-cluster C) [--spread even|skew:S|hot:MOVE]\n"
        "                      [--limit L --interval DUR] (--trace FILE | --workload W ...)\n"
        "                      [--decisions DIR]\n\n"
        "N node processes share one limit L per I for real: each has its own K worker\n"
        "threads, one tick thread and its own node state (the strategy's node half), and\n"
        "they coordinate only through the Redis store given (the strategy's store half as a\n"
        "script). The trace is spread over the nodes by the same draws as `ratelab sim\n"
        "--nodes` (same seed, same nodes) and each attempt is made at its time; a worker\n"
        "sends its message (central's decision, lease's take) and the tick thread its sync\n"
        "synchronously. Each node appends every decision to DIR/node-<i>.csv as it makes it\n"
        "(t_ns from the run's start, CLOCK_REALTIME; a store's decision at the time the\n"
        "store used), renamed into place when the node ends; a node that dies leaves its\n"
        "log up to its last whole line, and is reported (which, when, how). The merged logs\n"
        "are judged against the strategy's bound, computed with the slowest store call and\n"
        "the longest tick gap the run had. No node outlives ratelab, however it ends.\n\n"
        "  --nodes N         node processes: 1 .. 4 x CPUs (at most 64); more: ratelab sim\n"
        "  --coord SPEC      one strategy, NAME[:PARAMS] as for sim --nodes\n"
        "  --sync T          each node's tick (100ms)\n"
        "  --threads K       worker threads a node (2)\n"
        "  --redis ADDR      the store: unix:PATH, 127.x.x.x:PORT, localhost:PORT, [::1]:PORT\n"
        "  --redis-cluster C the store on a Redis Cluster: NxR private (started and stopped\n"
        "                    by ratelab) or HOST:PORT[,...] to join\n"
        "  --spread RULE     even (default), skew:S or hot:MOVE, as sim --nodes\n"
        "  --decisions DIR   keep the node logs here (created if missing; default: a\n"
        "                    temporary folder, removed after the run)\n"
        "%s\n%s\n"
        "Exit status: 0 ok, 1 a node died, the run failed or was interrupted (the logs up to\n"
        "then are still judged and printed), 2 bad usage, 3 some store calls failed\n",
        rl_cli_trace_window_help, rl_cli_workload_help);
}

bool rl_stress_wants_nodes(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--nodes") == 0 || strncmp(argv[i], "--nodes=", 8) == 0)
            return true;
    return false;
}

struct nodes_plan {
    const char *coord_spec, *trace_path, *spread_text, *redis, *decisions_dir;
    bool cluster;
    uint64_t nodes, threads;
    struct rl_config cfg; /* L, I and the store's address */
    struct rl_cli_workload workload;
    struct rl_nodes_real_config real;
    struct rl_trace trace;
    struct rl_workload_params wparams;
    char trace_name[256], dir[PATH_MAX];
    bool temporary_dir;
};

static void parse_options(const char *cmd, int argc, char **argv, struct nodes_plan *plan)
{
    static const struct option options[] = {
        RL_CLI_HELP_OPTION,
        RL_CLI_WINDOW_OPTIONS,
        RL_CLI_WORKLOAD_OPTIONS,
        {"trace", required_argument, NULL, OPT_TRACE},
        {"nodes", required_argument, NULL, OPT_NODES},
        {"coord", required_argument, NULL, OPT_COORD},
        {"sync", required_argument, NULL, OPT_SYNC},
        {"threads", required_argument, NULL, OPT_THREADS},
        {"redis", required_argument, NULL, OPT_REDIS},
        {"redis-cluster", required_argument, NULL, OPT_REDIS_CLUSTER},
        {"decisions", required_argument, NULL, OPT_DECISIONS},
        {0}};
    int code;
    char err[512];
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        switch (code) {
        case OPT_HELP:
            nodes_help();
            exit(0);
        case OPT_TRACE:
            plan->trace_path = optarg;
            break;
        case OPT_NODES:
            plan->nodes = rl_cli_nodes_option(cmd, optarg);
            break;
        case OPT_COORD:
            plan->coord_spec = optarg;
            break;
        case OPT_SYNC:
            if (rl_parse_duration_ns(optarg, &plan->real.run.p.sync_ns, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--sync: %s", err);
            if (plan->real.run.p.sync_ns == 0)
                rl_cli_usage_error(cmd, "--sync must be greater than 0");
            break;
        case OPT_THREADS:
            if (rl_parse_u64(optarg, 1, 64, &plan->threads, err, sizeof err) != 0)
                rl_cli_usage_error(cmd, "--threads: %s", err);
            break;
        case OPT_REDIS:
            plan->redis = optarg;
            break;
        case OPT_REDIS_CLUSTER:
            rl_cli_redis_cluster_option(cmd, optarg);
            plan->cluster = true;
            break;
        case OPT_DECISIONS:
            plan->decisions_dir = optarg;
            break;
        case OPT_SPREAD: /* a node rule, or the boundary workload's duration */
            if (strcmp(optarg, "even") == 0 || strchr(optarg, ':'))
                plan->spread_text = optarg;
            else if (!rl_cli_workload_option(cmd, code, optarg, &plan->workload))
                rl_cli_bad_option(cmd, code, argv);
            break;
        default:
            if (!rl_cli_limiter_option(cmd, code, optarg, &plan->cfg) &&
                !rl_cli_workload_option(cmd, code, optarg, &plan->workload))
                rl_cli_bad_option(cmd, code, argv);
        }
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
}

/* Every check that needs no trace and starts nothing: bad input is one
 * line and exit 2 before any process, server or file. */
static void check_plan(const char *cmd, struct nodes_plan *plan)
{
    char why[128], err[512];
    uint32_t most = rl_nodes_real_max_nodes((unsigned)plan->threads, why, sizeof why);
    if (plan->nodes > most)
        rl_cli_usage_error(cmd,
                           "--nodes %llu: this machine runs at most %u node processes (%s); "
                           "simulate more: ratelab sim --nodes %llu",
                           (unsigned long long)plan->nodes, most, why,
                           (unsigned long long)plan->nodes);
    if (plan->coord_spec == NULL)
        rl_cli_usage_error(cmd, "--coord is required with --nodes (one strategy, NAME[:PARAMS])");
    if (strchr(plan->coord_spec, '+') || strcmp(plan->coord_spec, "all") == 0)
        rl_cli_usage_error(cmd, "--coord: one strategy a real run, not '%s'", plan->coord_spec);
    struct rl_nodes_config *run = &plan->real.run;
    run->p.limit = plan->cfg.limit;
    run->p.interval_ns = plan->cfg.interval_ns;
    run->p.nodes = (uint32_t)plan->nodes;
    if (rl_coord_parse(plan->coord_spec, &run->coord, &run->p, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "--coord: %s", err);
    if (plan->redis == NULL && !plan->cluster)
        rl_cli_usage_error(cmd, "--nodes needs a store the nodes share: --redis ADDR or "
                                "--redis-cluster C");
    if (plan->spread_text && rl_node_spread_parse(plan->spread_text, &run->spread,
                                                  rl_parse_duration_ns, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "%s", err);
    if ((plan->trace_path != NULL) == plan->workload.named)
        rl_cli_usage_error(cmd, "give exactly one of --trace FILE or --workload W");
    if (plan->trace_path && plan->workload.set)
        rl_cli_usage_error(cmd, "workload options need --workload, not --trace");
    const char *dir = plan->decisions_dir;
    struct stat st;
    if (dir && stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        rl_cli_usage_error(cmd, "--decisions %s: not a folder (node-<i>.csv go into it)", dir);
    if (dir && stat(dir, &st) != 0) {
        char parent[PATH_MAX];
        snprintf(parent, sizeof parent, "%s", dir);
        char *slash = strrchr(parent, '/');
        if (slash)
            slash[slash == parent ? 1 : 0] = '\0';
        if (access(slash ? parent : ".", W_OK) != 0)
            rl_cli_usage_error(cmd, "--decisions %s: cannot create it: %s", dir, strerror(errno));
    } else if (dir && access(dir, W_OK) != 0) {
        rl_cli_usage_error(cmd, "--decisions %s: cannot write in it: %s", dir, strerror(errno));
    }
}

static void load_trace(const char *cmd, struct nodes_plan *plan)
{
    if (plan->trace_path) {
        char err[512];
        if (rl_trace_read_csv_order(plan->trace_path, false, &plan->trace, err, sizeof err) != 0)
            rl_cli_usage_error(cmd, "%s", err);
        const char *slash = strrchr(plan->trace_path, '/');
        snprintf(plan->trace_name, sizeof plan->trace_name, "%s",
                 slash ? slash + 1 : plan->trace_path);
        plan->real.run.seed = 1;
    } else {
        rl_cli_workload_build(cmd, &plan->workload, &plan->cfg, &plan->wparams, &plan->trace);
        snprintf(plan->trace_name, sizeof plan->trace_name, "%s", plan->wparams.name);
        plan->real.run.seed = plan->wparams.seed;
        if (strcmp(plan->wparams.name, "flash") == 0)
            plan->real.run.step_ns = plan->wparams.flash_at_ns;
    }
    if (plan->trace.len == 0)
        rl_cli_usage_error(cmd, "the trace has no attempts");
    /* the same node state as the simulator holds: every key at every node */
    rl_nodes_prepare(&plan->real.run, plan->trace.key_count);
}

/* The store (a private cluster is started here; a given one must answer)
 * and the logs' folder. */
static void prepare_store(const char *cmd, struct nodes_plan *plan)
{
    const struct rl_algo *remote = rl_registry_find("redis_noop");
    if (remote == NULL)
        rl_cli_run_error(cmd, "no Redis client in this build");
    rl_cli_prepare_remote(cmd, &remote, 1, plan->redis, false, &plan->cfg);
    plan->real.remote = plan->cfg.remote;
    if (plan->decisions_dir) {
        if (mkdir(plan->decisions_dir, 0777) != 0 && errno != EEXIST)
            rl_cli_run_error(cmd, "--decisions %s: %s", plan->decisions_dir, strerror(errno));
        snprintf(plan->dir, sizeof plan->dir, "%s", plan->decisions_dir);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(plan->dir, sizeof plan->dir, "%s/ratelab-nodes-XXXXXX",
                 tmp && *tmp ? tmp : "/tmp");
        if (mkdtemp(plan->dir) == NULL)
            rl_cli_run_error(cmd, "cannot make a folder for the node logs: %s", strerror(errno));
        plan->temporary_dir = true;
    }
    plan->real.dir = plan->dir;
}

static void remove_temporary_logs(const struct nodes_plan *plan)
{
    if (!plan->temporary_dir)
        return;
    char path[PATH_MAX + 32];
    for (uint32_t i = 0; i < plan->real.run.p.nodes; i++) {
        snprintf(path, sizeof path, "%s/node-%u.csv", plan->dir, (unsigned)i);
        unlink(path);
        snprintf(path, sizeof path, "%s/node-%u.csv.tmp", plan->dir, (unsigned)i);
        unlink(path);
    }
    rmdir(plan->dir);
}

static void print_nodes(const struct nodes_plan *plan, const struct rl_nodes_real_outcome *out)
{
    double limit = (double)plan->real.run.p.limit;
    for (uint32_t i = 0; i < plan->real.run.p.nodes; i++) {
        const struct rl_node_report *n = &out->nodes[i];
        printf("node %-3u pid %-7d %7llu decisions, %7llu admits, max/L %.2f, %7llu store calls",
               (unsigned)i, (int)(n->pid < 0 ? -n->pid : n->pid), (unsigned long long)n->decisions,
               (unsigned long long)n->admits, (double)n->max_sliding / limit,
               (unsigned long long)n->store_calls);
        if (n->store_errors)
            printf(" (%llu failed)", (unsigned long long)n->store_errors);
        if (n->died && n->signal)
            printf("; DIED at %.3f s: killed by signal %d (%s)", (double)n->died_ns / 1e9,
                   n->signal, strsignal(n->signal));
        else if (n->died)
            printf("; DIED at %.3f s: exit status %d", (double)n->died_ns / 1e9, n->exit_code);
        if (n->log_cut)
            printf("; its log cut at its last whole line, checked");
        printf("\n");
    }
}

static void print_result(const struct nodes_plan *plan, const struct rl_nodes_row *row)
{
    const struct rl_nodes_config *run = &plan->real.run;
    char interval[RL_DURATION_BUF_LEN], sync[RL_DURATION_BUF_LEN], spread[64];
    printf("stress: %u node processes x %u workers share L=%llu per %s; sync %s, spread %s, "
           "store %s; %s: %zu attempts\n\n",
           run->p.nodes, plan->real.threads, (unsigned long long)run->p.limit,
           rl_format_duration_ns(run->p.interval_ns, interval, sizeof interval),
           rl_format_duration_ns(run->p.sync_ns, sync, sizeof sync),
           rl_node_spread_text(&run->spread, spread, sizeof spread),
           plan->cluster ? "Redis Cluster" : "Redis", plan->trace_name, plan->trace.len);
    rl_nodes_print_table(row, 1);
}

int rl_cmd_stress_nodes(int argc, char **argv)
{
    const char *cmd = "stress";
    static struct nodes_plan plan = {.threads = 2};
    rl_cli_limiter_defaults(&plan.cfg);
    plan.real.run.p.sync_ns = 100000000ull;
    parse_options(cmd, argc, argv, &plan);
    check_plan(cmd, &plan);
    load_trace(cmd, &plan);
    plan.real.threads = (unsigned)plan.threads;
    prepare_store(cmd, &plan);
    rl_interrupt_install();
    static struct rl_nodes_real_outcome out;
    char err[512];
    int rc = rl_nodes_real_run(&plan.real, &plan.trace, &out, err, sizeof err);
    if (rc != 0) {
        remove_temporary_logs(&plan);
        rl_cli_run_error(cmd, "%s", err);
    }
    struct rl_nodes_row row = {
        .experiment = "stress", .workload = plan.trace_name, .run = plan.real.run, .out = out.run};
    print_result(&plan, &row);
    printf("\n");
    print_nodes(&plan, &out);
    double limit = (double)plan.real.run.p.limit;
    printf("\nglobal: max_sliding %llu = %.3f L against the bound %.3f L (%s): %s; "
           "%.3f store calls per decision; one node's most %.3f L\n",
           (unsigned long long)out.run.global.max_sliding,
           (double)out.run.global.max_sliding / limit,
           out.run.promised.kind == RL_BOUND_NONE
               ? 0.0
               : (double)rl_promised_bound(&out.run.promised) / limit,
           plan.real.run.coord->bound, rl_held_name(out.run.held),
           out.run.attempts ? (double)out.run.store_calls / (double)out.run.attempts : 0.0,
           (double)out.run.node_max_sliding / limit);
    printf("real delays: slowest store call %.3f ms, an attempt at most %.3f ms late, ticks at "
           "most %.3f ms apart%s\n",
           (double)out.max_rtt_ns / 1e6, (double)out.max_late_ns / 1e6,
           (double)out.max_tick_gap_ns / 1e6,
           plan.temporary_dir ? "" : "; node logs in the --decisions folder");
    remove_temporary_logs(&plan);
    int status = 0;
    if (out.interrupted)
        fprintf(stderr, "ratelab stress: interrupted: the nodes were stopped, their logs judged\n");
    for (uint32_t i = 0; i < plan.real.run.p.nodes; i++)
        if (out.nodes[i].died)
            fprintf(stderr, "ratelab stress: node %u died at %.3f s after the start (%s%d)\n",
                    (unsigned)i, (double)out.nodes[i].died_ns / 1e9,
                    out.nodes[i].signal ? "signal " : "exit status ",
                    out.nodes[i].signal ? out.nodes[i].signal : out.nodes[i].exit_code);
    if (out.interrupted || out.died)
        status = 1;
    else if (out.store_errors) {
        fprintf(stderr, "ratelab stress: warning: %llu store calls failed\n",
                (unsigned long long)out.store_errors);
        status = RL_EXIT_ERRORS;
    }
    rl_nodes_real_free(&out);
    rl_trace_free(&plan.trace);
    return status;
}
