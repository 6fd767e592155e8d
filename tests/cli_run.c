/* cli_run.c — run build/ratelab as a user would (see cli_run.h). */
#include "cli_run.h"

#include "test_util.h"

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

unsigned long rl_cli_csv_number(const char *csv, const char *row, const char *column)
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
    CU_ASSERT_FATAL(*h != '\0' && *h != '\n'); /* the header names the column */
    for (int i = 0; i < index && row; i++)
        row = strchr(row, ',') ? strchr(row, ',') + 1 : NULL;
    CU_ASSERT_PTR_NOT_NULL_FATAL(row);
    return strtoul(row, NULL, 10);
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
    o->err_lines = 0;
    for (const char *c = o->err; *c; c++)
        o->err_lines += *c == '\n';
    unlink(out_path);
    unlink(err_path);
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
