/* cluster_commands.c — see cluster_commands.h. */
#include "cluster_commands.h"

#include "cluster_fixture.h"

#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void rl_test_node_command(unsigned port, char *out, size_t out_len, const char *fmt, ...)
{
    out[0] = '\0';
    struct timeval timeout = {2, 0};
    redisContext *c = redisConnectWithTimeout("127.0.0.1", (int)port, timeout);
    if (c == NULL || c->err) {
        if (c)
            redisFree(c);
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    redisReply *reply = redisvCommand(c, fmt, ap);
    va_end(ap);
    if (reply && reply->type == REDIS_REPLY_INTEGER)
        snprintf(out, out_len, "%lld", reply->integer);
    else if (reply && reply->str)
        snprintf(out, out_len, "%s", reply->str);
    if (reply)
        freeReplyObject(reply);
    redisFree(c);
}

bool rl_test_cluster_ok(void)
{
    struct rl_redis_cluster *c = rl_test_cluster();
    for (int tries = 0; tries < 200; tries++) {
        bool ok = true;
        for (size_t i = 0; i < c->node_count && ok; i++) {
            char info[4096];
            rl_test_node_command(c->nodes[i].port, info, sizeof info, "CLUSTER INFO");
            ok = strstr(info, "cluster_state:ok") != NULL;
        }
        if (ok)
            return true;
        struct timespec pause = {0, 50 * 1000000};
        nanosleep(&pause, NULL);
    }
    return false;
}
