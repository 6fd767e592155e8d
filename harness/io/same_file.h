/* same_file.h — whether two paths name one file, so that a command refuses
 * an output that would replace one of its inputs or another output before
 * anything runs (docs/commands.md). */
#ifndef RL_SAME_FILE_H
#define RL_SAME_FILE_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

enum rl_file_kind {
    RL_FILE_STREAM,   /* "-", a device, a pipe or a socket: never the same as anything */
    RL_FILE_EXISTING, /* a regular file or a folder: its device and inode */
    RL_FILE_NEW,      /* not there yet: its folder's device and inode, and its name */
    RL_FILE_UNKNOWN,  /* no folder to resolve: never the same (the writability check says why) */
};

struct rl_file_id {
    enum rl_file_kind kind;
    dev_t dev;
    ino_t ino;
    char name[NAME_MAX + 1]; /* RL_FILE_NEW only */
};

/* What path names, symlinks followed (a dangling one to where its target
 * would be created, as io/outfile.c writes it). */
void rl_file_identify(const char *path, struct rl_file_id *id);

/* True when both name the same regular file or the same file to be. */
bool rl_file_same(const struct rl_file_id *a, const struct rl_file_id *b);

#endif
