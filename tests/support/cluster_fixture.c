/* cluster_fixture.c — the cluster suites' shared private cluster. */
#include "cluster_fixture.h"

#include "test_util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

static struct rl_redis_cluster cluster;
static int started;

struct rl_redis_cluster *rl_test_cluster(void)
{
    if (!started) {
        char err[1024];
        int rc = rl_redis_cluster_start(&cluster, 3, 1, err, sizeof err);
        EXPECT_FATAL(rc == 0, "cannot start the test cluster: %s", err);
        started = 1;
    }
    return &cluster;
}

void rl_test_cluster_stop(void)
{
    if (started)
        rl_redis_cluster_stop(&cluster);
    started = 0;
}

int rl_test_port_free(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int refused = connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0 && errno == ECONNREFUSED;
    close(fd);
    return refused;
}
