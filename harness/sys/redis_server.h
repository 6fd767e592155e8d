/* redis_server.h — a private redis-server for one run: Debian's binary,
 * listening only on a Unix socket in a fresh temporary folder, persistence
 * off, started and stopped by the harness.
 *
 * The server is our child and is told to die with us (PR_SET_PDEATHSIG), and
 * an atexit handler stops every server still running, so neither a failed
 * run nor an interrupted one leaves a server behind. No TCP port is opened.
 * A run killed outright (SIGKILL) runs no cleanup and leaves its folder; the
 * folder names its owner (owner.pid), and the next start removes the folders
 * whose owner is gone and whose socket no longer listens.
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

/* Removes this user's $TMPDIR/ratelab-redis-* folders (default /tmp) whose
 * owner process is gone (owner.pid; a folder without it when older than 10
 * minutes) and whose socket does not listen. Called by start. */
void rl_redis_server_sweep(void);

/* SIGTERM, then SIGKILL after 2 s; removes the socket, log and folder.
 * Safe to call twice. */
void rl_redis_server_stop(struct rl_redis_server *server);

/* Kills the server at once (SIGKILL) without cleaning up: for fault tests. */
void rl_redis_server_kill(struct rl_redis_server *server);

/* Kills the server and starts a fresh one on the same socket: same address,
 * empty data, no scripts loaded (fault tests: NOSCRIPT after a restart).
 * -1 with one line in err as for start. */
int rl_redis_server_restart(struct rl_redis_server *server, char *err, size_t err_len);

/* Sends PING to address ("unix:PATH" or "HOST:PORT", HOST a literal address,
 * "[::1]" for IPv6). -1 with one line in err when nothing answers PONG
 * within a second. */
int rl_redis_ping(const char *address, char *err, size_t err_len);

/* Sends one command (argv[0..argc)) to address and copies its reply, a
 * status or a string (INFO's text), into reply_text (cut at reply_len).
 * -1 with one line in err: no connection, an error reply, another type. */
int rl_redis_command(const char *address, int argc, const char *const *argv, char *reply_text,
                     size_t reply_len, char *err, size_t err_len);

/* Sends one command (argv[0..argc), binary-safe: lens[i] bytes each) times
 * times on one connection, pipelined, for the server's own accounting of it
 * (INFO commandstats); any reply but an error counts. -1 with one line in
 * err: no connection, an error reply. */
int rl_redis_repeat(const char *address, int argc, const char *const *argv, const size_t *lens,
                    unsigned times, char *err, size_t err_len);

/* Checks an address given by the user: unix:PATH, or PORT (1-65535, digits)
 * after a loopback host written as a literal: 127.0.0.0/8 as four dotted
 * decimals, [::1], or localhost, taken to mean 127.0.0.1. No name is ever
 * looked up (127.evil.example is refused). The form to connect to goes into
 * canonical (unless NULL): localhost:P becomes 127.0.0.1:P, the rest stays.
 * -1 with one line in err. */
int rl_redis_address_check(const char *address, char *canonical, size_t canonical_len, char *err,
                           size_t err_len);

#endif
