/* fuzz_util.h — what the libFuzzer targets share: a scratch file per
 * process for readers that take a path, and an abort that says why. */
#ifndef RL_FUZZ_UTIL_H
#define RL_FUZZ_UTIL_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A property broke: say which and abort, so libFuzzer keeps the input. */
#define FUZZ_CHECK(cond, ...)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: property failed: %s: ", __FILE__, __LINE__, #cond);            \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* A path for this process's scratch file NAME: in /dev/shm when there is
 * one (memory, no disk), else in $TMPDIR or /tmp. */
static inline const char *fuzz_scratch_path(char *buf, size_t len, const char *name)
{
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(buf, len, "%s/ratelab-fuzz-%ld-%s", dir ? dir : "/tmp", (long)getpid(), name);
    return buf;
}

/* The two scratch files a round-trip target uses (what it reads, what it
 * writes back), named from stem and removed at exit. One target a binary,
 * so one pair a process. */
static char fuzz_in_path[256], fuzz_out_path[256];

static inline void fuzz_remove_scratch(void)
{
    unlink(fuzz_in_path);
    unlink(fuzz_out_path);
}

static inline void fuzz_scratch_pair(const char *stem)
{
    char name[64];
    snprintf(name, sizeof name, "%s-in.csv", stem);
    fuzz_scratch_path(fuzz_in_path, sizeof fuzz_in_path, name);
    snprintf(name, sizeof name, "%s-out.csv", stem);
    fuzz_scratch_path(fuzz_out_path, sizeof fuzz_out_path, name);
    atexit(fuzz_remove_scratch);
}

/* Writes data[0..size) to path, replacing it; aborts on failure (the
 * fuzzer cannot go on without its input file). */
static inline void fuzz_write_file(const char *path, const uint8_t *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FUZZ_CHECK(fd >= 0, "cannot create %s", path);
    while (size > 0) {
        ssize_t put = write(fd, data, size);
        FUZZ_CHECK(put > 0, "cannot write %s", path);
        data += put;
        size -= (size_t)put;
    }
    close(fd);
}

#endif
