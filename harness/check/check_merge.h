/* check_merge.h — the checker on several decision logs at once (one per
 * node of a many-node run), merged in time order while they stream, and
 * judged with a stated bound on how far their clocks may disagree.
 *
 * Each log is read in time order as its writer wrote it (a log out of
 * order goes through the reorder buffer, and one further out of order is
 * sorted in memory, as check_file.h does for one log); a k-way merge on
 * (time, log's place in the list, line) feeds the streaming core
 * (checker.h), so the merged figures are those of the logs concatenated in
 * list order and sorted stably by time. Keys with one name are one key
 * across logs. Memory grows with the keys and the logs, not the decisions.
 *
 * Skew s: each log's clock may be off by up to ±s, so a decision stamped t
 * happened in [t − s, t + s] of the true time. docs/commands.md (check)
 * derives what is certain then: the figures here at the stamps, and per
 * key lower bounds (a window every shift keeps violated) and upper bounds
 * (a window no shift can overfill) for the verdict (verdict.h, possible). */
#ifndef RL_CHECK_MERGE_H
#define RL_CHECK_MERGE_H

#include "check_file.h"
#include "checker.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One log's own figures. */
struct rl_merged_log {
    const char *path;              /* the caller's string */
    uint64_t events;               /* decisions read (a dropped last line not counted) */
    struct rl_check_result result; /* this log alone, its own keys; no oracles */
    size_t dropped_line;           /* a truncated last line dropped: its number (0: none) */
    char dropped_why[256];
    bool reordered, in_memory; /* it came out of time order: through the buffer, or sorted */
};

struct rl_merged_check {
    struct rl_check_result result; /* every log merged, at the stamps as written */
    char **key_names;              /* name_count (= result.key_count) names, by id */
    uint32_t name_count;
    uint64_t events;
    uint64_t skew_ns;
    /* Per key (result.key_count) and over all keys: bounds for the verdict
     * (verdict.h, rl_run_facts.possible). certain: result's metrics with
     * certain_max_sliding, certain_max_aligned and window_excess lowered to
     * what every shift within the skew keeps; possible: max_sliding,
     * max_aligned and window_excess raised to what some shift may reach.
     * With skew 0 both equal result's exact figures. */
    struct rl_key_metrics *certain, *possible;
    struct rl_key_metrics certain_total, possible_total;
    struct rl_merged_log *logs;
    size_t log_count;
    size_t peak_bytes; /* the checkers' largest state together */
};

/* Checks the logs at paths[0, count) merged, against params, with a
 * reorder buffer of `reorder` lines for a log out of time order, and clock
 * skew skew_ns (2·skew_ns < interval). complete: the logs hold the rejects
 * too. A last line without its '\n' that does not parse is dropped (its
 * log's dropped_line says which), not refused. A status as rl_check_file;
 * err holds one line unless it is OK. Free out with rl_merged_check_free
 * whatever it returned. */
enum rl_check_file_status rl_check_merged(const char *const *paths, size_t count,
                                          const struct rl_check_params *params, bool complete,
                                          size_t reorder, uint64_t skew_ns,
                                          struct rl_merged_check *out, char *err, size_t err_len);

void rl_merged_check_free(struct rl_merged_check *m);

#endif
