/* outfile.c — write to a temporary, rename on success (see outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int rl_outfile_open(struct rl_outfile *out, const char *path, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (snprintf(out->path, sizeof out->path, "%s", path) >= (int)sizeof out->path ||
        snprintf(out->tmp_path, sizeof out->tmp_path, "%s.tmp.%ld", path, (long)getpid()) >=
            (int)sizeof out->tmp_path) {
        snprintf(err, err_len, "%s: path too long", path);
        return -1;
    }
    out->fp = fopen(out->tmp_path, "w");
    if (out->fp == NULL) {
        snprintf(err, err_len, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int rl_outfile_commit(struct rl_outfile *out, char *err, size_t err_len)
{
    int failed = ferror(out->fp);
    if (fclose(out->fp) != 0)
        failed = 1;
    out->fp = NULL;
    if (failed) {
        snprintf(err, err_len, "%s: write failed: %s", out->path, strerror(errno));
        unlink(out->tmp_path);
        return -1;
    }
    if (rename(out->tmp_path, out->path) != 0) {
        snprintf(err, err_len, "%s: cannot rename into place: %s", out->path, strerror(errno));
        unlink(out->tmp_path);
        return -1;
    }
    return 0;
}

void rl_outfile_abort(struct rl_outfile *out)
{
    if (out->fp)
        fclose(out->fp);
    out->fp = NULL;
    if (out->tmp_path[0])
        unlink(out->tmp_path);
}
