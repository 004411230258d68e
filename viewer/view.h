/*
 * view.h: the parts of bin/shmemu-view (docs/view.md), shared by its program and its fuzzer.
 *
 *   view_json.c    a strict JSON reader (RFC 8259: UTF-8, no duplicate keys, depth <= 32) into
 *                  a tree of one line, and the writer of JSON text that is safe inside an
 *                  HTML <script> element ('<', '>', '&', U+2028, U+2029 escaped)
 *   view_log.c     an event log (SHMEMU_EVENTS=FILE, format 1: docs/events.md) checked line by
 *                  line against the format, turned into the page's data
 *   view_report.c  a race summary of bin/shmemu-check (docs/checking.md) turned into the
 *                  page's list of races, each with both accesses
 *
 * Errors are values: every function that reads input returns 0, or -1 with a message in
 * err ("FILE:LINE: what is wrong"); none aborts, none reads past the length it is given.
 */
#ifndef SHMEMU_VIEW_H
#define SHMEMU_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer; failed allocations set oom and drop further writes. */
struct view_buf {
    char *p;
    size_t len, cap;
    bool oom;
};

void view_buf_put(struct view_buf *b, const char *s, size_t n);
void view_buf_puts(struct view_buf *b, const char *s);
void view_buf_printf(struct view_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void view_buf_free(struct view_buf *b);

/* One JSON value. Nodes of one document live in a view_json_doc and link by index. */
enum view_json_type { VJ_NULL, VJ_FALSE, VJ_TRUE, VJ_NUM, VJ_STR, VJ_ARR, VJ_OBJ };

struct view_json {
    enum view_json_type type;
    int next;            /* the next member or element of the parent, -1 at the end */
    int child;           /* ARR, OBJ: the first element or member, -1 when empty */
    const char *key;     /* a member's key (decoded; may hold NUL bytes) */
    size_t key_len;
    const char *s;       /* STR: the decoded bytes; NUM: the number's text in the input */
    size_t len;
    bool is_int;         /* NUM without fraction or exponent */
    bool neg;            /* NUM: a leading minus */
    bool big;            /* NUM, is_int: magnitude above UINT64_MAX */
    uint64_t mag;        /* NUM, is_int, !big: the magnitude */
};

struct view_json_doc {
    struct view_json *node;
    int n, cap;
    char *str;           /* decoded strings */
    size_t str_len, str_cap;
};

/* Parses text[0..len) as one JSON value (whitespace around it allowed). On error, err says
 * what and at which byte (1-based column). The root is node 0. */
int view_json_parse(struct view_json_doc *d, const char *text, size_t len, char *err,
                    size_t errlen);
void view_json_free(struct view_json_doc *d);
/* The member `key` of object node `obj`, or NULL. */
const struct view_json *view_json_get(const struct view_json_doc *d, const struct view_json *obj,
                                      const char *key);
/* The value as JSON text, script-safe; integers beyond 2^53 are written as strings (the page
 * would round them). */
void view_json_write(struct view_buf *b, const struct view_json_doc *d, const struct view_json *v);
void view_json_write_str(struct view_buf *b, const char *s, size_t n);

/* What view_log_convert found, for the program's summary line. */
struct view_log_info {
    long long npes, events, edges, ignored, dropped;
};

/* Checks the event log text[0..len) (name: for messages) and appends its page data to out:
 * {"header":{..},"events":[..],"edges":[..],"ignored":K}. Unknown fields and ops are left
 * out (ignored, counted); anything else that breaks the format is an error naming its line. */
int view_log_convert(const char *text, size_t len, const char *name, struct view_buf *out,
                     struct view_log_info *info, char *err, size_t errlen);

/* Reads bin/shmemu-check's output text[0..len) and appends the races it lists to out as a
 * JSON array; *nraces is their number. Lines that are not part of a race are skipped; a race
 * line that does not read as one is an error naming its line. */
int view_report_convert(const char *text, size_t len, const char *name, struct view_buf *out,
                        int *nraces, char *err, size_t errlen);

#endif
