/* cli_run.c — run build/ratelab as a user would (see cli_run.h). */
#include "cli_run.h"

#include "test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *binary(void)
{
    const char *bin = getenv("RATELAB_BIN");
    return bin ? bin : "build/ratelab";
}

const char *rl_cli_csv_field(const char *csv, const char *row, const char *column, char *buf,
                             size_t len)
{
    size_t want = strlen(column);
    int index = 0;
    const char *h = csv;
    while (*h && *h != '\n' &&
           !(strncmp(h, column, want) == 0 && (h[want] == ',' || h[want] == '\n'))) {
        h += strcspn(h, ",\n");
        if (*h == ',')
            h++, index++;
    }
    EXPECT_FATAL(*h != '\0' && *h != '\n', "no column %s in: %.300s", column, csv);
    for (int i = 0; i < index && row; i++) {
        const char *comma = strchr(row, ',');
        const char *newline = strchr(row, '\n');
        row = comma && (newline == NULL || comma < newline) ? comma + 1 : NULL;
    }
    EXPECT_FATAL(row != NULL, "the row has no field %s", column);
    snprintf(buf, len, "%.*s", (int)strcspn(row, ",\n"), row);
    return buf;
}

unsigned long rl_cli_csv_number(const char *csv, const char *row, const char *column)
{
    char field[64];
    return strtoul(rl_cli_csv_field(csv, row, column, field, sizeof field), NULL, 10);
}

int rl_cli_lines(const char *text)
{
    int lines = 0;
    for (const char *c = text; *c; c++)
        lines += *c == '\n';
    return lines;
}

void rl_cli_slurp(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

/* Runs `ratelab ARGS` through the shell with stdout and stderr captured. */
void rl_cli_run(struct rl_cli_outcome *o, const char *args)
{
    char out_path[] = "/tmp/ratelab-cli-out-XXXXXX", err_path[] = "/tmp/ratelab-cli-err-XXXXXX";
    close(mkstemp(out_path));
    close(mkstemp(err_path));
    char command[2048];
    snprintf(command, sizeof command, "%s %s >%s 2>%s </dev/null", binary(), args, out_path,
             err_path);
    int raw = system(command);
    o->status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    rl_cli_slurp(out_path, o->out, sizeof o->out);
    rl_cli_slurp(err_path, o->err, sizeof o->err);
    o->err_lines = rl_cli_lines(o->err);
    unlink(out_path);
    unlink(err_path);
}

void rl_cli_run_tty(struct rl_cli_outcome *o, const char *args)
{
    memset(o, 0, sizeof *o);
    o->status = -1;
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    EXPECT_FATAL(master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0,
                 "no pseudo-terminal: %s", strerror(errno));
    char slave_path[128];
    snprintf(slave_path, sizeof slave_path, "%s", ptsname(master));
    /* held open here too, so what the command wrote stays readable after it exits */
    int slave = open(slave_path, O_RDWR | O_NOCTTY);
    EXPECT_FATAL(slave >= 0, "%s: %s", slave_path, strerror(errno));
    char out_path[] = "/tmp/ratelab-cli-out-XXXXXX";
    close(mkstemp(out_path));
    char command[2048];
    snprintf(command, sizeof command, "exec %s %s >%s </dev/null", binary(), args, out_path);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(slave, STDERR_FILENO);
        close(master);
        close(slave);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    EXPECT_FATAL(pid > 0, "fork: %s", strerror(errno));
    fcntl(master, F_SETFL, O_NONBLOCK);
    size_t used = 0;
    int raw = 0;
    for (bool done = false;;) { /* read while it runs: a full terminal would block it */
        char buf[512];
        ssize_t n;
        while ((n = read(master, buf, sizeof buf)) > 0)
            for (ssize_t i = 0; i < n; i++)
                if (buf[i] != '\r' && used + 1 < sizeof o->err)
                    o->err[used++] = buf[i];
        if (done)
            break;
        pid_t waited = waitpid(pid, &raw, WNOHANG);
        if (waited == pid || waited < 0)
            done = true; /* one more read drains what is left */
        else
            poll(&(struct pollfd){.fd = master, .events = POLLIN}, 1, 50);
    }
    o->err[used] = '\0';
    close(slave);
    close(master);
    o->status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    rl_cli_slurp(out_path, o->out, sizeof o->out);
    o->err_lines = rl_cli_lines(o->err);
    unlink(out_path);
}

void rl_cli_expect_usage_error(const char *args, const char *needle)
{
    static struct rl_cli_outcome o;
    rl_cli_run(&o, args);
    static char msg[sizeof o.err + 512];
    snprintf(msg, sizeof msg, "ratelab %s: exit %d, %d stderr lines: %s", args, o.status,
             o.err_lines, o.err);
    EXPECT(o.status == 2, "%s", msg);
    EXPECT(o.err_lines == 1, "%s", msg);
    EXPECT(strstr(o.err, needle) != NULL, "%s", msg);
}
