/* perf.h — the performance goals of `ratelab bench --suite perf`: each a
 * ratio measured in one run against a floor measured in the same run (an
 * algorithm against `faa`, a script against `redis_noop`, the checker
 * against md5sum), never a timed test (docs/design.md, Performance method).
 *
 * A goal is one function in harness/experiments/perf_<name>.c and one line in
 * perf_goals.def; it fills one row per ratio it measures. */
#ifndef RL_RUN_PERF_H
#define RL_RUN_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RL_PERF_TEXT 200

struct rl_perf_options {
    const char *redis;   /* a server address for the Redis goal, or NULL: a private one */
    const char *ratelab; /* this binary's path, for goals that run it as a child */
    unsigned reps;       /* repetitions each ratio is the median of */
};

struct rl_perf_row {
    char goal[64];               /* e.g. "recorder fw_cas 1 thread reject" */
    char measured[RL_PERF_TEXT]; /* what the ratio divides: "recorded / unrecorded ns per call" */
    char floor[RL_PERF_TEXT];    /* what it is against and why that is the floor */
    double ratio;                /* NAN: not measured (why: in detail) */
    bool at_most;                /* the goal is ratio <= target (else >=) */
    double target;
    bool reported;              /* printed for its history, not a goal: met reads "reported" */
    char detail[RL_PERF_TEXT];  /* the two numbers behind the ratio, with units */
    char command[RL_PERF_TEXT]; /* what reproduces it */
};

/* Whether the row meets its goal: "yes", "no", "n/a" when not measured, or
 * "reported" for a row that is no longer a goal. */
const char *rl_perf_met(const struct rl_perf_row *row);

struct rl_perf_goal {
    const char *name;    /* "recorder", "keyed", ... */
    const char *summary; /* one line for --help */
    /* Fills at most cap rows; returns how many, or -1 with err when the goal
     * could not run at all. */
    int (*measure)(const struct rl_perf_options *opts, struct rl_perf_row *rows, size_t cap,
                   char *err, size_t err_len);
};

/* NULL-terminated, in perf_goals.def's order. */
extern const struct rl_perf_goal *const rl_perf_goals[];

/* The goal named name, or NULL. */
const struct rl_perf_goal *rl_perf_goal_find(const char *name);

/* Runs argv (argv[0] a path) as a child with stdout and stderr to
 * /dev/null (or stdout to out_path when not NULL), and reports its wall
 * time and peak resident memory. 0 when it exited 0; -1 with err. */
int rl_perf_run_child(char *const argv[], const char *out_path, double *wall_s,
                      uint64_t *max_rss_bytes, char *err, size_t err_len);

#endif
