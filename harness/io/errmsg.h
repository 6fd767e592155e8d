/* errmsg.h — one-line error messages: how a function of the lower layers
 * (workloads, io) that fails leaves its reason for the caller. */
#ifndef RL_ERRMSG_H
#define RL_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/* printf into err; a NULL or empty err is allowed and ignored, and a long
 * message is cut (always NUL-terminated) rather than overflowing. */
static inline void rl_set_err(char *err, size_t err_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline void rl_set_err(char *err, size_t err_len, const char *fmt, ...)
{
    if (err == NULL || err_len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
}

/* Copies s[0..len) into buf for quoting in a message: at most buf_len - 4
 * bytes then "...", control bytes shown as '?', so that the message stays one
 * printable line whatever the input held. Returns buf (buf_len ≥ 8). */
static inline const char *rl_quote_field(char *buf, size_t buf_len, const char *s, size_t len)
{
    size_t max = buf_len - 4;
    size_t n = len < max ? len : max;
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7F ? '?' : s[i];
    if (len > max)
        snprintf(buf + n, 4, "...");
    else
        buf[n] = '\0';
    return buf;
}

#endif
