/* perf.c — the goal list of the perf suite and what its goals share:
 * running a child and timing it, medians, the verdict of a row. */
#include "perf.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

#define RL_PERF_GOAL(name) extern const struct rl_perf_goal rl_perf_##name##_goal;
#include "perf_goals.def"
#undef RL_PERF_GOAL

const struct rl_perf_goal *const rl_perf_goals[] = {
#define RL_PERF_GOAL(name) &rl_perf_##name##_goal,
#include "perf_goals.def"
#undef RL_PERF_GOAL
    NULL};

const struct rl_perf_goal *rl_perf_goal_find(const char *name)
{
    for (const struct rl_perf_goal *const *g = rl_perf_goals; *g; g++)
        if (strcmp((*g)->name, name) == 0)
            return *g;
    return NULL;
}

const char *rl_perf_met(const struct rl_perf_row *row)
{
    if (!isfinite(row->ratio))
        return "n/a";
    if (row->reported)
        return "reported";
    return (row->at_most ? row->ratio <= row->target : row->ratio >= row->target) ? "yes" : "no";
}

int rl_perf_run_child(char *const argv[], const char *out_path, double *wall_s,
                      uint64_t *max_rss_bytes, char *err, size_t err_len)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path ? out_path : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0666);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid;
    int e = posix_spawn(&pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (e != 0) {
        snprintf(err, err_len, "%s: %s", argv[0], strerror(e));
        return -1;
    }
    int status;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0)
        if (errno != EINTR) {
            snprintf(err, err_len, "%s: wait: %s", argv[0], strerror(errno));
            return -1;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (max_rss_bytes)
        *max_rss_bytes = (uint64_t)usage.ru_maxrss * 1024;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        snprintf(err, err_len, "%s exited with status %d", argv[0],
                 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
        return -1;
    }
    return 0;
}
