/* verdict.c — the bound a promise sets and whether a run kept it: the one
 * place this rule is written (verdict.h). */
#include "verdict.h"

#include <stdio.h>

const char *rl_held_name(enum rl_held held)
{
    return held == RL_HELD_YES         ? "yes"
           : held == RL_HELD_NO        ? "no"
           : held == RL_HELD_UNCERTAIN ? "uncertain"
                                       : "n/a";
}

uint64_t rl_verdict_measure(const struct rl_promised *p, const struct rl_key_metrics *m)
{
    return p->kind == RL_BOUND_WEAK ? m->certain_max_aligned : m->certain_max_sliding;
}

uint64_t rl_promised_bound(const struct rl_promised *p)
{
    switch (p->kind) {
    case RL_BOUND_STRONG:
    case RL_BOUND_WEAK:
    case RL_BOUND_CONCURRENCY:
        return p->limit;
    case RL_BOUND_WINDOW:
        return 2 * p->limit;
    case RL_BOUND_BUCKET:
        return p->burst + p->limit + p->excess;
    case RL_BOUND_GIVEN:
        return p->limit + p->excess;
    case RL_BOUND_SHAPE: /* the curve over one interval */
        return p->burst + p->limit;
    case RL_BOUND_NONE:
        return 0;
    }
    return 0;
}

/* The verdict before errors are taken into account. */
static enum rl_held judged(const struct rl_promised *p, const struct rl_run_facts *run)
{
    uint64_t bound = rl_promised_bound(p);
    if (p->kind == RL_BOUND_CONCURRENCY)
        return !run->has_in_flight          ? RL_HELD_NA
               : run->max_in_flight > bound ? RL_HELD_NO
                                            : RL_HELD_YES;
    if (!run->checked || bound == 0)
        return RL_HELD_NA;
    /* Judged on what certainly happened in a window: a late stamp from a
     * preempted thread is not a broken promise (checker.h). */
    if (rl_verdict_measure(p, run->m) > bound)
        return RL_HELD_NO;
    /* windows of at least I from the epoch: never more than L per I overall */
    if (p->kind == RL_BOUND_WINDOW && run->m->window_excess > 0)
        return RL_HELD_NO;
    if (run->dropped)
        return RL_HELD_NA;
    if (run->possible != NULL) {
        const struct rl_key_metrics *most = run->possible;
        uint64_t possible = p->kind == RL_BOUND_WEAK ? most->max_aligned : most->max_sliding;
        bool may_break =
            possible > bound || (p->kind == RL_BOUND_WINDOW && most->window_excess > 0);
        return may_break ? RL_HELD_UNCERTAIN : RL_HELD_YES;
    }
    /* The certain maxima leave out what the gaps blur; past I/10 they may
     * leave out a violation, so no violation seen is not a yes. */
    bool too_uncertain = run->uncertainty_ns > run->interval_ns / RL_UNCERTAIN_SHARE;
    return too_uncertain ? RL_HELD_UNCERTAIN : RL_HELD_YES;
}

/* Decisions the limiter did not make (its backend failed) say nothing
 * about its promise: with errors a verdict is never yes, but a violation
 * among the decisions it did make still shows as no. */
static enum rl_held with_errors(enum rl_held held, uint64_t errors)
{
    return errors > 0 && (held == RL_HELD_YES || held == RL_HELD_UNCERTAIN) ? RL_HELD_NA : held;
}

enum rl_held rl_verdict(const struct rl_promised *p, const struct rl_run_facts *run)
{
    return with_errors(judged(p, run), run->errors);
}

uint64_t rl_verdict_excess(const struct rl_promised *p, const struct rl_key_metrics *m)
{
    uint64_t bound = rl_promised_bound(p);
    if (p->kind == RL_BOUND_NONE || p->kind == RL_BOUND_CONCURRENCY || bound == 0)
        return 0;
    uint64_t measured = p->kind == RL_BOUND_WEAK ? m->certain_max_aligned : m->certain_max_sliding;
    uint64_t excess = measured > bound ? measured - bound : 0;
    if (p->kind == RL_BOUND_WINDOW && m->window_excess > excess)
        excess = m->window_excess;
    return excess;
}

int rl_verdict_rule(const struct rl_promised *p, char *buf, size_t len)
{
    const char *measured = p->kind == RL_BOUND_WEAK          ? "max_aligned"
                           : p->kind == RL_BOUND_CONCURRENCY ? "max_in_flight"
                                                             : "max_sliding";
    if (p->kind == RL_BOUND_NONE)
        return snprintf(buf, len, "nothing promised");
    if (p->kind == RL_BOUND_SHAPE)
        return snprintf(buf, len,
                        "releases causal and within %llu + %llu per interval, delay bound kept, "
                        "no spurious reject",
                        (unsigned long long)p->burst, (unsigned long long)p->limit);
    return snprintf(buf, len, "%s <= %llu%s", measured, (unsigned long long)rl_promised_bound(p),
                    p->kind == RL_BOUND_WINDOW ? ", window_excess = 0" : "");
}

enum rl_held rl_shape_verdict(const struct rl_shape_result *shaped)
{
    if (shaped->attempts == 0)
        return RL_HELD_NA;
    bool broken = shaped->noncausal > 0 || shaped->curve_violations > 0 || shaped->over_wait > 0 ||
                  shaped->spurious_rejects > 0;
    return broken ? RL_HELD_NO : RL_HELD_YES;
}

void rl_held_tally_add(struct rl_held_tally *t, enum rl_held held, bool checked, uint64_t errors)
{
    t->errors += errors;
    bool kept = t->held == RL_HELD_YES || t->held == RL_HELD_UNCERTAIN;
    if (held == RL_HELD_NO || (held == RL_HELD_YES && (!t->any || t->held == RL_HELD_YES)) ||
        (held == RL_HELD_UNCERTAIN && (!t->any || kept)))
        t->held = held;
    else if (!t->any && checked)
        t->held = held;
    else
        return;
    t->any = true;
}

const char *rl_held_tally_name(const struct rl_held_tally *t)
{
    return t->any ? rl_held_name(with_errors(t->held, t->errors)) : "-";
}
