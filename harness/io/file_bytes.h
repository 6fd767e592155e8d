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

#endif
