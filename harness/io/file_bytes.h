/* file_bytes.h — a whole input file in memory, for the CSV readers: mapped
 * when it is a regular file (no copy), read into a buffer otherwise (a
 * pipe, /dev/stdin). */
#ifndef RL_FILE_BYTES_H
#define RL_FILE_BYTES_H

#include <stdbool.h>
#include <stddef.h>

struct rl_file_bytes {
    const char *data;
    size_t len;
    bool mapped;
};

/* -1 with "PATH: cannot open|stat|read: why" in err (a folder, a missing
 * file, ENOMEM); nothing to free then. */
int rl_file_bytes_load(const char *path, struct rl_file_bytes *fb, char *err, size_t err_len);

void rl_file_bytes_free(struct rl_file_bytes *fb);

/* Past a UTF-8 byte-order mark at the start of data, as spreadsheets write
 * one; data itself when there is none. Every CSV reader calls it, so a file
 * one reader takes the other takes too. */
static inline const char *rl_file_bytes_skip_bom(const char *data, size_t len)
{
    return len >= 3 && data[0] == '\xEF' && data[1] == '\xBB' && data[2] == '\xBF' ? data + 3
                                                                                   : data;
}

#endif
