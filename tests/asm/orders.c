/* orders.c — one function per memory order on one 64-bit word, compiled by
 * `make asm` (tests/asm/build.sh) for each machine to read the instructions
 * each order costs. Not linked into anything. */
#include "orders.h"

uint64_t faa_relaxed(_Atomic uint64_t *p, uint64_t n)
{
    return atomic_fetch_add_explicit(p, n, memory_order_relaxed);
}

uint64_t faa_acquire(_Atomic uint64_t *p, uint64_t n)
{
    return atomic_fetch_add_explicit(p, n, memory_order_acquire);
}

uint64_t faa_release(_Atomic uint64_t *p, uint64_t n)
{
    return atomic_fetch_add_explicit(p, n, memory_order_release);
}

uint64_t faa_acq_rel(_Atomic uint64_t *p, uint64_t n)
{
    return atomic_fetch_add_explicit(p, n, memory_order_acq_rel);
}

uint64_t faa_seq_cst(_Atomic uint64_t *p, uint64_t n)
{
    return atomic_fetch_add_explicit(p, n, memory_order_seq_cst);
}

void store_release(_Atomic uint64_t *p, uint64_t v)
{
    atomic_store_explicit(p, v, memory_order_release);
}

void store_seq_cst(_Atomic uint64_t *p, uint64_t v)
{
    atomic_store_explicit(p, v, memory_order_seq_cst);
}

uint64_t load_acquire(_Atomic uint64_t *p)
{
    return atomic_load_explicit(p, memory_order_acquire);
}

uint64_t load_seq_cst(_Atomic uint64_t *p)
{
    return atomic_load_explicit(p, memory_order_seq_cst);
}
