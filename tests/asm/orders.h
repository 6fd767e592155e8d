/* orders.h — one function per memory order on one 64-bit word (orders.c),
 * read by `make asm` as instructions and timed by cost.c. */
#ifndef RL_ASM_ORDERS_H
#define RL_ASM_ORDERS_H

#include <stdatomic.h>
#include <stdint.h>

uint64_t faa_relaxed(_Atomic uint64_t *p, uint64_t n);
uint64_t faa_acquire(_Atomic uint64_t *p, uint64_t n);
uint64_t faa_release(_Atomic uint64_t *p, uint64_t n);
uint64_t faa_acq_rel(_Atomic uint64_t *p, uint64_t n);
uint64_t faa_seq_cst(_Atomic uint64_t *p, uint64_t n);
void store_release(_Atomic uint64_t *p, uint64_t v);
void store_seq_cst(_Atomic uint64_t *p, uint64_t v);
uint64_t load_acquire(_Atomic uint64_t *p);
uint64_t load_seq_cst(_Atomic uint64_t *p);

#endif
