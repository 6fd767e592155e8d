/* outfile.c — temporary, fsync, rename; in place for what is not a regular
 * file; temporaries removed on a fatal signal (see outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A large buffer: the decision-log and trace writers emit short lines, and
 * one write(2) per megabyte keeps them I/O bound, not syscall bound. */
#define OUT_BUFFER (1u << 20)

/* ---- temporaries removed on a fatal signal ---------------------------------
 * A fixed table, so the handler reads nothing that malloc or stdio own:
 * unlink(2) and raise(2) are async-signal-safe, and a slot's path is written
 * before `used` is set. */
#define CLEANUP_SLOTS 16

static struct {
    volatile sig_atomic_t used;
    char path[PATH_MAX];
} cleanup[CLEANUP_SLOTS];
static pthread_mutex_t cleanup_lock = PTHREAD_MUTEX_INITIALIZER;
static const int fatal_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void remove_temporaries(int signo)
{
    for (int i = 0; i < CLEANUP_SLOTS; i++)
        if (cleanup[i].used)
            unlink(cleanup[i].path);
    signal(signo, SIG_DFL);
    raise(signo);
}

/* Installs the handler for each fatal signal the program leaves at its
 * default (it would kill the process and leave the temporary); a program
 * that handles the signal itself (sys/interrupt.h) commits or aborts. */
static void install_cleanup(void)
{
    for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
        struct sigaction old;
        if (sigaction(fatal_signals[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
            (old.sa_flags & SA_SIGINFO))
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = remove_temporaries;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i], &sa, NULL);
    }
}

static int cleanup_add(const char *path)
{
    pthread_mutex_lock(&cleanup_lock);
    int slot = 0; /* 1 + the index; 0: the table is full, the temporary unlisted */
    for (int i = 0; i < CLEANUP_SLOTS && slot == 0; i++)
        if (!cleanup[i].used) {
            memcpy(cleanup[i].path, path, strlen(path) + 1);
            cleanup[i].used = 1;
            slot = i + 1;
        }
    if (slot > 0)
        install_cleanup();
    pthread_mutex_unlock(&cleanup_lock);
    return slot;
}

static void cleanup_remove(int slot)
{
    if (slot == 0)
        return;
    pthread_mutex_lock(&cleanup_lock);
    cleanup[slot - 1].used = 0;
    pthread_mutex_unlock(&cleanup_lock);
}

/* ---- the file mode -------------------------------------------------------- */

static mode_t file_mode;
static pthread_once_t file_mode_once = PTHREAD_ONCE_INIT;

static void read_umask(void)
{
    mode_t mask = umask(022); /* the only way to read it is to set it */
    umask(mask);
    file_mode = 0666 & ~mask;
}

/* ---- open, commit, abort -------------------------------------------------- */

static int fail(char *err, size_t err_len, const char *path, const char *what, int error)
{
    snprintf(err, err_len, "%s: %s: %s", path, what, strerror(error));
    return -1;
}

static int attach(struct rl_outfile *out, int fd, char *err, size_t err_len)
{
    out->fp = fdopen(fd, "w");
    if (out->fp == NULL) {
        int error = errno;
        close(fd);
        return fail(err, err_len, out->path, "cannot write", error);
    }
    setvbuf(out->fp, NULL, _IOFBF, OUT_BUFFER);
    return 0;
}

/* Where a symlink points: its resolved path when the target exists, else
 * the link's text (relative to the link's folder), so a dangling link gets
 * its target created rather than being replaced. */
static int link_target(const char *link, char *out, size_t len)
{
    if (realpath(link, out) != NULL)
        return 0;
    char text[PATH_MAX];
    ssize_t n = readlink(link, text, sizeof text - 1);
    if (n < 0)
        return -1;
    text[n] = '\0';
    const char *slash = strrchr(link, '/');
    if (text[0] == '/' || slash == NULL)
        return snprintf(out, len, "%s", text) < (int)len ? 0 : -1;
    return snprintf(out, len, "%.*s/%s", (int)(slash - link), link, text) < (int)len ? 0 : -1;
}

int rl_outfile_open(struct rl_outfile *out, const char *path, char *err, size_t err_len)
{
    memset(out, 0, sizeof *out);
    if (snprintf(out->path, sizeof out->path, "%s", path) >= (int)sizeof out->path ||
        snprintf(out->tmp_path, sizeof out->tmp_path, "%s.tmp.XXXXXX", path) >=
            (int)sizeof out->tmp_path)
        return fail(err, err_len, path, "cannot write", ENAMETOOLONG);
    if (strcmp(path, "-") == 0) {
        out->in_place = true;
        out->tmp_path[0] = '\0';
        out->fp = stdout;
        return 0;
    }
    /* Anything but a regular file (stat follows links) is written in place:
     * a rename would replace a device with a regular file. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            return fail(err, err_len, path, "cannot write", EISDIR);
        out->in_place = true;
        out->tmp_path[0] = '\0';
        int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
        if (fd < 0)
            return fail(err, err_len, path, "cannot write", errno);
        return attach(out, fd, err, err_len);
    }
    /* A symlink is committed at its target's place: a rename over the link
     * would replace the link itself. */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char real[PATH_MAX];
        if (link_target(path, real, sizeof real) != 0 ||
            snprintf(out->path, sizeof out->path, "%s", real) >= (int)sizeof out->path ||
            snprintf(out->tmp_path, sizeof out->tmp_path, "%s.tmp.XXXXXX", real) >=
                (int)sizeof out->tmp_path)
            return fail(err, err_len, path, "cannot write", ENAMETOOLONG);
    }
    pthread_once(&file_mode_once, read_umask);
    /* mkostemp: O_CREAT | O_EXCL with a random suffix, mode 0600 until
     * fchmod gives it the one mode every ratelab file has. */
    int fd = mkostemp(out->tmp_path, O_CLOEXEC);
    if (fd < 0) {
        int error = errno;
        out->tmp_path[0] = '\0';
        return fail(err, err_len, path, "cannot create a temporary beside it", error);
    }
    out->slot = cleanup_add(out->tmp_path);
    if (fchmod(fd, file_mode) != 0) {
        int error = errno;
        close(fd);
        rl_outfile_abort(out);
        return fail(err, err_len, path, "cannot write", error);
    }
    if (attach(out, fd, err, err_len) != 0) {
        rl_outfile_abort(out);
        return -1;
    }
    return 0;
}

int rl_outfile_commit(struct rl_outfile *out, char *err, size_t err_len)
{
    int error = 0;
    if (fflush(out->fp) != 0 || ferror(out->fp))
        error = errno ? errno : EIO;
    /* fsync before the rename: otherwise a crash can leave the new name
     * pointing at data that never reached the disk. */
    if (error == 0 && !out->in_place && fsync(fileno(out->fp)) != 0)
        error = errno;
    if (out->fp != stdout && fclose(out->fp) != 0 && error == 0)
        error = errno;
    out->fp = NULL;
    if (error == 0 && !out->in_place && rename(out->tmp_path, out->path) != 0)
        error = errno;
    if (error != 0) {
        rl_outfile_abort(out);
        return fail(err, err_len, out->path, "cannot write", error);
    }
    cleanup_remove(out->slot);
    out->slot = 0;
    out->tmp_path[0] = '\0';
    return 0;
}

void rl_outfile_abort(struct rl_outfile *out)
{
    if (out->fp && out->fp != stdout)
        fclose(out->fp);
    out->fp = NULL;
    if (out->tmp_path[0] && !out->in_place)
        unlink(out->tmp_path);
    out->tmp_path[0] = '\0';
    cleanup_remove(out->slot);
    out->slot = 0;
}
