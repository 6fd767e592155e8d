/* cli_run.h — run the ratelab binary as a user meets it, for the CLI
 * suites: RATELAB_BIN names the binary (the Makefile sets it). */
#ifndef RL_TEST_CLI_RUN_H
#define RL_TEST_CLI_RUN_H

#include <stddef.h>

struct rl_cli_outcome {
    int status; /* exit status, -1 if it did not exit */
    char out[65536];
    char err[4096];
    int err_lines;
};

/* A file's first len - 1 bytes into buf, NUL-terminated ("" if unreadable). */
void rl_cli_slurp(const char *path, char *buf, size_t len);

/* Runs `ratelab ARGS` through the shell, stdout and stderr captured. */
void rl_cli_run(struct rl_cli_outcome *o, const char *args);

/* The same with stderr on a pseudo-terminal, as a person at a terminal
 * sees it (progress and terminal-only warnings included); its carriage
 * returns are dropped from o->err. */
void rl_cli_run_tty(struct rl_cli_outcome *o, const char *args);

/* Asserts `ratelab ARGS` exits 2 with exactly one stderr line containing
 * needle; the failure message quotes what it printed. */
void rl_cli_expect_usage_error(const char *args, const char *needle);

/* The field named `column` (from csv's header line) of the row starting at
 * `row`, read as an unsigned number; fails the test when there is none. */
unsigned long rl_cli_csv_number(const char *csv, const char *row, const char *column);

/* The same field as text, into buf (len bytes); fails the test when the
 * header has no such column or the row is too short. Returns buf. */
const char *rl_cli_csv_field(const char *csv, const char *row, const char *column, char *buf,
                             size_t len);

/* Lines in text (newlines counted). */
int rl_cli_lines(const char *text);

#endif
