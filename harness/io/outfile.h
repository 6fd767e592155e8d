/* outfile.h — the one way ratelab writes a file: buffered, checked, and
 * committed whole or not at all.
 *
 * A regular file (or a name not yet taken) is written to a temporary created
 * exclusively beside it (PATH.tmp.XXXXXX, O_EXCL: a planted symlink is never
 * followed), flushed, fsynced and renamed over PATH on commit, so a killed
 * run leaves the old file or the new one, never half of one. Anything else
 * (a character device such as /dev/null, a pipe) is written in place: a
 * rename would replace the device with a regular file. "-" is standard
 * output. Every file gets the same mode, 0666 less the umask.
 *
 * A temporary is removed when the process is ended by SIGINT, SIGTERM or
 * SIGHUP while it is open (unless the program handles those signals itself,
 * as long runs do through sys/interrupt.h: they then commit or abort). */
#ifndef RL_OUTFILE_H
#define RL_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct rl_outfile {
    FILE *fp;                /* write through this, or rl_outfile_bytes/_u64 */
    bool in_place;           /* a device, a pipe or stdout: no temporary, no rename */
    int slot;                /* 1 + this temporary's place in the cleanup list; 0: none */
    char path[PATH_MAX];     /* the target */
    char tmp_path[PATH_MAX]; /* "" when in place */
};

/* Opens path for writing as above. -1 with one line in err ("PATH: cannot
 * write: why"); nothing to abort then. */
int rl_outfile_open(struct rl_outfile *out, const char *path, char *err, size_t err_len);

/* Flushes, fsyncs a regular file, closes and renames it over the target.
 * -1 with one line in err when any write failed (a full disk, a closed
 * pipe): the temporary is removed and the target untouched. */
int rl_outfile_commit(struct rl_outfile *out, char *err, size_t err_len);

/* Closes and removes the temporary; the target is untouched. Safe after a
 * failed commit and on a zeroed struct. */
void rl_outfile_abort(struct rl_outfile *out);

/* The hot writers' path (traces and decision logs of 10^8 lines): bytes and
 * decimal numbers without printf. Errors are sticky in fp and reported by
 * commit. */
static inline void rl_outfile_bytes(struct rl_outfile *out, const void *s, size_t len)
{
    fwrite_unlocked(s, 1, len, out->fp);
}

static inline void rl_outfile_u64(struct rl_outfile *out, uint64_t v)
{
    char digits[20];
    size_t i = sizeof digits;
    do {
        digits[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    fwrite_unlocked(digits + i, 1, sizeof digits - i, out->fp);
}

#endif
