/* nodes_real_node.c — one node process of `ratelab stress --nodes`
 * (nodes_real_node.h): its workers make the node's attempts at their trace
 * times, its tick thread ticks every T, the node half decides, and every
 * message goes to the real store; each decision is appended to the node's
 * own log as it is made. */
#include "nodes_real_node.h"

#include "algorithms/coord/coord_redis.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

uint64_t rl_nodes_realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void rl_node_log_path(const char *dir, uint32_t index, bool tmp, char *buf, size_t len)
{
    snprintf(buf, len, "%s/node-%u.csv%s", dir, (unsigned)index, tmp ? ".tmp" : "");
}

/* Everything one node process holds. */
struct node {
    const struct rl_node_job *job;
    const struct rl_coord *coord;
    struct rl_node_board *board;
    uint64_t epoch_ns;
    /* The node half is one strategy state for all the node's threads and
     * is not thread-safe (plain fields: a lease's tokens, report's counts).
     * One mutex for the node, not per key: the node half's interface does
     * not split its state by key. It is held for the local step only
     * (attempt, tick, reply: well under a microsecond), never across a
     * store call, so a slow call does not hold up the other workers'
     * local decisions, and the store sees the node's messages as the
     * simulator's links carry them. */
    pthread_mutex_t lock;
    void *state;
    struct rl_coord_redis *store;
    size_t *mine; /* indices of this node's attempts in the trace, in time order */
    size_t mine_len;
    int log_fd;
    _Atomic bool log_failed;
};

struct worker {
    struct node *node;
    unsigned index;
    pthread_t thread;
};

static void raise_max(_Atomic uint64_t *max, uint64_t v)
{
    uint64_t seen = atomic_load_explicit(max, memory_order_relaxed);
    while (v > seen && !atomic_compare_exchange_weak_explicit(max, &seen, v, memory_order_relaxed,
                                                              memory_order_relaxed))
        ;
}

static void sleep_until(uint64_t t_ns)
{
    struct timespec ts = {.tv_sec = (time_t)(t_ns / 1000000000ull),
                          .tv_nsec = (long)(t_ns % 1000000000ull)};
    while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

/* One message to the store, sent by the thread that has it and answered
 * synchronously; then the reply goes to the node half under the lock. */
static int send_and_reply(struct node *n, struct rl_coord_msg *msg, uint64_t now_ns)
{
    atomic_fetch_add_explicit(&n->board->store_calls, 1, memory_order_relaxed);
    int rc = rl_coord_redis_serve(n->store, msg, now_ns);
    uint64_t back = rl_nodes_realtime_ns();
    raise_max(&n->board->max_rtt_ns, back - now_ns);
    if (rc != 0) { /* a lost message, to the node half: no reply comes */
        atomic_fetch_add_explicit(&n->board->store_errors, 1, memory_order_relaxed);
        return -1;
    }
    pthread_mutex_lock(&n->lock);
    n->coord->reply(n->state, msg, back);
    pthread_mutex_unlock(&n->lock);
    return 0;
}

/* Appends one decision line, one write(2) on an O_APPEND file: it reaches
 * the kernel at once, so a node killed later leaves every line before. */
static void log_decision(struct node *n, uint64_t t_ns, uint32_t key, uint32_t cost, bool admitted,
                         unsigned thread)
{
    char line[96];
    uint64_t since = t_ns > n->epoch_ns ? t_ns - n->epoch_ns : 0;
    int len = snprintf(line, sizeof line, "%llu,k%u,%u,%d,%u\n", (unsigned long long)since,
                       (unsigned)key, (unsigned)cost, admitted ? 1 : 0, thread);
    const char *p = line;
    while (len > 0) {
        ssize_t w = write(n->log_fd, p, (size_t)len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            atomic_store(&n->log_failed, true);
            return;
        }
        p += w;
        len -= (int)w;
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct node *n = w->node;
    const struct rl_trace *trace = n->job->trace;
    unsigned threads = n->job->cfg->threads;
    for (size_t m = w->index; m < n->mine_len; m += threads) {
        const struct rl_attempt *a = &trace->attempts[n->mine[m]];
        uint64_t due = n->epoch_ns + a->t_ns;
        sleep_until(due);
        struct rl_coord_msg msg;
        bool send = false;
        pthread_mutex_lock(&n->lock);
        uint64_t now = rl_nodes_realtime_ns();
        enum rl_coord_step step = n->coord->attempt(n->state, a->key, a->n, now, &msg, &send);
        pthread_mutex_unlock(&n->lock);
        raise_max(&n->board->max_late_ns, now > due ? now - due : 0);
        bool admitted = step == RL_COORD_ADMIT;
        uint64_t at = now;
        if (send) {
            int rc = send_and_reply(n, &msg, now);
            if (step == RL_COORD_ASK) { /* the store's decision, made when it answered */
                admitted = rc == 0 && msg.answer != 0;
                at = rc == 0 ? msg.at_ns : now;
            }
        }
        log_decision(n, at, a->key, a->n, admitted, w->index);
        atomic_fetch_add_explicit(&n->board->attempts, 1, memory_order_relaxed);
        if (admitted)
            atomic_fetch_add_explicit(&n->board->admits, 1, memory_order_relaxed);
    }
    return NULL;
}

/* Every T from T·i/N (the simulator's spread of ticks over one T) until the
 * trace's last time: the node half's tick for each key. */
static void *tick_main(void *arg)
{
    struct node *n = arg;
    const struct rl_node_job *job = n->job;
    const struct rl_coord_params *p = &job->cfg->run.p;
    uint64_t next = n->epoch_ns + p->sync_ns * job->index / p->nodes, last = 0;
    while (next <= n->epoch_ns + job->end_ns) {
        sleep_until(next);
        uint64_t now = rl_nodes_realtime_ns();
        if (last)
            raise_max(&n->board->max_tick_gap_ns, now - last);
        last = now;
        for (uint32_t k = 0; k < p->keys; k++) {
            struct rl_coord_msg msg;
            pthread_mutex_lock(&n->lock);
            uint64_t t = rl_nodes_realtime_ns();
            bool send = n->coord->tick(n->state, k, t, &msg);
            pthread_mutex_unlock(&n->lock);
            if (send)
                send_and_reply(n, &msg, t);
        }
        next += p->sync_ns;
    }
    return NULL;
}

static _Noreturn void fail(const struct node *n, const char *what)
{
    fprintf(stderr, "ratelab stress: node %u: %s\n", (unsigned)n->job->index, what);
    _exit(1);
}

/* The node's attempts, its state, its log's temporary and its store. */
static void set_up(struct node *n)
{
    const struct rl_node_job *job = n->job;
    const struct rl_nodes_real_config *cfg = job->cfg;
    n->mine = malloc((job->trace->len ? job->trace->len : 1) * sizeof *n->mine);
    if (n->mine == NULL)
        fail(n, "out of memory");
    for (size_t j = 0; j < job->trace->len; j++)
        if (job->node_of[j] == job->index)
            n->mine[n->mine_len++] = j;
    if ((n->state = n->coord->node_new(&cfg->run.p, job->index)) == NULL)
        fail(n, "out of memory for the node's state");
    pthread_mutex_init(&n->lock, NULL);
    char path[4096], err[4200];
    rl_node_log_path(cfg->dir, job->index, true, path, sizeof path);
    n->log_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
    static const char header[] = "t_ns,key,n,admitted,thread\n";
    if (n->log_fd < 0 || write(n->log_fd, header, sizeof header - 1) != sizeof header - 1) {
        snprintf(err, sizeof err, "%s: cannot write: %s", path, strerror(errno));
        fail(n, err);
    }
    n->store =
        rl_coord_redis_open(n->coord, &cfg->run.p, cfg->remote, job->prefix, err, sizeof err);
    if (n->store == NULL)
        fail(n, err);
}

/* Workers and the tick thread, from the start the parent set until the
 * node's last attempt is made and its last tick sent. */
static void run(struct node *n)
{
    unsigned threads = n->job->cfg->threads;
    struct worker *workers = calloc(threads, sizeof *workers);
    pthread_t tick;
    if (workers == NULL)
        fail(n, "out of memory");
    for (unsigned i = 0; i < threads; i++) {
        workers[i] = (struct worker){.node = n, .index = i};
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0)
            fail(n, "cannot start a worker thread");
    }
    if (pthread_create(&tick, NULL, tick_main, n) != 0)
        fail(n, "cannot start the tick thread");
    for (unsigned i = 0; i < threads; i++)
        pthread_join(workers[i].thread, NULL);
    pthread_join(tick, NULL);
    free(workers);
}

_Noreturn void rl_node_process(const struct rl_node_job *job)
{
    /* Dies with the parent, however it ends (SIGKILL included); a parent
     * that died before this line is seen by getppid. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != job->parent)
        _exit(1);
    char name[16];
    snprintf(name, sizeof name, "rl-node-%u", (unsigned)job->index);
    prctl(PR_SET_NAME, name);
    /* The parent's handlers are not the node's: SIGINT and SIGTERM end it
     * (the parent sends them), and a store that goes away is an error
     * answer, not SIGPIPE. Nothing of the parent's atexit work (its
     * servers, its files) may run here: every way out is _exit. */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    struct node n = {
        .job = job, .coord = job->cfg->run.coord, .board = &job->board->node[job->index]};
    set_up(&n);
    atomic_store(&n.board->ready, 1);
    while ((n.epoch_ns = atomic_load(&job->board->epoch_ns)) == 0) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    run(&n);
    rl_coord_redis_close(n.store);
    char tmp[4096], path[4096];
    rl_node_log_path(job->cfg->dir, job->index, true, tmp, sizeof tmp);
    rl_node_log_path(job->cfg->dir, job->index, false, path, sizeof path);
    if (atomic_load(&n.log_failed) || fsync(n.log_fd) != 0 || close(n.log_fd) != 0)
        fail(&n, "cannot write its decision log");
    if (rename(tmp, path) != 0)
        fail(&n, "cannot rename its decision log into place");
    _exit(0);
}
