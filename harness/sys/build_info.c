/* build_info.c — run context; rebuilt on every make so git_rev is current. */
#include "cpus.h"
#include "build_info.h"
#include "allocator.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef RL_GIT_REV
#define RL_GIT_REV "unknown"
#endif
#ifndef RL_CFLAGS
#define RL_CFLAGS "unknown"
#endif

static void read_cpu_model(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (colon && strncmp(line, "model name", 10) == 0) {
            colon += 2;
            colon[strcspn(colon, "\n")] = '\0';
            /* commas would break the CSV this lands in */
            for (char *c = colon; *c; c++)
                if (*c == ',')
                    *c = ' ';
            snprintf(buf, len, "%s", colon);
            break;
        }
    }
    fclose(f);
}

void rl_context_init(struct rl_context *ctx)
{
    memset(ctx, 0, sizeof *ctx);
    if (gethostname(ctx->host, sizeof ctx->host - 1) != 0 || ctx->host[0] == '\0')
        snprintf(ctx->host, sizeof ctx->host, "unknown");
    ctx->host[strcspn(ctx->host, ".")] = '\0';
    read_cpu_model(ctx->cpu_model, sizeof ctx->cpu_model);
    ctx->cores = (unsigned)rl_cpu_count();
#ifdef __clang__
    ctx->compiler = "clang " __clang_version__;
#else
    ctx->compiler = "gcc " __VERSION__;
#endif
    ctx->cflags = RL_CFLAGS;
    ctx->allocator = rl_allocator_name(); /* at run time: LD_PRELOAD counts */
#ifdef RL_TEACH
    ctx->build = "teach"; /* race points widened: never a measurement */
#else
    ctx->build = "normal";
#endif
    ctx->git_rev = RL_GIT_REV;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(ctx->date, sizeof ctx->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
