/* errmsg.h — one-line error messages: how a function of the lower layers
 * (workloads, io) that fails leaves its reason for the caller, and how text
 * from the input (a key, a field) is quoted in a message or a table. */
#ifndef RL_ERRMSG_H
#define RL_ERRMSG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

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

/* The one way a key or a field from the input is shown to a person (a
 * table, an error message): whole when it is at most RL_QUOTE_MAX bytes,
 * else its first RL_QUOTE_MAX bytes (never half a UTF-8 character) then
 * "…(N bytes)" with its full length, so a 256 MB key cannot flood a
 * terminal and its size is still said. Control bytes show as '?', so the
 * text stays one printable line. Machine output (CSV, JSON) writes keys
 * whole and never comes through here. Returns buf; a buf of RL_QUOTE_LEN
 * holds any result (a smaller one shows fewer bytes). */
#define RL_QUOTE_MAX 40
#define RL_QUOTE_LEN (RL_QUOTE_MAX + sizeof "…(18446744073709551615 bytes)")

static inline const char *rl_quote_field(char *buf, size_t buf_len, const char *s, size_t len)
{
    if (buf_len == 0)
        return buf;
    char suffix[48] = "";
    size_t n = len;
    if (len > RL_QUOTE_MAX || len >= buf_len) {
        snprintf(suffix, sizeof suffix, "…(%zu bytes)", len);
        size_t room = buf_len > strlen(suffix) + 1 ? buf_len - strlen(suffix) - 1 : 0;
        n = room < RL_QUOTE_MAX ? room : RL_QUOTE_MAX;
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80) /* s[n] continues a character */
            n--;
    }
    size_t used = 0;
    for (size_t i = 0; i < n && used + 1 < buf_len; i++)
        buf[used++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7F ? '?' : s[i];
    snprintf(buf + used, buf_len - used, "%s", suffix);
    return buf;
}

#endif
