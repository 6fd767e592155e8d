/* sweeper_group.h — one background sweeper thread per sweep schedule,
 * shared by every limiter instance that follows that schedule: the .NET
 * article's one sweeper per container, for ratelab's one instance per key.
 *
 * A schedule is (sweep function, period P, clock handle behaviour). Its
 * thread wakes at the instants k·P of the clock's own timeline, reads the
 * time once through its own copy of the handle, and calls the sweep
 * function for every member with that time. Members join on whatever
 * occasion suits them and leave before they are freed; leave does not
 * return while the thread may still touch the member. The thread starts
 * with a schedule's first member and is stopped and joined when its last
 * member leaves, so a process with no members has no sweeper thread.
 *
 * Locking, outermost first: the registry of groups, a group's lock, then
 * whatever the sweep function takes (the member's own lock). The thread
 * holds its group's lock for a whole pass, so join and leave wait for a
 * pass in progress. A sweep function must not join or leave, and a caller
 * must not join or leave while holding a lock that its sweep function
 * takes.
 */
#ifndef RL_SWEEPER_GROUP_H
#define RL_SWEEPER_GROUP_H

#include "algorithms/rl.h"

#include <stddef.h>
#include <stdint.h>

struct rl_sweeper_group;

/* Called by the group's thread for each member at each instant; now_ns is
 * one read of the group's clock for the whole pass. */
typedef void (*rl_sweep_fn)(void *owner, uint64_t now_ns);

/* Embedded in the instance. Zero-initialised means "not in a group"; the
 * links are the group's, guarded by its lock. */
struct rl_sweeper_member {
    struct rl_sweeper_member *prev, *next;
    struct rl_sweeper_group *group; /* written under the registry lock */
    void *owner;                    /* passed to the sweep function */
};

/* Puts member (owned by owner) in the group that calls sweep every
 * period_ns (> 0) on a clock that reads as *clock does, starting that
 * group's thread if it has none. The clock must advance by itself (not the
 * virtual clock) and is copied: the caller's handle is not kept. Joining a
 * member that is already in a group does nothing. 0 on success; -1 when a
 * new group cannot be allocated or its thread cannot start, and the member
 * is then in no group. */
int rl_sweeper_join(struct rl_sweeper_member *member, void *owner, rl_sweep_fn sweep,
                    uint64_t period_ns, const struct rl_clock *clock);

/* Takes member out of its group, waiting for a sweep pass in progress to
 * end; when it was the last member, stops the group's thread and joins it
 * before returning. Does nothing for a member in no group. Never fails. */
void rl_sweeper_leave(struct rl_sweeper_member *member);

#endif
