/* event_reader.h — a decision-log CSV (event_log.h) read a block at a time:
 * the one parser of the format, behind both the whole-file reader
 * (rl_event_log_read_csv) and the streaming checker (check_file.h), so the
 * two accept the same files and refuse the same lines with the same words.
 *
 * Memory is the read buffer (grown only for a line longer than it) and the
 * key table: it does not grow with the number of lines. Lines are handed
 * over in file order; nothing is sorted here. */
#ifndef RL_EVENT_READER_H
#define RL_EVENT_READER_H

#include "event_log.h"

#include "harness/io/key_table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rl_event_reader {
    const char *path; /* for messages; the caller's string */
    int fd;
    char *buf; /* buf[start, end) is read and not yet parsed */
    size_t cap, start, end;
    size_t scanned; /* buf[start, scanned) holds no '\n' (when scanned > start) */
    bool eof;
    int fields;  /* 5 with the thread column, 4 without */
    size_t line; /* number of the next line to parse (the header is line 1) */
    uint64_t events;
    uint64_t searched; /* bytes searched for a line's end: the reader's work, which tests bound */
    struct rl_key_table keys;     /* ids and names */
    struct short_key *short_keys; /* keys of up to 16 bytes, found fast (event_reader.c) */
    unsigned short_bits;          /* the table has 2^short_bits slots */
    size_t short_count;
    /* A last line without its '\n' that does not parse is a write cut
     * short (a node that died mid-write): when drop_truncated_last is set
     * it is dropped, not an error; dropped_line is its number (0: none)
     * and dropped_why what was wrong with it. */
    bool drop_truncated_last;
    bool added_newline; /* the input's last line lacked its '\n': one was given */
    size_t dropped_line;
    char dropped_why[256];
};

/* Opens path (a file, a pipe or /dev/stdin) and reads its header. -1 with
 * one line in err ("PATH: cannot open: why", "PATH:1: header must be ...");
 * nothing to close then. */
int rl_event_reader_open(struct rl_event_reader *r, const char *path, char *err, size_t err_len);

/* Parses the next lines into events[0, cap), keys interned into dense ids
 * in order of first appearance. Returns how many (0 at the end of the
 * file), or -1 with "PATH:LINE: what is wrong" in err. */
long rl_event_reader_next(struct rl_event_reader *r, struct rl_event *events, size_t cap, char *err,
                          size_t err_len);

/* Whether the input can be read again from its start (a regular file). */
bool rl_event_reader_rereadable(const struct rl_event_reader *r);

/* Hands the key names (ids 0 .. *count − 1) to the caller, who frees each
 * and the array. */
char **rl_event_reader_take_names(struct rl_event_reader *r, uint32_t *count);

void rl_event_reader_close(struct rl_event_reader *r);

#endif
