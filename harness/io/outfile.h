/* outfile.h — files written whole or not at all: a temporary name beside
 * the target, renamed over it on commit, so a killed run leaves no half file. */
#ifndef RL_OUTFILE_H
#define RL_OUTFILE_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

struct rl_outfile {
    FILE *fp;
    char path[PATH_MAX];
    char tmp_path[PATH_MAX];
};

/* Opens PATH.tmp.<pid> for writing. -1 with one line in err. */
int rl_outfile_open(struct rl_outfile *out, const char *path, char *err, size_t err_len);

/* Flushes, closes and renames over the target. -1 (temporary removed) with
 * one line in err when any write failed (a full disk, say). */
int rl_outfile_commit(struct rl_outfile *out, char *err, size_t err_len);

/* Closes and removes the temporary; the target is untouched. */
void rl_outfile_abort(struct rl_outfile *out);

#endif
