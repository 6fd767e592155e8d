/* key_slot.h — which of Redis Cluster's 16384 hash slots a key lives in:
 * CRC16 (the XMODEM variant: polynomial 0x1021, initial value 0, no
 * reflection) of the key, or of its hash tag, modulo 16384.
 *
 * The hash tag (Redis Cluster specification, "Hash tags"): when the key
 * holds a '{' and, after it, a '}' with at least one byte between them,
 * only the bytes between the first '{' and the first '}' after it are
 * hashed. "{}" and "a{}b" hash whole; "{a}{b}" hashes "a"; "{a" whole. */
#ifndef RL_REDIS_CLUSTER_KEY_SLOT_H
#define RL_REDIS_CLUSTER_KEY_SLOT_H

#include <stddef.h>
#include <stdint.h>

#define RL_CLUSTER_SLOTS 16384

uint16_t rl_crc16_xmodem(const void *data, size_t len);

/* The slot of the len bytes at key, after the hash-tag rule. */
unsigned rl_cluster_key_slot(const char *key, size_t len);

#endif
