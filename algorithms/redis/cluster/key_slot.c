/* key_slot.c — see key_slot.h. Bitwise CRC16: a key is hashed once per
 * call, and a table would cost more cache than these few shifts. */
#include "key_slot.h"

#include <string.h>

uint16_t rl_crc16_xmodem(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint16_t crc = 0;
    for (size_t i = 0; i < len; i++) {
        crc ^= (uint16_t)(p[i] << 8);
        for (int bit = 0; bit < 8; bit++)
            crc = (uint16_t)(crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1);
    }
    return crc;
}

unsigned rl_cluster_key_slot(const char *key, size_t len)
{
    const char *open = memchr(key, '{', len);
    if (open != NULL) {
        size_t after = (size_t)(open - key) + 1;
        const char *close = memchr(open + 1, '}', len - after);
        if (close != NULL && close > open + 1) /* at least one byte inside */
            return rl_crc16_xmodem(open + 1, (size_t)(close - open - 1)) % RL_CLUSTER_SLOTS;
    }
    return rl_crc16_xmodem(key, len) % RL_CLUSTER_SLOTS;
}
