/* redis_server.h — a private redis-server for one run: Debian's binary,
 * listening only on a Unix socket in a fresh temporary folder, persistence
 * off, started and stopped by the harness.
 *
 * The server is our child and is told to die with us (PR_SET_PDEATHSIG), and
 * an atexit handler stops every server still running, so neither a failed
 * run nor an interrupted one leaves a server behind. No TCP port is opened.
 */
#ifndef RL_REDIS_SERVER_H
#define RL_REDIS_SERVER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct rl_redis_server {
    pid_t pid;              /* 0 when not running */
    char dir[PATH_MAX];     /* the temporary folder: socket and log */
    char address[PATH_MAX]; /* "unix:<dir>/redis.sock", for rl_config.remote */
};

/* True when a redis-server binary can be found (PATH, then /usr/bin). */
bool rl_redis_server_available(void);

/* Starts a server and waits (up to 5 s) until it answers PING. -1 with one
 * line in err: no binary, no temporary folder, or the server did not come up
 * (its log's last line is quoted). */
int rl_redis_server_start(struct rl_redis_server *server, char *err, size_t err_len);

/* SIGTERM, then SIGKILL after 2 s; removes the socket, log and folder.
 * Safe to call twice. */
void rl_redis_server_stop(struct rl_redis_server *server);

/* Kills the server at once (SIGKILL) without cleaning up: for fault tests. */
void rl_redis_server_kill(struct rl_redis_server *server);

/* Kills the server and starts a fresh one on the same socket: same address,
 * empty data, no scripts loaded (fault tests: NOSCRIPT after a restart).
 * -1 with one line in err as for start. */
int rl_redis_server_restart(struct rl_redis_server *server, char *err, size_t err_len);

/* Sends PING to address ("unix:PATH" or "HOST:PORT"). -1 with one line in
 * err when nothing answers PONG within a second. */
int rl_redis_ping(const char *address, char *err, size_t err_len);

/* Checks that an address given by the user has one of the two forms and
 * names a loopback host for TCP. -1 with one line in err. */
int rl_redis_address_check(const char *address, char *err, size_t err_len);

#endif
