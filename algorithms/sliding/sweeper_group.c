/* sweeper_group.c — see sweeper_group.h.
 *
 * The registry is a process-wide list of live groups behind one mutex. A
 * group's member count and its place in the registry change only with the
 * registry lock held, so a join can never find a group whose last member
 * has just left: leave unlinks an emptied group from the registry before
 * it lets go of the registry lock, and a later join for the same schedule
 * starts a fresh group (for a moment two threads may then exist, the old
 * one on its way out). The old thread is joined outside every lock.
 */
#include "sweeper_group.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rl_sweeper_group {
    struct rl_sweeper_group *next_group; /* the registry's list; registry lock */
    pthread_mutex_t lock;                /* guards members and stop; held for a pass */
    pthread_cond_t wake;                 /* leave → thread: stop now */
    struct rl_sweeper_member *members;   /* a doubly linked list, newest first */
    size_t member_count;                 /* changes under both locks */
    bool stop;
    pthread_t thread;
    /* The schedule, fixed at creation: read by joins under the registry
     * lock, copied by the thread, never written again. */
    rl_sweep_fn sweep;
    uint64_t period_ns;
    struct rl_clock clock;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rl_sweeper_group *registry; /* live groups */

/* CLOCK_MONOTONIC now + delta_ns, as pthread_cond_timedwait wants it. */
static struct timespec deadline_after(uint64_t delta_ns)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t ns = (uint64_t)ts.tv_nsec + delta_ns % 1000000000u;
    ts.tv_sec += (time_t)(delta_ns / 1000000000u + ns / 1000000000u);
    ts.tv_nsec = (long)(ns % 1000000000u);
    return ts;
}

/* The group's thread: one clock read per pass, every member swept with
 * it, then a sleep to the next instant k·P after the pass on the group's
 * clock. A pass that outlasts P skips the instants it missed. Holds the
 * lock except while waiting, so a member cannot leave mid-pass. */
static void *group_main(void *arg)
{
    struct rl_sweeper_group *g = arg;
    struct rl_clock clock = g->clock; /* the thread's own handle */
    clock.reads = 0;
    pthread_mutex_lock(&g->lock);
    while (!g->stop) {
        uint64_t now = rl_clock_now(&clock);
        for (struct rl_sweeper_member *m = g->members; m != NULL; m = m->next)
            g->sweep(m->owner, now);
        uint64_t after = rl_clock_now(&clock);
        struct timespec deadline = deadline_after(g->period_ns - after % g->period_ns);
        int e = 0;
        while (!g->stop && e != ETIMEDOUT)
            e = pthread_cond_timedwait(&g->wake, &g->lock, &deadline);
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

/* A new group with its thread running and no members. NULL on ENOMEM or
 * when the thread cannot start. Registry lock held. */
static struct rl_sweeper_group *group_start(rl_sweep_fn sweep, uint64_t period_ns,
                                            const struct rl_clock *clock)
{
    struct rl_sweeper_group *g = calloc(1, sizeof *g);
    if (g == NULL)
        return NULL;
    g->sweep = sweep;
    g->period_ns = period_ns;
    g->clock = *clock;
    pthread_mutex_init(&g->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&g->wake, &attr);
    pthread_condattr_destroy(&attr);
    if (pthread_create(&g->thread, NULL, group_main, g) != 0) {
        pthread_cond_destroy(&g->wake);
        pthread_mutex_destroy(&g->lock);
        free(g);
        return NULL;
    }
    return g;
}

int rl_sweeper_join(struct rl_sweeper_member *member, void *owner, rl_sweep_fn sweep,
                    uint64_t period_ns, const struct rl_clock *clock)
{
    pthread_mutex_lock(&registry_lock);
    if (member->group != NULL) {
        pthread_mutex_unlock(&registry_lock);
        return 0;
    }
    struct rl_sweeper_group *g = registry;
    while (g != NULL &&
           !(g->sweep == sweep && g->period_ns == period_ns && rl_clock_same(&g->clock, clock)))
        g = g->next_group;
    if (g == NULL) {
        g = group_start(sweep, period_ns, clock);
        if (g == NULL) {
            pthread_mutex_unlock(&registry_lock);
            return -1;
        }
        g->next_group = registry;
        registry = g;
    }
    pthread_mutex_lock(&g->lock);
    member->owner = owner;
    member->prev = NULL;
    member->next = g->members;
    if (g->members != NULL)
        g->members->prev = member;
    g->members = member;
    g->member_count++;
    member->group = g;
    pthread_mutex_unlock(&g->lock);
    pthread_mutex_unlock(&registry_lock);
    return 0;
}

void rl_sweeper_leave(struct rl_sweeper_member *member)
{
    pthread_mutex_lock(&registry_lock);
    struct rl_sweeper_group *g = member->group;
    if (g == NULL) {
        pthread_mutex_unlock(&registry_lock);
        return;
    }
    pthread_mutex_lock(&g->lock); /* waits for a pass in progress */
    if (member->prev != NULL)
        member->prev->next = member->next;
    else
        g->members = member->next;
    if (member->next != NULL)
        member->next->prev = member->prev;
    member->prev = member->next = NULL;
    member->group = NULL;
    bool last = --g->member_count == 0;
    if (last) {
        g->stop = true;
        pthread_cond_signal(&g->wake);
    }
    pthread_mutex_unlock(&g->lock);
    if (last) { /* no join can find it from here on */
        struct rl_sweeper_group **link = &registry;
        while (*link != g)
            link = &(*link)->next_group;
        *link = g->next_group;
    }
    pthread_mutex_unlock(&registry_lock);
    if (last) {
        pthread_join(g->thread, NULL);
        pthread_cond_destroy(&g->wake);
        pthread_mutex_destroy(&g->lock);
        free(g);
    }
}
