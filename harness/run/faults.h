/* faults.h — faults injected into a private Redis Cluster while a run goes
 * on (--fault SPEC on stress and replay): a thread fires each fault at its
 * time into the run with harness/sys/redis_cluster's primitives and measures
 * how long the cluster took to serve every slot again (docs/cluster.md). */
#ifndef RL_FAULTS_H
#define RL_FAULTS_H

#include "harness/report/result.h"
#include "harness/sys/redis_cluster.h"

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rl_fault_kind {
    RL_FAULT_KILL_PRIMARY,  /* SIGKILL; a stalled replica of it is resumed, then elected */
    RL_FAULT_FAILOVER,      /* manual CLUSTER FAILOVER on its replica: loses nothing */
    RL_FAULT_RESHARD,       /* half its slots move to the next primary, keys included */
    RL_FAULT_STALL_REPLICA, /* SIGSTOP its replica: writes from now on are not replicated */
};

#define RL_FAULTS_MAX 8

struct rl_fault {
    enum rl_fault_kind kind;
    uint64_t at_ns; /* from the run's start */
};

/* A parsed --fault: faults in time order, and the spec as given with its
 * commas written '+' (the rows' fault column, a CSV field without quotes). */
struct rl_faults {
    struct rl_fault list[RL_FAULTS_MAX];
    size_t count;
    char spec[128];
};

/* Reads one duration ("500ms", "2s"): the CLI's parser, passed in so
 * this layer does not include the CLI. */
typedef int (*rl_duration_parser)(const char *text, uint64_t *ns, char *err, size_t err_len);

/* "KIND@T[,KIND@T...]" (or '+' between them; KIND kill-primary, failover, reshard or
 * stall-replica; T a duration such as 500ms or 1s, read by `duration`, or
 * as a whole number and unit when NULL) into f, sorted by T. -1 with one
 * line in err. */
int rl_faults_parse(const char *spec, rl_duration_parser duration, struct rl_faults *f, char *err,
                    size_t err_len);

/* The kind's name as the spec writes it. */
const char *rl_fault_kind_name(enum rl_fault_kind kind);

/* One run's fault thread. */
struct rl_fault_run {
    const struct rl_faults *faults;
    struct rl_redis_cluster *cluster;
    pthread_t thread;
    bool started, stop;
    int slot_before; /* rl_remote_last_slot when the run began */
    /* after join: the longest time from a fault to every slot served again
     * (wait_ok), and the first failure (a primitive refused, or the cluster
     * did not serve within 30 s) */
    uint64_t outage_ns;
    bool failed;
    char err[512];
};

/* Starts the thread; time 0 is now. The faults aim at the primary serving
 * the slot of the key the run named last (rl_remote_last_slot; slot 0's
 * primary before any). -1 with err when the thread cannot start. */
int rl_faults_start(struct rl_fault_run *run, const struct rl_faults *faults,
                    struct rl_redis_cluster *cluster, char *err, size_t err_len);

/* Waits for the thread (faults not yet due are dropped: the run ended
 * first) and resumes any replica still stalled. */
void rl_faults_join(struct rl_fault_run *run);

/* The run's cluster made fresh for the next faulted run: stopped and
 * started again with the same shape, its address rewritten in place
 * (cfg.remote points at it). -1 with err. */
int rl_faults_fresh_cluster(struct rl_redis_cluster *cluster, char *err, size_t err_len);

/* Around one faulted run (stress or replay): begin makes the cluster
 * fresh when *used (a fault changed it) and starts the thread; end joins
 * it and fills the row's fault, outage_ms and lost_admits (the checker's
 * excess over the promise, rl_verdict_excess). Both -1 with err; end also
 * when a fault failed or the cluster did not serve again. */
int rl_faults_begin(struct rl_fault_run *run, const struct rl_faults *faults,
                    struct rl_redis_cluster *cluster, bool *used, char *err, size_t err_len);
int rl_faults_end(struct rl_fault_run *run, struct rl_result *row, char *err, size_t err_len);

/* The row's cluster column: "NxR" for a private cluster, "joined" for one
 * joined, nothing when cluster is NULL or not running or the row's
 * algorithm is not a Redis one. */
void rl_faults_name_cluster(const struct rl_redis_cluster *cluster, struct rl_result *row);

#endif
