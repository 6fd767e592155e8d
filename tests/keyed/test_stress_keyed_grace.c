/* test_stress_keyed_grace.c — the grace period's one promise, tested as the
 * store-buffer litmus it is (keyed_grace.h): a reader that enters and then
 * loads a word, against a writer that stores that word and then loads the
 * reader's count as rl_grace_wait does, must never both miss each other.
 * Make the reader's entry a relaxed store and x86 shows the forbidden
 * outcome within a few thousand rounds. Again under ThreadSanitizer with
 * every stress*.
 */
#include "tests/support/test_util.h"
#include "harness/keyed/keyed_grace.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#define ROUNDS 50000u

struct litmus {
    _Alignas(64) _Atomic unsigned round; /* the writer starts round r by storing r + 1 */
    _Alignas(64) _Atomic unsigned done;  /* the reader finished round r: r + 1 */
    _Alignas(64) _Atomic uint64_t word;  /* the writer's change: 1 in every round */
    _Alignas(64) _Atomic(struct rl_grace_thread *) reader;
    uint64_t seen[ROUNDS]; /* the reader's load of word in each round */
};

static void wait_for(_Atomic unsigned *counter, unsigned value)
{
    for (unsigned spins = 0; atomic_load_explicit(counter, memory_order_acquire) < value; spins++)
        if (spins > 1000)
            sched_yield(); /* 2 shared CPUs: let the other side run */
}

static void *reader_main(void *arg)
{
    struct litmus *l = arg;
    struct rl_grace_thread *me = rl_grace_self();
    atomic_store_explicit(&l->reader, me, memory_order_release);
    for (unsigned r = 0; me && r < ROUNDS; r++) {
        wait_for(&l->round, r + 1);
        rl_grace_enter(me);
        /* seq_cst, as the container's loads of its table and key words */
        l->seen[r] = atomic_load_explicit(&l->word, memory_order_seq_cst);
        rl_grace_leave(me);
        atomic_store_explicit(&l->done, r + 1, memory_order_release);
    }
    return NULL;
}

static void test_enter_and_change_never_miss(void)
{
    static struct litmus l;
    memset(&l, 0, sizeof l);
    pthread_t reader;
    CU_ASSERT_FATAL(pthread_create(&reader, NULL, reader_main, &l) == 0);
    struct rl_grace_thread *them;
    while ((them = atomic_load_explicit(&l.reader, memory_order_acquire)) == NULL)
        sched_yield();
    unsigned both_missed = 0, reader_first = 0;
    for (unsigned r = 0; r < ROUNDS; r++) {
        uint64_t before = atomic_load_explicit(&them->seq, memory_order_relaxed); /* even */
        atomic_store_explicit(&l.word, 0, memory_order_relaxed);
        atomic_store_explicit(&l.round, r + 1, memory_order_release);
        /* the reader sees the round a cache miss later: a delay that sweeps
         * across that miss makes the two sides overlap in some rounds */
        for (volatile unsigned d = 0; d < r % 2048; d++)
            ;
        /* the change, then rl_grace_wait's load of the reader's count */
        atomic_store_explicit(&l.word, 1, memory_order_seq_cst);
        uint64_t seq = atomic_load_explicit(&them->seq, memory_order_seq_cst);
        wait_for(&l.done, r + 1);
        if (seq != before)
            reader_first++;
        else if (l.seen[r] == 0)
            both_missed++; /* the reader was not seen inside, yet missed the change */
    }
    pthread_join(reader, NULL);
    EXPECT(both_missed == 0,
           "%u of %u rounds: the writer saw no reader inside and the reader missed the change "
           "(%u rounds the writer saw the reader inside)",
           both_missed, ROUNDS, reader_first);
}

RL_TEST_SUITE("stress_keyed_grace", {"a reader's entry and a writer's change never miss each other",
                                     test_enter_and_change_never_miss})
