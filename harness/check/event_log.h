/* event_log.h — a decision log: what a limiter decided, attempt by attempt.
 *
 * The recorder produces one; `ratelab sim --decisions` writes one; `ratelab
 * check --events` reads one from ratelab or from any other system. CSV
 * header `t_ns,key,n,admitted,thread`; admitted is 0 or 1. The reader also
 * takes `t_ns,key,n,admitted` (every line then has four fields; thread 0).
 * A shaped run's log has a sixth column, release_ns (shape_check.h reads
 * it; the reader here does not); a real-clock shaped run (stress, replay)
 * adds woke_ns, and a run with cancellations cancel_ns.
 */
#ifndef RL_EVENT_LOG_H
#define RL_EVENT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rl_event {
    uint64_t t_ns;    /* since the run's epoch */
    uint32_t key;     /* dense key id */
    uint32_t n;       /* cost */
    uint16_t thread;  /* which thread decided */
    uint8_t admitted; /* 1 admit, 0 reject */
    /* Recorded runs only (0 elsewhere, and not in the CSV): the certainty
     * gap, saturated at UINT32_MAX: the algorithm decided within gap_ns
     * before the stamp (stress: since the thread's previous stamp; replay:
     * since the read just before the call; docs/design.md, Recorder). It
     * fits in what would be padding: an event stays 24 bytes. */
    uint32_t gap_ns;
};

struct rl_event_log {
    struct rl_event *events;
    size_t len, cap;
    char **key_names; /* key_count names, owned; NULL means "k<id>" */
    uint32_t key_count;
    bool complete;           /* rejects are in the log too (sim, check), not only admits */
    uint64_t dropped;        /* events a full recorder buffer could not keep */
    uint64_t uncertainty_ns; /* the largest gap_ns of one recorded call */
    /* NULL unless the run shaped (a shaper, or a max wait): len entries, the
     * event's release on t_ns's time base (an admit-now's equals its t_ns),
     * RL_NO_RELEASE for a reject. The CSV then gains a release_ns column,
     * empty for rejects. Owned; kept beside, not in, the 24-byte events, and
     * not reordered by rl_event_log_sort: a shaped log is sorted by its
     * owner (sim writes its logs in trace order). */
    uint64_t *release_ns;
    /* NULL unless a real-clock run shaped (stress, replay): len entries, when
     * the caller's sleep until its release ended, on t_ns's time base
     * (woke − release is the harness's timer overshoot, never the
     * limiter's); RL_NO_RELEASE for a reject or a cancelled reservation.
     * CSV column woke_ns, after release_ns. */
    uint64_t *woke_ns;
    /* NULL unless the run cancelled reservations (a trace's cancel_ns): len
     * entries, when the shaper's cancel was called, on t_ns's time base, or
     * RL_NO_RELEASE. CSV column cancel_ns, last. */
    uint64_t *cancel_ns;
};

#define RL_NO_RELEASE UINT64_MAX

int rl_event_log_push(struct rl_event_log *log, const struct rl_event *event);

/* Reads a decision log CSV, with or without the thread column; complete is
 * set (rejects are expected in such a file). -1 with one line in err:
 * missing file, bad header, malformed line with its number. Lines need not
 * be sorted by time: they are kept in file order (rl_check sorts them). */
int rl_event_log_read_csv(const char *path, struct rl_event_log *out, char *err, size_t err_len);

/* Writes through a temporary file and a rename. -1 with a reason in err. */
int rl_event_log_write_csv(const struct rl_event_log *log, const char *path, char *err,
                           size_t err_len);

/* Sorts by time (stable: equal times keep their order). */
void rl_event_log_sort(struct rl_event_log *log);

/* The same for a log with side columns (release_ns, woke_ns, cancel_ns),
 * which move with their events. -1 on ENOMEM, the log unchanged. */
int rl_event_log_sort_with_columns(struct rl_event_log *log);

/* malloc for large scratch arrays of events, asking for transparent huge
 * pages from 32 MiB on: at 10^7 events, faulting in 4 KiB pages costs about
 * as much as the sort or the grouping itself. free() releases it. */
void *rl_event_alloc_big(size_t bytes);

void rl_event_log_free(struct rl_event_log *log);

/* Gives log a copy of count key names (a trace's), so the log names its
 * keys as the trace did; nothing when names is NULL or count 0 (the log
 * then says "k<id>"). -1 when memory runs out. key_count is the caller's. */
int rl_event_log_copy_key_names(struct rl_event_log *log, char *const *names, uint32_t count);

#endif
