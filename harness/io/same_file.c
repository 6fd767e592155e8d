/* same_file.c — a path's identity by device and inode (see same_file.h):
 * "./t.csv", a symlink and a hard link to t.csv all resolve to t.csv's. */
#include "same_file.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Links followed at most this deep, as the kernel's ELOOP limit. */
#define MAX_LINK_DEPTH 40

static void identify_new(const char *path, struct rl_file_id *id)
{
    char folder[PATH_MAX];
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (slash == NULL)
        snprintf(folder, sizeof folder, ".");
    else if (slash == path)
        snprintf(folder, sizeof folder, "/");
    else if (snprintf(folder, sizeof folder, "%.*s", (int)(slash - path), path) >=
             (int)sizeof folder)
        return;
    struct stat st;
    if (*name == '\0' || strlen(name) >= sizeof id->name || stat(folder, &st) != 0 ||
        !S_ISDIR(st.st_mode))
        return;
    id->kind = RL_FILE_NEW;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    memcpy(id->name, name, strlen(name) + 1);
}

static void identify(const char *path, struct rl_file_id *id, int depth)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode)) {
            id->kind = RL_FILE_EXISTING;
            id->dev = st.st_dev;
            id->ino = st.st_ino;
        } else {
            id->kind = RL_FILE_STREAM; /* written and read in place, as each means */
        }
        return;
    }
    if (depth < MAX_LINK_DEPTH && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* a dangling link: outfile.c creates its target, so that is the name */
        char text[PATH_MAX], target[PATH_MAX];
        ssize_t n = readlink(path, text, sizeof text - 1);
        if (n < 0)
            return;
        text[n] = '\0';
        const char *slash = strrchr(path, '/');
        if (text[0] == '/' || slash == NULL)
            snprintf(target, sizeof target, "%s", text);
        else if (snprintf(target, sizeof target, "%.*s/%s", (int)(slash - path), path, text) >=
                 (int)sizeof target)
            return;
        identify(target, id, depth + 1);
        return;
    }
    identify_new(path, id);
}

void rl_file_identify(const char *path, struct rl_file_id *id)
{
    memset(id, 0, sizeof *id);
    id->kind = RL_FILE_UNKNOWN;
    if (strcmp(path, "-") == 0) {
        id->kind = RL_FILE_STREAM;
        return;
    }
    identify(path, id, 0);
}

bool rl_file_same(const struct rl_file_id *a, const struct rl_file_id *b)
{
    if (a->kind != b->kind || a->dev != b->dev || a->ino != b->ino)
        return false;
    if (a->kind == RL_FILE_EXISTING)
        return true;
    return a->kind == RL_FILE_NEW && strcmp(a->name, b->name) == 0;
}
