/* nodes_real.c — the parent of a real many-nodes run (nodes_real.h): forks
 * the node processes, starts them together once each has reached the
 * store, watches them (a node that dies is reported; on SIGINT or SIGTERM,
 * or any way out of the program, the nodes are killed), then merges the
 * node logs and judges the global promise. */
#include "nodes_real.h"
#include "nodes_real_node.h"

#include "harness/check/checker.h"
#include "harness/sys/cpus.h"
#include "harness/sys/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* 4 × CPUs: each node has its own workers and tick thread, and more node
 * processes than that would measure the scheduler, not the strategy; 64
 * whatever the machine (sim has no such limit). */
#define NODES_PER_CPU 4
#define MAX_NODES     64
/* How long the nodes may take to connect to the store before the start. */
#define READY_TIMEOUT_NS (30ull * 1000000000ull)
/* How long a node half waits for a reply before it counts its message
 * lost (coord.h, rl_coord_reply_timeout = 2 × delay): a real call is
 * answered or fails, so this only has to outlast a slow call. */
#define REPLY_WAIT_NS (100ull * 1000000ull)
/* From the last node ready to the start: every node is waiting by then. */
#define START_DELAY_NS (50ull * 1000000ull)

uint32_t rl_nodes_real_max_nodes(unsigned threads, char *why, size_t why_len)
{
    long cpus = rl_cpu_count();
    uint64_t most = (uint64_t)cpus * NODES_PER_CPU;
    snprintf(why, why_len, "%d x %ld CPUs", NODES_PER_CPU, cpus);
    if (most > MAX_NODES) {
        most = MAX_NODES;
        snprintf(why, why_len, "a cap of %d", MAX_NODES);
    }
    struct rlimit nproc;
    if (getrlimit(RLIMIT_NPROC, &nproc) == 0 && nproc.rlim_cur != RLIM_INFINITY) {
        /* a node is threads + 2 tasks (workers, tick, main); half of the
         * limit is left to whatever else this user runs */
        uint64_t fit = (uint64_t)nproc.rlim_cur / 2 / (threads + 2);
        if (fit < most) {
            most = fit;
            snprintf(why, why_len, "RLIMIT_NPROC %llu / 2 / %u tasks a node",
                     (unsigned long long)nproc.rlim_cur, threads + 2);
        }
    }
    return (uint32_t)most;
}

/* The node processes alive, for the exit handler: whatever way the program
 * leaves (an error exit included), no node outlives it. */
static pid_t live_pids[MAX_NODES];
static size_t live_count;

static void kill_live_nodes(void)
{
    for (size_t i = 0; i < live_count; i++)
        if (live_pids[i] > 0) {
            kill(live_pids[i], SIGKILL);
            waitpid(live_pids[i], NULL, 0);
            live_pids[i] = 0;
        }
}

static void forget_live(pid_t pid)
{
    for (size_t i = 0; i < live_count; i++)
        if (live_pids[i] == pid)
            live_pids[i] = 0;
}

/* Everything one run holds. */
struct run {
    const struct rl_nodes_real_config *cfg;
    const struct rl_trace *trace;
    struct rl_nodes_real_outcome *out;
    uint32_t *node_of;
    struct rl_nodes_board *board;
    size_t board_bytes;
    uint64_t end_ns, epoch_ns;
    char prefix[64];
    char *err;
    size_t err_len;
};

static int spread_attempts(struct run *r)
{
    const struct rl_nodes_config *run = &r->cfg->run;
    r->node_of = malloc((r->trace->len ? r->trace->len : 1) * sizeof *r->node_of);
    struct rl_node_picker picker;
    if (r->node_of == NULL || rl_node_picker_init(&picker, &run->spread, run->p.nodes, run->seed))
        return -1;
    for (size_t j = 0; j < r->trace->len; j++) {
        r->node_of[j] = rl_node_picker_next(&picker, r->trace->attempts[j].t_ns);
        if (r->trace->attempts[j].t_ns > r->end_ns)
            r->end_ns = r->trace->attempts[j].t_ns;
    }
    rl_node_picker_free(&picker);
    return 0;
}

/* A node that ended: died, or exited 0 with its log in place. */
static void ended(struct run *r, uint32_t i, int status)
{
    struct rl_node_report *node = &r->out->nodes[i];
    forget_live(node->pid);
    uint64_t now = rl_nodes_realtime_ns();
    node->died_ns = r->epoch_ns && now > r->epoch_ns ? now - r->epoch_ns : 0;
    if ((WIFEXITED(status) && WEXITSTATUS(status) == 0) || r->out->interrupted) {
        node->pid = -node->pid; /* gone cleanly, or stopped by the interrupt */
        return;
    }
    node->died = true;
    node->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    node->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    node->pid = -node->pid;
    r->out->died++;
}

/* Reaps whatever node has ended; returns how many are still running. */
static uint32_t reap(struct run *r, bool block)
{
    uint32_t running = 0;
    for (uint32_t i = 0; i < r->cfg->run.p.nodes; i++) {
        struct rl_node_report *node = &r->out->nodes[i];
        if (node->pid <= 0)
            continue;
        int status;
        pid_t got = waitpid(node->pid, &status, block ? 0 : WNOHANG);
        if (got == node->pid)
            ended(r, i, status);
        else
            running++;
    }
    return running;
}

static void kill_all(struct run *r, int sig)
{
    for (uint32_t i = 0; i < r->cfg->run.p.nodes; i++)
        if (r->out->nodes[i].pid > 0)
            kill(r->out->nodes[i].pid, sig);
}

static void pause_ms(unsigned ms)
{
    struct timespec t = {0, (long)ms * 1000000};
    nanosleep(&t, NULL);
}

static int fork_nodes(struct run *r)
{
    static bool handler;
    if (!handler && atexit(kill_live_nodes) == 0)
        handler = true;
    fflush(stdout);
    fflush(stderr);
    pid_t parent = getpid();
    for (uint32_t i = 0; i < r->cfg->run.p.nodes; i++) {
        struct rl_node_job job = {.cfg = r->cfg,
                                  .trace = r->trace,
                                  .node_of = r->node_of,
                                  .end_ns = r->end_ns,
                                  .index = i,
                                  .board = r->board,
                                  .parent = parent,
                                  .prefix = r->prefix};
        pid_t pid = fork();
        if (pid < 0) {
            snprintf(r->err, r->err_len, "cannot start node %u: %s", (unsigned)i, strerror(errno));
            return -1;
        }
        if (pid == 0) {
            /* a process group of the nodes' own: a terminal's Ctrl-C
             * reaches ratelab, which stops them */
            setpgid(0, i == 0 ? 0 : r->out->nodes[0].pid);
            rl_node_process(&job);
        }
        setpgid(pid, i == 0 ? pid : r->out->nodes[0].pid);
        r->out->nodes[i].pid = pid;
        live_pids[live_count++] = pid;
    }
    return 0;
}

/* Waits until every node has reached the store, then sets the start. */
static int start_nodes(struct run *r)
{
    uint64_t give_up = rl_nodes_realtime_ns() + READY_TIMEOUT_NS;
    for (;;) {
        uint32_t ready = 0, nodes = r->cfg->run.p.nodes;
        for (uint32_t i = 0; i < nodes; i++)
            ready += atomic_load(&r->board->node[i].ready) == 1;
        if (ready == nodes)
            break;
        reap(r, false);
        for (uint32_t i = 0; i < nodes; i++)
            if (r->out->nodes[i].pid <= 0) {
                snprintf(r->err, r->err_len,
                         "node %u ended before the start (it said why above); no run", i);
                return -1;
            }
        if (rl_interrupted) {
            r->out->interrupted = true;
            snprintf(r->err, r->err_len, "interrupted before the start");
            return -1;
        }
        if (rl_nodes_realtime_ns() > give_up) {
            snprintf(r->err, r->err_len, "the nodes did not reach the store within 30 s");
            return -1;
        }
        pause_ms(2);
    }
    r->epoch_ns = rl_nodes_realtime_ns() + START_DELAY_NS;
    atomic_store(&r->board->epoch_ns, r->epoch_ns);
    return 0;
}

/* Until every node has ended; SIGINT or SIGTERM kills the rest. */
static void watch(struct run *r)
{
    while (reap(r, false) > 0) {
        if (rl_interrupted && !r->out->interrupted) {
            r->out->interrupted = true;
            kill_all(r, SIGKILL);
            reap(r, true);
            return;
        }
        pause_ms(2);
    }
}

/* A node that did not finish leaves its log's temporary: cut at its last
 * whole line and put in place, so what it decided up to then is judged. */
static void settle_log(struct run *r, uint32_t i)
{
    char tmp[4096], path[4096];
    rl_node_log_path(r->cfg->dir, i, true, tmp, sizeof tmp);
    rl_node_log_path(r->cfg->dir, i, false, path, sizeof path);
    int fd = open(tmp, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return; /* it finished (renamed), or never opened one */
    off_t size = lseek(fd, 0, SEEK_END), keep = size;
    char c;
    while (keep > 0 && pread(fd, &c, 1, keep - 1) == 1 && c != '\n')
        keep--;
    if (keep < size && ftruncate(fd, keep) != 0)
        keep = 0;
    close(fd);
    if (keep == 0) /* not even its header: it decided nothing */
        unlink(tmp);
    else if (rename(tmp, path) == 0)
        r->out->nodes[i].log_cut = true;
}

/* A node log's key names are "k<id>", the trace's ids: back to the ids. */
static int remap_keys(struct rl_event_log *log, uint32_t keys)
{
    uint32_t *id = malloc((log->key_count ? log->key_count : 1) * sizeof *id);
    if (id == NULL)
        return -1;
    for (uint32_t k = 0; k < log->key_count; k++) {
        char *end;
        unsigned long v = strtoul(log->key_names[k] + 1, &end, 10);
        if (log->key_names[k][0] != 'k' || *end != '\0' || v >= keys) {
            free(id);
            return -2;
        }
        id[k] = (uint32_t)v;
    }
    for (size_t e = 0; e < log->len; e++)
        log->events[e].key = id[log->events[e].key];
    free(id);
    /* the ids are the run's now: the log's own names no longer apply */
    for (uint32_t k = 0; k < log->key_count; k++)
        free(log->key_names[k]);
    free(log->key_names);
    log->key_names = NULL;
    log->key_count = keys;
    return 0;
}

/* The most cost one node was offered in any span (the bound's h). */
static uint64_t offered_max(const struct run *r, uint32_t node, uint64_t span)
{
    const struct rl_attempt *a = r->trace->attempts;
    uint64_t sum = 0, most = 0;
    size_t head = 0;
    for (size_t j = 0; j < r->trace->len; j++) {
        if (r->node_of[j] != node)
            continue;
        sum += a[j].n;
        while (a[head].t_ns + span <= a[j].t_ns) {
            if (r->node_of[head] == node)
                sum -= a[head].n;
            head++;
        }
        if (sum > most)
            most = sum;
    }
    return most;
}

/* Each node's log, through the checker alone, and into the merged one. */
static int read_logs(struct run *r, struct rl_event_log *merged)
{
    const struct rl_coord_params *p = &r->cfg->run.p;
    struct rl_check_params params = {.limit = p->limit, .interval_ns = p->interval_ns};
    for (uint32_t i = 0; i < p->nodes; i++) {
        struct rl_node_report *node = &r->out->nodes[i];
        char path[4096];
        settle_log(r, i);
        rl_node_log_path(r->cfg->dir, i, false, path, sizeof path);
        if (access(path, F_OK) != 0)
            continue; /* a node that died before it opened its log */
        struct rl_event_log log;
        if (rl_event_log_read_csv(path, &log, r->err, r->err_len) != 0)
            return -1;
        int bad = remap_keys(&log, p->keys);
        if (bad != 0) {
            snprintf(r->err, r->err_len, "%s: %s", path,
                     bad == -1 ? "out of memory" : "a key this run never offered");
            rl_event_log_free(&log);
            return -1;
        }
        node->decisions = log.len;
        for (size_t e = 0; e < log.len; e++) {
            struct rl_event ev = log.events[e];
            ev.thread = (uint16_t)i;
            if (rl_event_log_push(merged, &ev) != 0) {
                rl_event_log_free(&log);
                snprintf(r->err, r->err_len, "out of memory merging the node logs");
                return -1;
            }
        }
        struct rl_check_result own;
        int rc = rl_check(&log, &params, &own, r->err, r->err_len);
        rl_event_log_free(&log);
        if (rc != 0)
            return -1;
        node->max_sliding = own.total.max_sliding;
        rl_check_result_free(&own);
        if (node->max_sliding > r->out->run.node_max_sliding)
            r->out->run.node_max_sliding = node->max_sliding;
    }
    return 0;
}

/* The merged logs judged: the checker's global metrics, the windows, and
 * the strategy's bound with the delays the run really had. */
static int judge(struct run *r)
{
    struct rl_nodes_real_outcome *out = r->out;
    const struct rl_nodes_config *run = &r->cfg->run;
    struct rl_event_log merged = {.key_count = run->p.keys, .complete = true};
    if (read_logs(r, &merged) != 0) {
        rl_event_log_free(&merged);
        return -1;
    }
    out->run.span_ns = r->end_ns;
    size_t windows = (size_t)(r->end_ns / run->p.interval_ns) + 2;
    uint64_t *window_cost = calloc((size_t)run->p.keys * windows, sizeof *window_cost);
    if (window_cost == NULL) {
        rl_event_log_free(&merged);
        snprintf(r->err, r->err_len, "out of memory");
        return -1;
    }
    for (size_t e = 0; e < merged.len; e++) {
        const struct rl_event *ev = &merged.events[e];
        out->run.attempts++;
        out->run.admits += ev->admitted;
        out->run.rejects += !ev->admitted;
        out->run.node0_admits += ev->admitted && ev->thread == 0;
        size_t w = (size_t)(ev->t_ns / run->p.interval_ns);
        if (ev->admitted && w < windows)
            window_cost[(size_t)ev->key * windows + w] += ev->n;
    }
    struct rl_check_params params = {.limit = run->p.limit, .interval_ns = run->p.interval_ns};
    struct rl_check_result global;
    int rc = rl_check(&merged, &params, &global, r->err, r->err_len);
    rl_event_log_free(&merged);
    if (rc == 0) {
        out->run.global = global.total;
        out->run.complete = global.complete;
        rl_check_result_free(&global);
        rc = rl_nodes_summarize_windows(&run->p, run->step_ns, window_cost, windows, &out->run);
    }
    free(window_cost);
    if (rc != 0)
        return -1;
    /* The bound as docs/nodes.md derives it, for the delays this run had:
     * a message took at most the slowest call's round trip, a tick came at
     * most the longest gap after the one before; a failed call, or a node
     * that died with hits it never reported, is a lost message. */
    struct rl_coord_params p = run->p;
    p.delay_ns = out->max_rtt_ns;
    if (out->max_tick_gap_ns > p.sync_ns)
        p.sync_ns = out->max_tick_gap_ns;
    p.lossy = out->store_errors > 0 || out->died > 0 || out->interrupted;
    uint64_t span = run->coord->bound_span(&p);
    for (uint32_t i = 0; span && i < p.nodes; i++) {
        uint64_t h = offered_max(r, i, span);
        if (h > out->run.h)
            out->run.h = h;
    }
    uint64_t bound = run->coord->bound_of(&p, out->run.h);
    out->run.promised = (struct rl_promised){.kind = bound ? RL_BOUND_GIVEN : RL_BOUND_NONE,
                                             .limit = p.limit,
                                             .excess = bound > p.limit ? bound - p.limit : 0};
    struct rl_run_facts facts = {
        .checked = true, .m = &out->run.global, .interval_ns = p.interval_ns};
    out->run.held = rl_verdict(&out->run.promised, &facts);
    return 0;
}

/* The board's counters into the outcome. */
static void collect(struct run *r)
{
    struct rl_nodes_real_outcome *out = r->out;
    for (uint32_t i = 0; i < r->cfg->run.p.nodes; i++) {
        struct rl_node_board *b = &r->board->node[i];
        struct rl_node_report *node = &out->nodes[i];
        node->attempts = atomic_load(&b->attempts);
        node->admits = atomic_load(&b->admits);
        node->store_calls = atomic_load(&b->store_calls);
        node->store_errors = atomic_load(&b->store_errors);
        out->run.store_calls += node->store_calls;
        out->store_errors += node->store_errors;
        uint64_t rtt = atomic_load(&b->max_rtt_ns), late = atomic_load(&b->max_late_ns),
                 gap = atomic_load(&b->max_tick_gap_ns);
        out->max_rtt_ns = rtt > out->max_rtt_ns ? rtt : out->max_rtt_ns;
        out->max_late_ns = late > out->max_late_ns ? late : out->max_late_ns;
        out->max_tick_gap_ns = gap > out->max_tick_gap_ns ? gap : out->max_tick_gap_ns;
    }
    /* each call a request and its reply, as the simulator counts them */
    out->run.messages = 2 * out->run.store_calls;
    out->run.lost = out->store_errors;
}

int rl_nodes_real_run(const struct rl_nodes_real_config *cfg, const struct rl_trace *trace,
                      struct rl_nodes_real_outcome *out, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    uint32_t nodes = cfg->run.p.nodes;
    struct rl_nodes_real_config local = *cfg;
    local.run.p.delay_ns = REPLY_WAIT_NS / 2;
    local.run.p.lossy = false;
    struct run r = {.cfg = &local, .trace = trace, .out = out, .err = err, .err_len = err_len};
    snprintf(r.prefix, sizeof r.prefix, "nodes:%d:%llu", (int)getpid(),
             (unsigned long long)rl_nodes_realtime_ns());
    if (nodes == 0 || nodes > MAX_NODES) {
        snprintf(err, err_len, "%u nodes: 1 to %d as processes", nodes, MAX_NODES);
        return -1;
    }
    r.board_bytes = sizeof *r.board + nodes * sizeof r.board->node[0];
    out->nodes = calloc(nodes, sizeof *out->nodes);
    r.board = mmap(NULL, r.board_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (out->nodes == NULL || r.board == MAP_FAILED || spread_attempts(&r) != 0) {
        snprintf(err, err_len, "out of memory for %u nodes", nodes);
        if (r.board != MAP_FAILED)
            munmap(r.board, r.board_bytes);
        free(r.node_of);
        return -1;
    }
    int rc = fork_nodes(&r);
    if (rc == 0)
        rc = start_nodes(&r);
    if (rc != 0) {
        kill_all(&r, SIGKILL);
        reap(&r, true);
    } else {
        watch(&r);
        collect(&r);
        rc = judge(&r);
    }
    live_count = 0;
    munmap(r.board, r.board_bytes);
    free(r.node_of);
    return rc;
}

void rl_nodes_real_free(struct rl_nodes_real_outcome *out)
{
    free(out->nodes);
    out->nodes = NULL;
}
