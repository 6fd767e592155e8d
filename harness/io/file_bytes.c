/* file_bytes.c — load a whole file for parsing (see file_bytes.h). */
#include "file_bytes.h"

#include "errmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int rl_file_bytes_load(const char *path, struct rl_file_bytes *fb, char *err, size_t err_len)
{
    memset(fb, 0, sizeof *fb);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        rl_set_err(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        rl_set_err(err, err_len, "%s: cannot stat: %s", path, strerror(errno));
        close(fd);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        rl_set_err(err, err_len, "%s: cannot read: %s", path, strerror(EISDIR));
        close(fd);
        return -1;
    }
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
            close(fd);
            fb->data = map;
            fb->len = (size_t)st.st_size;
            fb->mapped = true;
            return 0;
        }
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (buf == NULL) {
            rl_set_err(err, err_len, "%s: cannot read: %s", path, strerror(ENOMEM));
            close(fd);
            return -1;
        }
        ssize_t got = read(fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            rl_set_err(err, err_len, "%s: cannot read: %s", path, strerror(errno));
            free(buf);
            close(fd);
            return -1;
        }
        if (got == 0)
            break;
        len += (size_t)got;
        if (len == cap) {
            char *grown = realloc(buf, cap * 2);
            if (grown == NULL)
                free(buf);
            buf = grown;
            cap *= 2;
        }
    }
    close(fd);
    fb->data = buf;
    fb->len = len;
    return 0;
}

void rl_file_bytes_free(struct rl_file_bytes *fb)
{
    if (fb->mapped)
        munmap((void *)fb->data, fb->len);
    else
        free((void *)fb->data);
    fb->data = NULL;
    fb->len = 0;
    fb->mapped = false;
}
