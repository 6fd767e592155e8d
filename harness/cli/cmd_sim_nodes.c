/* cmd_sim_nodes.c — `ratelab sim --nodes N --coord NAME[:PARAMS]`: a trace
 * spread over N simulated nodes that share one limit by a coordination
 * strategy, in virtual time, every decision checked against the strategy's
 * derived bound (docs/nodes.md). */
#include "cli.h"
#include "cmd_sim_nodes.h"
#include "nodes_rows.h"
#include "output.h"
#include "parse.h"
#include "harness/run/nodes_sim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Options of their own: above the shared ones' numbers. */
enum { OPT_NODES = 1000, OPT_COORD, OPT_SYNC, OPT_RTT, OPT_JITTER, OPT_LOSS, OPT_NODE_DIES };

#define MAX_COORDS 16
/* nodes × keys a run may hold state for (each node keeps every key's) */
#define MAX_NODE_KEYS 100000000ull

static void nodes_help(void)
{
    printf("usage: ratelab sim --nodes N --coord LIST [--sync T] [--rtt D]\n"
           "                   [--jitter J] [--loss P] [--spread even|skew:S|hot:MOVE]\n"
           "                   [--node-dies NODE@TIME[,NODE@TIME...]]\n"
           "                   [--limit L --interval DUR] (--trace FILE | --workload W ...)\n"
           "                   [--format F] [--out FILE.csv]\n\n"
           "N nodes share one limit L per I: every attempt arrives at one node (--spread), and\n"
           "the strategy decides how the nodes share L. Discrete-event simulation in virtual\n"
           "time on one thread, deterministic for a seed (the workload's, 1 for a trace):\n"
           "messages between a node and the shared store take RTT/2 plus up to J of jitter,\n"
           "keep their order on each link, and are lost with probability P. Every decision\n"
           "is streamed into the checker and judged against the strategy's derived bound\n"
           "(docs/nodes.md). sim has no limit on N but memory: a node is a few hundred bytes\n"
           "per key, not a process.\n\n"
           "  --nodes N         nodes (1 ..; N × keys ≤ %llu)\n"
           "  --coord LIST      NAME[:PARAMS] joined by '+', or all:\n",
           MAX_NODE_KEYS);
    for (const struct rl_coord *const *c = rl_coord_registry; *c; c++)
        printf("      %-8s %s\n%15sbound %s\n", (*c)->name, (*c)->summary, "", (*c)->bound);
    printf("                    h: the most one node is offered in 2T + 3D, D = RTT/2 + J\n"
           "                    parameters: lease:k=TOKENS,ttl=DUR (default k=max(1,L/4N),\n"
           "                    ttl=I); gtb, grd, fps: ewma=W (default 0.1)\n"
           "  --sync T          each node's tick: reports, estimates, lease returns (100ms)\n"
           "  --rtt D           a node's round trip to the store (1ms); at most the run\n"
           "  --jitter J        up to J more on each message, uniform (0)\n"
           "  --loss P          each message lost with probability P in [0, 1) (0)\n"
           "  --spread RULE     even (default); skew:S, node i with weight 1/(i+1)^S;\n"
           "                    hot:MOVE, half the attempts at one node, the next every MOVE\n"
           "  --node-dies N@T   node N (0 .. N-1) dies at T: it decides and sends nothing\n"
           "                    more and keeps what it holds (a lease's tokens); its\n"
           "                    traffic goes to the live nodes. A list: 3@5s,7@6s (%d at most);\n"
           "                    rows add what the dead held (stranded), when the store\n"
           "                    let it go (freed_ns) and admitted/L after the death\n"
           "%s\n%s\n%s\n%s",
           RL_NODES_MAX_DEATHS, rl_cli_output_help, rl_cli_trace_window_help, rl_cli_workload_help,
           rl_cli_exit_help);
}

bool rl_sim_wants_nodes(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--nodes") == 0 || strncmp(argv[i], "--nodes=", 8) == 0)
            return true;
    return false;
}

struct nodes_plan {
    const char *coord_list, *trace_path, *spread_text;
    const char *death_text[RL_NODES_MAX_DEATHS];
    size_t death_texts;
    struct rl_cli_output output;
    struct rl_config cfg; /* L and I */
    struct rl_cli_workload workload;
    struct rl_nodes_config run; /* every strategy's network and spread */
    const struct rl_coord *coords[MAX_COORDS];
    char labels[MAX_COORDS][128]; /* each as --coord spelled it */
    struct rl_coord_params params[MAX_COORDS];
    size_t coord_count;
    uint64_t nodes;
    bool rtt_given;
    struct rl_trace trace;
    struct rl_workload_params wparams;
    char trace_name[256];
};

static uint64_t need_duration(const char *cmd, const char *opt, const char *arg, bool zero_ok)
{
    uint64_t ns;
    char err[256];
    if (rl_parse_duration_ns(arg, &ns, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "--%s: %s", opt, err);
    if (ns == 0 && !zero_ok)
        rl_cli_usage_error(cmd, "--%s must be greater than 0", opt);
    return ns;
}

static bool parse_options(const char *cmd, int argc, char **argv, struct nodes_plan *plan)
{
    static const struct option options[] = {RL_CLI_HELP_OPTION,
                                            RL_CLI_WINDOW_OPTIONS,
                                            RL_CLI_WORKLOAD_OPTIONS,
                                            {"trace", required_argument, NULL, OPT_TRACE},
                                            {"nodes", required_argument, NULL, OPT_NODES},
                                            {"coord", required_argument, NULL, OPT_COORD},
                                            {"sync", required_argument, NULL, OPT_SYNC},
                                            {"rtt", required_argument, NULL, OPT_RTT},
                                            {"jitter", required_argument, NULL, OPT_JITTER},
                                            {"loss", required_argument, NULL, OPT_LOSS},
                                            {"node-dies", required_argument, NULL, OPT_NODE_DIES},
                                            RL_CLI_OUTPUT_OPTIONS,
                                            {0}};
    int code;
    char *end;
    while ((code = rl_cli_getopt(cmd, argc, argv, options)) != -1) {
        switch (code) {
        case OPT_HELP:
            nodes_help();
            return false;
        case OPT_TRACE:
            plan->trace_path = optarg;
            break;
        case OPT_NODES:
            plan->nodes = rl_cli_nodes_option(cmd, optarg);
            break;
        case OPT_COORD:
            plan->coord_list = optarg;
            break;
        case OPT_SYNC:
            plan->run.p.sync_ns = need_duration(cmd, "sync", optarg, false);
            break;
        case OPT_RTT:
            plan->run.rtt_ns = need_duration(cmd, "rtt", optarg, true);
            plan->rtt_given = true;
            break;
        case OPT_JITTER:
            plan->run.jitter_ns = need_duration(cmd, "jitter", optarg, true);
            break;
        case OPT_LOSS:
            plan->run.loss = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(plan->run.loss >= 0 && plan->run.loss < 1))
                rl_cli_usage_error(cmd, "--loss must be a probability in [0, 1), not '%s'", optarg);
            break;
        case OPT_NODE_DIES: /* NODE@TIME, joined by ',' (each option is given once) */
            for (char *save = NULL, *item = strtok_r(optarg, ",", &save); item;
                 item = strtok_r(NULL, ",", &save)) {
                if (plan->death_texts == RL_NODES_MAX_DEATHS)
                    rl_cli_usage_error(cmd, "--node-dies: at most %d deaths in one run",
                                       RL_NODES_MAX_DEATHS);
                plan->death_text[plan->death_texts++] = item;
            }
            if (plan->death_texts == 0)
                rl_cli_usage_error(cmd, "--node-dies takes NODE@TIME (3@5s), not '%s'", optarg);
            break;
        case OPT_SPREAD: /* a node rule, or the boundary workload's duration */
            if (strcmp(optarg, "even") == 0 || strchr(optarg, ':'))
                plan->spread_text = optarg;
            else if (!rl_cli_workload_option(cmd, code, optarg, &plan->workload))
                rl_cli_bad_option(cmd, code, argv);
            break;
        default:
            if (!rl_cli_limiter_option(cmd, code, optarg, &plan->cfg) &&
                !rl_cli_workload_option(cmd, code, optarg, &plan->workload) &&
                !rl_cli_output_option(cmd, code, optarg, &plan->output))
                rl_cli_bad_option(cmd, code, argv);
        }
    }
    if (optind < argc)
        rl_cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return true;
}

/* "all", or NAME[:PARAMS] joined by '+': each parsed for this L and N. */
static void parse_coords(const char *cmd, struct nodes_plan *plan)
{
    if (plan->coord_list == NULL)
        rl_cli_usage_error(cmd,
                           "--coord is required (one of: central, split, local, lease, report, "
                           "gtb, grd, fps; or all)");
    char list[1024], err[512];
    if (strcmp(plan->coord_list, "all") == 0) {
        list[0] = '\0';
        for (const struct rl_coord *const *c = rl_coord_registry; *c; c++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                     c == rl_coord_registry ? "" : "+", (*c)->name);
    } else if (snprintf(list, sizeof list, "%s", plan->coord_list) >= (int)sizeof list) {
        rl_cli_usage_error(cmd, "--coord: the list is too long");
    }
    char *save = NULL;
    for (char *item = strtok_r(list, "+", &save); item; item = strtok_r(NULL, "+", &save)) {
        if (plan->coord_count == MAX_COORDS)
            rl_cli_usage_error(cmd, "--coord: at most %d strategies in one run", MAX_COORDS);
        struct rl_coord_params *p = &plan->params[plan->coord_count];
        *p = plan->run.p;
        if (rl_coord_parse(item, &plan->coords[plan->coord_count], p, err, sizeof err) != 0)
            rl_cli_usage_error(cmd, "--coord: %s", err);
        snprintf(plan->labels[plan->coord_count], sizeof plan->labels[0], "%s", item);
        plan->coord_count++;
    }
    if (plan->coord_count == 0)
        rl_cli_usage_error(cmd, "--coord: no strategy named");
}

static void check_plan(const char *cmd, struct nodes_plan *plan)
{
    rl_cli_output_check(cmd, &plan->output);
    const struct rl_cli_file files[] = {{"--out", plan->output.out_path, true},
                                        {"--trace", plan->trace_path, false}};
    rl_cli_require_distinct_files(cmd, files, sizeof files / sizeof files[0]);
    if ((plan->trace_path != NULL) == plan->workload.named)
        rl_cli_usage_error(cmd, "give exactly one of --trace FILE or --workload W");
    if (plan->trace_path && plan->workload.set)
        rl_cli_usage_error(cmd, "workload options need --workload, not --trace");
    char err[512];
    if (plan->spread_text && rl_node_spread_parse(plan->spread_text, &plan->run.spread,
                                                  rl_parse_duration_ns, err, sizeof err) != 0)
        rl_cli_usage_error(cmd, "%s", err);
    plan->run.p.limit = plan->cfg.limit;
    plan->run.p.interval_ns = plan->cfg.interval_ns;
    plan->run.p.nodes = (uint32_t)plan->nodes;
    parse_coords(cmd, plan);
    for (size_t i = 0; i < plan->death_texts; i++) {
        struct rl_node_death *d = &plan->run.deaths[i];
        if (rl_node_death_parse(plan->death_text[i], plan->run.p.nodes, d, rl_parse_duration_ns,
                                err, sizeof err) != 0)
            rl_cli_usage_error(cmd, "%s", err);
        for (size_t j = 0; j < i; j++)
            if (plan->run.deaths[j].node == d->node)
                rl_cli_usage_error(cmd, "--node-dies: node %u dies twice", d->node);
    }
    plan->run.death_count = plan->death_texts;
    if (plan->death_texts > 0 && plan->death_texts == plan->run.p.nodes)
        rl_cli_usage_error(cmd, "--node-dies: every node dies; at least one must live");
}

/* The trace, then what needs its size: N × keys, and an RTT no longer than
 * the run (a message that would arrive after every attempt tells nothing). */
static void load_trace(const char *cmd, struct nodes_plan *plan)
{
    if (plan->trace_path) {
        char err[512];
        if (rl_trace_read_csv_order(plan->trace_path, false, &plan->trace, err, sizeof err) != 0)
            rl_cli_usage_error(cmd, "%s", err);
        const char *slash = strrchr(plan->trace_path, '/');
        snprintf(plan->trace_name, sizeof plan->trace_name, "%s",
                 slash ? slash + 1 : plan->trace_path);
        plan->run.seed = 1;
    } else {
        rl_cli_workload_build(cmd, &plan->workload, &plan->cfg, &plan->wparams, &plan->trace);
        snprintf(plan->trace_name, sizeof plan->trace_name, "%s", plan->wparams.name);
        plan->run.seed = plan->wparams.seed;
        if (strcmp(plan->wparams.name, "flash") == 0)
            plan->run.step_ns = plan->wparams.flash_at_ns;
    }
    uint64_t span = rl_cli_trace_span_ns(&plan->trace, plan->wparams.duration_ns);
    if (plan->run.rtt_ns > span)
        rl_cli_usage_error(cmd, "--rtt %llu ns is longer than the run (%llu ns)",
                           (unsigned long long)plan->run.rtt_ns, (unsigned long long)span);
    for (size_t i = 0; i < plan->run.death_count; i++)
        if (plan->run.deaths[i].at_ns > span)
            rl_cli_usage_error(cmd, "--node-dies %s: %llu ns is beyond the run (%llu ns)",
                               plan->death_text[i], (unsigned long long)plan->run.deaths[i].at_ns,
                               (unsigned long long)span);
    uint64_t keys = plan->trace.key_count ? plan->trace.key_count : 1;
    if (plan->nodes * keys > MAX_NODE_KEYS)
        rl_cli_usage_error(cmd, "--nodes %llu with %llu keys: more than %llu node-keys to hold",
                           (unsigned long long)plan->nodes, (unsigned long long)keys,
                           MAX_NODE_KEYS);
}

int rl_cmd_sim_nodes(int argc, char **argv)
{
    const char *cmd = "sim";
    struct nodes_plan plan = {.output = {.format = RL_FORMAT_TABLE}};
    rl_cli_limiter_defaults(&plan.cfg);
    plan.run.p.sync_ns = 100000000ull;
    plan.run.rtt_ns = 1000000ull;
    if (!parse_options(cmd, argc, argv, &plan))
        return 0;
    if (plan.nodes == 0)
        rl_cli_usage_error(cmd, "--nodes must be a whole number of nodes >= 1");
    check_plan(cmd, &plan);
    load_trace(cmd, &plan);
    struct rl_nodes_row *rows = calloc(plan.coord_count, sizeof *rows);
    if (rows == NULL)
        rl_cli_run_error(cmd, "out of memory");
    struct rl_context ctx;
    rl_context_init(&ctx);
    char err[512];
    for (size_t i = 0; i < plan.coord_count; i++) {
        struct rl_nodes_row *r = &rows[i];
        r->experiment = "sim";
        r->workload = plan.trace_name;
        r->coord = plan.labels[i];
        r->ctx = &ctx;
        r->run = plan.run;
        r->run.coord = plan.coords[i];
        r->run.p = plan.params[i];
        rl_nodes_prepare(&r->run, plan.trace.key_count);
        rl_cli_progress("sim: %zu/%zu %s on %u nodes", i + 1, plan.coord_count, r->coord,
                        r->run.p.nodes);
        double began = rl_nodes_seconds_now();
        if (rl_nodes_sim_run(&r->run, &plan.trace, &r->out, err, sizeof err) != 0)
            rl_cli_run_error(cmd, "%s: %s", r->coord, err);
        r->wall_s = rl_nodes_seconds_now() - began;
    }
    rl_cli_progress_done();
    if (rl_cli_output_view(&plan.output) == RL_FORMAT_TABLE) {
        rl_nodes_print_heading(rows, plan.trace.len);
        rl_nodes_print_table(rows, plan.coord_count);
    }
    rl_nodes_write_rows(cmd, &plan.output, rows, plan.coord_count);
    free(rows);
    rl_trace_free(&plan.trace);
    return 0;
}
