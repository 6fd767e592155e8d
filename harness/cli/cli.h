/* cli.h — what every subcommand shares: option codes, the limiter and
 * workload options, algorithm lists, and the one-line error exits
 * (exit 2 for bad usage, 1 for a failed run). */
#ifndef RL_CLI_H
#define RL_CLI_H

#include "output.h"
#include "algorithms/rl.h"
#include "harness/report/result.h"
#include "harness/keyed/keyed.h"
#include "workloads/generators.h"
#include "workloads/trace.h"

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

enum rl_cli_option {
    OPT_HELP = 'h',
    OPT_ALGO = 256,
    OPT_LIMIT,
    OPT_INTERVAL,
    OPT_BURST,
    OPT_SLOTS,
    OPT_TRACE,
    OPT_WORKLOAD,
    OPT_DURATION,
    OPT_RATE,
    OPT_KEYS,
    OPT_ZIPF,
    OPT_COST,
    OPT_SEED,
    OPT_ON,
    OPT_OFF,
    OPT_SIZE,
    OPT_SPREAD,
    OPT_AT,
    OPT_SPIKE,
    OPT_FACTOR,
    OPT_FORMAT,
    OPT_DECISIONS,
    OPT_THREADS,
    OPT_REPS,
    OPT_CLOCK,
    OPT_RECORD,
    OPT_PIN,
    OPT_OUT,
    OPT_UNSAFE,
    OPT_EVENTS,
    OPT_EPOCH,
    OPT_PER_KEY,
    OPT_SUITE,
    OPT_HOLD,
    OPT_EXPIRY,
    OPT_SHARDS,
    OPT_CHURN,
    OPT_REDIS,
    OPT_ON_ERROR,
    OPT_REDIS_CLUSTER,
    OPT_CLIENT_SKEW,
    OPT_SPEED,
    OPT_LATENCY_OUT,
    OPT_ADMITS_ONLY,
    OPT_UNSORTED,
    OPT_TRIALS,
    OPT_TEST,
    OPT_RATE_PER_KEY,
    OPT_MAX_WAIT,
    OPT_CANCEL_SHARE,
    OPT_WAIT_REPLICAS,
    OPT_FAULT,
    OPT_SET_RATE,
};

#define RL_CLI_HELP_OPTION                                                                         \
    {                                                                                              \
        "help", no_argument, NULL, OPT_HELP                                                        \
    }
/* --limit and --interval: every command that takes a limit; --burst and
 * --slots only where an algorithm is built from them. Options that do
 * nothing in a command are not in its --help: check takes the window only,
 * and trace, which still accepts --burst and --slots from scripts that pass
 * it sim's options, lists only the window. */
#define RL_CLI_WINDOW_OPTIONS                                                                      \
    {"limit", required_argument, NULL, OPT_LIMIT},                                                 \
    {                                                                                              \
        "interval", required_argument, NULL, OPT_INTERVAL                                          \
    }
#define RL_CLI_LIMITER_OPTIONS                                                                     \
    RL_CLI_WINDOW_OPTIONS, {"burst", required_argument, NULL, OPT_BURST},                          \
    {                                                                                              \
        "slots", required_argument, NULL, OPT_SLOTS                                                \
    }
#define RL_CLI_WORKLOAD_OPTIONS                                                                    \
    {"workload", required_argument, NULL, OPT_WORKLOAD},                                           \
        {"duration", required_argument, NULL, OPT_DURATION},                                       \
        {"rate", required_argument, NULL, OPT_RATE},                                               \
        {"rate-per-key", required_argument, NULL, OPT_RATE_PER_KEY},                               \
        {"keys", required_argument, NULL, OPT_KEYS}, {"zipf", required_argument, NULL, OPT_ZIPF},  \
        {"cost", required_argument, NULL, OPT_COST}, {"seed", required_argument, NULL, OPT_SEED},  \
        {"on", required_argument, NULL, OPT_ON}, {"off", required_argument, NULL, OPT_OFF},        \
        {"size", required_argument, NULL, OPT_SIZE},                                               \
        {"spread", required_argument, NULL, OPT_SPREAD}, {"at", required_argument, NULL, OPT_AT},  \
        {"spike", required_argument, NULL, OPT_SPIKE},                                             \
        {"cancel-share", required_argument, NULL, OPT_CANCEL_SHARE},                               \
    {                                                                                              \
        "factor", required_argument, NULL, OPT_FACTOR                                              \
    }

/* Text for --help, shared so every subcommand describes them alike:
 * --limit, --interval, --burst and --slots (sim, stress, replay, keys); the
 * first two only, for a command that builds no limiter (check: the (L, I)
 * checked against; trace: what the workload's defaults scale with). */
extern const char rl_cli_limiter_help[];
extern const char rl_cli_trace_window_help[];
extern const char rl_cli_workload_help[];

/* Defaults when --limit / --interval are not given. */
#define RL_CLI_DEFAULT_LIMIT       1000u
#define RL_CLI_DEFAULT_INTERVAL_NS 100000000u

/* Prints "ratelab CMD: message" and exits 2 (bad usage) or 1 (failed run). */
_Noreturn void rl_cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
_Noreturn void rl_cli_run_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Exits 2 with one line unless a file can be written at path (given as
 * `option`): its folder exists and is writable, and path is not a folder.
 * Checked before a run, so that a typo does not cost a long run's output. */
void rl_cli_require_writable(const char *cmd, const char *option, const char *path);

/* The files a command reads and writes, by option: every output is
 * compared with every input and every other output as the same file
 * (io/same_file.h: device and inode, links followed; a file to be by its
 * folder and name). A match exits 2 with one line naming both options,
 * before anything is written. "-" and devices never match. Entries with a
 * NULL path (an option not given) are skipped. */
struct rl_cli_file {
    const char *option; /* "--out" */
    const char *path;
    bool output;
};
#define RL_CLI_MAX_FILES 8
void rl_cli_require_distinct_files(const char *cmd, const struct rl_cli_file *files, size_t count);

/* getopt_long for every subcommand (option string ":h", see
 * rl_cli_bad_option), which also refuses an option that takes a value
 * given twice: one line, exit 2. A flag given twice is the flag. */
int rl_cli_getopt(const char *cmd, int argc, char **argv, const struct option *options);

/* An unknown option or one missing its value: one line, exit 2. Call with
 * getopt_long's return code; option strings start with ":" so that a
 * missing value is told apart. */
_Noreturn void rl_cli_bad_option(const char *cmd, int code, char **argv);

/* --limit, --interval, --burst, --slots into cfg; false if code is not one
 * of them (or the command's options leave it out). Exits 2 on a bad value. */
bool rl_cli_limiter_option(const char *cmd, int code, const char *arg, struct rl_config *cfg);
void rl_cli_limiter_defaults(struct rl_config *cfg);

/* Workload options are kept until the limiter is known, because their
 * defaults scale with L and I (generators.h). */
struct rl_cli_workload {
    struct rl_workload_params given;
    double rate_per_key; /* --rate-per-key: given.rate_per_s is then this × K */
    unsigned set;        /* bit per option given */
    bool named;          /* --workload was given */
};
/* Exits 2 on a bad value, and on --rate with --rate-per-key. */
bool rl_cli_workload_option(const char *cmd, int code, const char *arg, struct rl_cli_workload *w);

/* Defaults for cfg, then the options given; generates the trace or exits 2
 * (trace NULL: only checks the parameters, for a run that streams them).
 * An option the workload does not use (--rate with boundary, --on with
 * uniform) is refused in one line naming both, before anything is made. */
void rl_cli_workload_build(const char *cmd, const struct rl_cli_workload *w,
                           const struct rl_config *cfg, struct rl_workload_params *params,
                           struct rl_trace *trace);

/* The run header's " (40 a key; offered 4/s a key, against L/I = 100/s)":
 * attempts a key and the rate offered to each key, averaged over span_ns
 * (the workload's duration, or a trace file's first to last attempt), beside
 * the limit as a rate. For onoff and flash (params, NULL for a trace file)
 * also the rate while on / outside the spike, which the mean hides. The
 * per-key part only for more than one key, rates only for a span > 0.
 * speed: replay's --speed, which sends the trace that much faster (1
 * elsewhere). Returns buf. */
const char *rl_cli_offered_text(char *buf, size_t len, const struct rl_trace *trace,
                                uint64_t span_ns, double speed,
                                const struct rl_workload_params *params,
                                const struct rl_config *cfg);

/* The span an offered rate is averaged over: the workload's duration, or
 * for a trace file (duration_ns 0) its first to last attempt. */
uint64_t rl_cli_trace_span_ns(const struct rl_trace *trace, uint64_t duration_ns);

/* "all" or comma-separated names; exits 2 naming the valid ones on an
 * unknown name. Returns how many were written into algos (at most max). */
size_t rl_cli_parse_algos(const char *cmd, const char *list, const struct rl_algo **algos,
                          size_t max);

/* --redis, --redis-cluster, --on-error: shared by every command that can run
 * Redis algorithms. */
#define RL_CLI_REMOTE_OPTIONS                                                                      \
    {"redis", required_argument, NULL, OPT_REDIS},                                                 \
        {"redis-cluster", required_argument, NULL, OPT_REDIS_CLUSTER},                             \
        {"wait-replicas", required_argument, NULL, OPT_WAIT_REPLICAS},                             \
    {                                                                                              \
        "on-error", required_argument, NULL, OPT_ON_ERROR                                          \
    }
extern const char rl_cli_remote_help[];

/* Exit statuses of sim, stress, replay and bench: 0 ok, 1 a run failed (or
 * was interrupted), 2 bad usage, and this one: every run finished but some
 * decisions were errors (the limiter's backend failed). */
#define RL_EXIT_ERRORS 3

/* The "Exit status: ..." line of their --help. */
extern const char rl_cli_exit_help[];

/* The load_1m and runnable columns and the warning, for the --help of
 * stress, replay and bench. */
extern const char rl_cli_load_help[];

/* One line on stderr when a recorded run's buffer filled (dropped events):
 * the admits were counted, not all checked. Nothing when none dropped. */
void rl_cli_warn_dropped(const char *cmd, const struct rl_result *rows, size_t count);

/* When any row counts errors, prints one warning line on stderr ("ratelab
 * CMD: warning: N of M decisions were errors ...", M the attempts of the
 * runs that had errors) and returns RL_EXIT_ERRORS; otherwise 0. */
int rl_cli_errors_status(const char *cmd, const struct rl_result *rows, size_t count);

/* admit | reject (fail-open or fail-closed), or exit 2. */
bool rl_cli_parse_on_error(const char *cmd, const char *arg);

/* --redis-cluster SPEC: NxR (a private cluster) or HOST:PORT[,...] (an
 * existing one), checked now (exit 2) and used by rl_cli_prepare_remote. */
void rl_cli_redis_cluster_option(const char *cmd, const char *spec);

/* --nodes N (sim and stress): a whole number from 1 to 2^32 − 1, or one
 * line and exit 2. */
uint32_t rl_cli_nodes_option(const char *cmd, const char *arg);

struct rl_faults;
struct rl_redis_cluster;

/* --fault SPEC (stress, replay): parsed now (exit 2 on a bad spec); it
 * needs a private --redis-cluster NxR, which rl_cli_prepare_remote checks. */
void rl_cli_fault_option(const char *cmd, const char *spec);

/* The faults --fault named (NULL when none), and the private cluster they
 * act on (after rl_cli_prepare_remote started it). */
const struct rl_faults *rl_cli_faults(void);
struct rl_redis_cluster *rl_cli_cluster(void);

/* The --fault line of stress's and replay's --help. */
extern const char rl_cli_fault_help[];

/* When any of algos is RL_REMOTE, points cfg->remote at a Redis server:
 * `redis` if given (checked and pinged); else with --redis-cluster a private
 * cluster started now (exit 1 when it cannot start) or the one named (exit 2
 * when a seed does not answer or is not in cluster mode), as
 * "cluster:HOST:PORT,..."; else a private redis-server started now. Both
 * private kinds stop at exit. --redis with --redis-cluster exits 2. Without
 * a server: with skip_remote, the remote algorithms are dropped from algos
 * (a line on stderr says so); otherwise exit 2. Returns the number of
 * algorithms left. */
size_t rl_cli_prepare_remote(const char *cmd, const struct rl_algo **algos, size_t count,
                             const char *redis, bool skip_remote, struct rl_config *cfg);

/* never | lazy | sweeper, or exit 2. */
enum rl_keyed_expiry rl_cli_parse_expiry(const char *cmd, const char *arg);

/* One line on stderr when any row's run started with the load above the
 * host's CPUs: the 1-minute average (load_1m) and the threads runnable at
 * that instant (runnable, which does not count the run's own threads, not
 * yet started) both above them, so other work shared the CPUs. Only when
 * stderr is a terminal, as progress: a script reads the columns, and its
 * stderr keeps only what it must act on. At most once per command: call it
 * once, with every row, after any other warning. */
void rl_cli_warn_load(const char *cmd, const struct rl_result *rows, size_t count);

/* Progress on stderr, only when stderr is a terminal (docs/design.md, Outputs). */
void rl_cli_progress(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void rl_cli_progress_done(void);
/* The same as a callback for the run layer (struct rl_stress_plan's
 * progress): a line shows it, NULL ends it. */
void rl_cli_progress_line(const char *line);

#define RL_CLI_MAX_ALGOS 128

#endif
