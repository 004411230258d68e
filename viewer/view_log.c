/*
 * view_log.c: reads an event log (SHMEMU_EVENTS=FILE, format 1; the contract is in
 * docs/events.md) and writes the page data of shmemu-view.
 *
 * Line 1 is the header; then N lines, the k-th with "seq":k (edges included: seq counts
 * every line after the header, so seq == its line number - 2). Each line is checked against
 * the format of its op before anything of it is written: the common fields (seq, t, pe,
 * where, file/line/func), then the fields its op needs (table op_rules). An "hb" edge must
 * name two events recorded before it, a releasing one and an acquiring one. Unknown fields
 * are not copied; unknown ops are counted and left out (forward compatibility); a header
 * whose "shmemu_events" is not 1 is refused.
 *
 * Invariant of the output: every event in "events" passed its checks, in seq order; every
 * edge's ends are events of "events" or ops left out as unknown.
 */
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VIEW_MAX_PES 65536

enum field_kind {
    F_PEER,   /* a PE number of the job */
    F_COUNT,  /* an integer >= 0 */
    F_INT,    /* any 64-bit integer (a value, signed or not) */
    F_STR,
    F_MEM,    /* {"obj":NAME,"off":BYTES} */
    F_SIGOP,  /* set | add */
    F_CMP,    /* eq ne gt ge lt le */
    F_DIM3,   /* [x,y,z], each >= 1 */
    F_ID,     /* an integer >= -1: a stream's or a launch's id, -1 when unknown */
    F_WAITS,  /* the hang report's waits */
};

struct field_rule {
    const char *key;
    enum field_kind kind;
    bool required;
};

#define RULES_MAX 8
struct op_rule {
    const char *op;
    struct field_rule f[RULES_MAX];
};

#define RMA_FIELDS {"peer", F_PEER, true}, {"dst", F_MEM, false}, {"src", F_MEM, false}, \
                   {"bytes", F_COUNT, true}

static const struct op_rule op_rules[] = {
    {"put", {RMA_FIELDS}},
    {"get", {RMA_FIELDS}},
    {"put_nbi", {RMA_FIELDS}},
    {"get_nbi", {RMA_FIELDS}},
    {"put_signal", {RMA_FIELDS, {"sig", F_MEM, true}, {"sig_op", F_SIGOP, true},
                    {"value", F_INT, true}}},
    {"signal", {{"peer", F_PEER, true}, {"sig", F_MEM, true}, {"sig_op", F_SIGOP, true},
                {"value", F_INT, true}}},
    {"amo", {{"peer", F_PEER, true}, {"dst", F_MEM, true}, {"amo", F_STR, true},
             {"value", F_INT, false}, {"fetched", F_INT, false}}},
    {"wait_start", {{"sig", F_MEM, true}, {"cmp", F_CMP, true}, {"value", F_INT, true}}},
    {"wait_done", {{"sig", F_MEM, true}, {"cmp", F_CMP, true}, {"value", F_INT, true},
                   {"seen", F_INT, true}}},
    {"fence", {{0}}},
    {"quiet", {{0}}},
    {"barrier_start", {{"team", F_STR, true}}},
    {"barrier_done", {{"team", F_STR, true}}},
    {"launch", {{"kernel", F_STR, true}, {"launch", F_ID, true}, {"grid", F_DIM3, true},
                {"block_dim", F_DIM3, true}, {"stream", F_ID, true}}},
    {"block_start", {{"kernel", F_STR, true}, {"launch", F_ID, true},
                     {"block", F_COUNT, true}, {"sm", F_COUNT, true}}},
    {"block_end", {{"kernel", F_STR, true}, {"launch", F_ID, true},
                   {"block", F_COUNT, true}, {"sm", F_COUNT, true}}},
    {"hang", {{"text", F_STR, true}, {"waits", F_WAITS, true}}},
    {"error", {{"text", F_STR, true}}},
};
#define N_OPS ((int)(sizeof op_rules / sizeof op_rules[0]))

/* What is known of each seq, for the edges: the op's index in op_rules, or one of these. */
#define SEQ_HB      (-1)
#define SEQ_UNKNOWN (-2)

struct reader {
    const char *name;
    long line;
    long long npes;
    char *err;
    size_t errlen;
    struct view_json_doc doc;
    int *seq_op;            /* seq_op[k]: what line k+2 was */
    long long nseq, seq_cap;
};

static int bad(struct reader *r, const char *fmt, const char *a, const char *b)
{
    char what[400];
    snprintf(what, sizeof what, fmt, a, b);
    snprintf(r->err, r->errlen, "%s:%ld: %s", r->name, r->line, what);
    return -1;
}

/* The integer v in [lo, hi] into *out; else an error naming key. */
static int get_int(struct reader *r, const struct view_json *v, const char *key, long long lo,
                   long long hi, long long *out)
{
    if (v == NULL)
        return bad(r, "\"%s\" is missing%s", key, "");
    if (v->type != VJ_NUM || !v->is_int)
        return bad(r, "\"%s\" must be an integer%s", key, "");
    if (v->big || v->mag > (uint64_t)INT64_MAX)
        return bad(r, "\"%s\" is out of range%s", key, "");
    long long x = v->neg ? -(long long)v->mag : (long long)v->mag;
    if (x < lo || x > hi) {
        char range[96];
        snprintf(range, sizeof range, " (it is %lld; it must lie in %lld..%lld)", x, lo, hi);
        return bad(r, "\"%s\" is out of range%s", key, range);
    }
    *out = x;
    return 0;
}

static bool is_str(const struct view_json *v, const char *s)
{
    return v != NULL && v->type == VJ_STR && v->len == strlen(s) && memcmp(v->s, s, v->len) == 0;
}

static int check_str(struct reader *r, const struct view_json *v, const char *key)
{
    if (v == NULL)
        return bad(r, "\"%s\" is missing%s", key, "");
    if (v->type != VJ_STR)
        return bad(r, "\"%s\" must be a string%s", key, "");
    return 0;
}

static int check_one_of(struct reader *r, const struct view_json *v, const char *key,
                        const char *const *words)
{
    if (check_str(r, v, key) != 0)
        return -1;
    for (int i = 0; words[i] != NULL; i++)
        if (is_str(v, words[i]))
            return 0;
    char list[128] = "";
    for (int i = 0; words[i] != NULL; i++) {
        strncat(list, i ? ", " : " (one of ", sizeof list - strlen(list) - 1);
        strncat(list, words[i], sizeof list - strlen(list) - 1);
    }
    strncat(list, ")", sizeof list - strlen(list) - 1);
    return bad(r, "\"%s\" has an unknown value%s", key, list);
}

static int check_field(struct reader *r, const struct view_json *obj, const struct field_rule *f);

static int check_mem(struct reader *r, const struct view_json *v, const char *key)
{
    if (v->type != VJ_OBJ)
        return bad(r, "\"%s\" must be an object {\"obj\":NAME,\"off\":BYTES}%s", key, "");
    long long off;
    if (check_str(r, view_json_get(&r->doc, v, "obj"), "obj") != 0 ||
        get_int(r, view_json_get(&r->doc, v, "off"), "off", 0, INT64_MAX, &off) != 0)
        return -1;
    return 0;
}

/* The fields that say where an event ran. */
static int check_where(struct reader *r, const struct view_json *obj)
{
    const struct view_json *w = view_json_get(&r->doc, obj, "where");
    long long x;
    static const char *const wheres[] = {"host", "stream", "block", NULL};
    if (check_one_of(r, w, "where", wheres) != 0)
        return -1;
    if (is_str(w, "stream"))
        return get_int(r, view_json_get(&r->doc, obj, "stream"), "stream", -1, INT64_MAX, &x);
    if (is_str(w, "block")) {
        if (check_str(r, view_json_get(&r->doc, obj, "kernel"), "kernel") != 0 ||
            get_int(r, view_json_get(&r->doc, obj, "launch"), "launch", -1, INT64_MAX, &x) != 0 ||
            get_int(r, view_json_get(&r->doc, obj, "block"), "block", 0, INT64_MAX, &x) != 0 ||
            get_int(r, view_json_get(&r->doc, obj, "thread"), "thread", -1, INT64_MAX, &x) != 0)
            return -1;
    }
    return 0;
}

static int check_source(struct reader *r, const struct view_json *obj)
{
    const struct view_json *v;
    long long x;
    if ((v = view_json_get(&r->doc, obj, "file")) != NULL && check_str(r, v, "file") != 0)
        return -1;
    if ((v = view_json_get(&r->doc, obj, "func")) != NULL && check_str(r, v, "func") != 0)
        return -1;
    if ((v = view_json_get(&r->doc, obj, "line")) != NULL &&
        get_int(r, v, "line", 0, INT32_MAX, &x) != 0)
        return -1;
    return 0;
}

static int check_waits(struct reader *r, const struct view_json *v)
{
    if (v->type != VJ_ARR)
        return bad(r, "\"waits\" must be an array of the waits that hang%s", "", "");
    static const struct field_rule wait_fields[] = {
        {"pe", F_PEER, true}, {"sig", F_MEM, true}, {"cmp", F_CMP, false},
        {"value", F_INT, false}, {"seen", F_INT, false}};
    for (int m = v->child; m >= 0; m = r->doc.node[m].next) {
        const struct view_json *w = &r->doc.node[m];
        if (w->type != VJ_OBJ)
            return bad(r, "each of \"waits\" must be an object%s", "", "");
        for (size_t i = 0; i < sizeof wait_fields / sizeof wait_fields[0]; i++)
            if (check_field(r, w, &wait_fields[i]) != 0)
                return -1;
        /* a wait's "where" is its thread's label ("host", "stream 1", "kernel k block 3"):
         * the recorder writes what the hang report prints */
        const struct view_json *where = view_json_get(&r->doc, w, "where");
        if ((where != NULL && check_str(r, where, "where") != 0) || check_source(r, w) != 0)
            return -1;
    }
    return 0;
}

static int check_field(struct reader *r, const struct view_json *obj, const struct field_rule *f)
{
    const struct view_json *v = view_json_get(&r->doc, obj, f->key);
    long long x;
    static const char *const sig_ops[] = {"set", "add", NULL};
    static const char *const cmps[] = {"eq", "ne", "gt", "ge", "lt", "le", NULL};
    if (v == NULL)
        return f->required ? bad(r, "\"%s\" is missing%s", f->key, "") : 0;
    switch (f->kind) {
    case F_PEER: return get_int(r, v, f->key, 0, r->npes - 1, &x);
    case F_COUNT: return get_int(r, v, f->key, 0, INT64_MAX, &x);
    case F_ID: return get_int(r, v, f->key, -1, INT64_MAX, &x);
    case F_INT:
        if (v->type != VJ_NUM || !v->is_int || v->big ||
            (v->neg && v->mag > (uint64_t)INT64_MAX + 1))
            return bad(r, "\"%s\" must be an integer of 64 bits%s", f->key, "");
        return 0;
    case F_STR: return check_str(r, v, f->key);
    case F_MEM: return check_mem(r, v, f->key);
    case F_SIGOP: return check_one_of(r, v, f->key, sig_ops);
    case F_CMP: return check_one_of(r, v, f->key, cmps);
    case F_DIM3: {
        int n = 0;
        if (v->type == VJ_ARR)
            for (int m = v->child; m >= 0; m = r->doc.node[m].next, n++)
                if (n < 3 && get_int(r, &r->doc.node[m], f->key, 1, INT32_MAX, &x) != 0)
                    return -1;
        if (n != 3)
            return bad(r, "\"%s\" must be [x,y,z]%s", f->key, "");
        return 0;
    }
    case F_WAITS: return check_waits(r, v);
    }
    return 0;
}

/* Copies the named member of obj, when present, as "key":value (with a leading comma). */
static void copy(struct reader *r, struct view_buf *out, const struct view_json *obj,
                 const char *key)
{
    const struct view_json *v = view_json_get(&r->doc, obj, key);
    if (v == NULL)
        return;
    view_buf_printf(out, ",\"%s\":", key);
    view_json_write(out, &r->doc, v);
}

static int read_header(struct reader *r, const struct view_json *h, struct view_buf *out,
                       long long *events, long long *dropped)
{
    const struct view_json *v = view_json_get(&r->doc, h, "shmemu_events");
    long long x;
    if (h->type != VJ_OBJ || v == NULL)
        return bad(r, "this is not the header of an event log (a JSON object with "
                      "\"shmemu_events\"): is it a file that SHMEMU_EVENTS=FILE wrote?%s%s", "", "");
    if (v->type != VJ_NUM || !v->is_int || v->neg || v->big || v->mag != 1) {
        char ver[40];
        snprintf(ver, sizeof ver, "%.*s", (int)(v->len < 30 ? v->len : 30), v->s ? v->s : "");
        return bad(r, "the log is in format \"shmemu_events\":%s; this shmemu-view reads "
                      "format 1: view it with the shmemu-view of the shmemu that wrote it%s",
                   v->type == VJ_NUM ? ver : "(not a number)", "");
    }
    const struct view_json *args = view_json_get(&r->doc, h, "args");
    static const char *const orders[] = {"time", "sched", NULL};
    if (check_str(r, view_json_get(&r->doc, h, "program"), "program") != 0 ||
        get_int(r, view_json_get(&r->doc, h, "npes"), "npes", 1, VIEW_MAX_PES, &r->npes) != 0 ||
        check_str(r, view_json_get(&r->doc, h, "backend"), "backend") != 0 ||
        check_one_of(r, view_json_get(&r->doc, h, "order"), "order", orders) != 0 ||
        get_int(r, view_json_get(&r->doc, h, "events"), "events", 0, INT64_MAX, events) != 0 ||
        get_int(r, view_json_get(&r->doc, h, "dropped"), "dropped", 0, INT64_MAX, dropped) != 0)
        return -1;
    if (args == NULL || args->type != VJ_ARR)
        return bad(r, "\"args\" must be an array of strings%s%s", "", "");
    for (int m = args->child; m >= 0; m = r->doc.node[m].next)
        if (r->doc.node[m].type != VJ_STR)
            return bad(r, "\"args\" must be an array of strings%s%s", "", "");
    v = view_json_get(&r->doc, h, "sched");
    if (v == NULL || (v->type != VJ_NULL && v->type != VJ_STR))
        return bad(r, "\"sched\" must be a string or null%s%s", "", "");
    v = view_json_get(&r->doc, h, "seed");
    if (v == NULL || (v->type != VJ_NULL && (v->type != VJ_NUM || !v->is_int)))
        return bad(r, "\"seed\" must be an integer or null%s%s", "", "");
    v = view_json_get(&r->doc, h, "sms");   /* optional: SMs (worker slots) per PE */
    if (v != NULL && get_int(r, v, "sms", 1, 1 << 20, &x) != 0)
        return -1;
    view_buf_puts(out, "{\"header\":{\"shmemu_events\":1");
    static const char *const keep[] = {"program", "args", "npes", "backend", "order", "sched",
                                       "seed", "events", "dropped", "sms"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
        copy(r, out, h, keep[i]);
    view_buf_puts(out, "},\"events\":[");
    return 0;
}

static int note_seq(struct reader *r, int what)
{
    if (r->nseq == r->seq_cap) {
        long long cap = r->seq_cap ? r->seq_cap * 2 : 1024;
        int *p = realloc(r->seq_op, (size_t)cap * sizeof *p);
        if (p == NULL)
            return bad(r, "out of memory%s%s", "", "");
        r->seq_op = p;
        r->seq_cap = cap;
    }
    r->seq_op[r->nseq++] = what;
    return 0;
}

static bool op_is(int op, const char *const *names)
{
    if (op == SEQ_UNKNOWN)
        return true;   /* a newer op: the edge's kind is its writer's business */
    if (op < 0)
        return false;
    for (int i = 0; names[i] != NULL; i++)
        if (strcmp(op_rules[op].op, names[i]) == 0)
            return true;
    return false;
}

/* An "hb" edge: appended to edges as {"from":A,"to":B,"kind":K}. */
static int read_edge(struct reader *r, const struct view_json *e, long long seq,
                     struct view_buf *edges)
{
    static const char *const kinds[] = {"signal", "amo", "barrier", "put", NULL};
    static const char *const releases[] = {"signal", "put_signal", "amo", "put", "put_nbi",
                                           "barrier_start", NULL};
    static const char *const acquires[] = {"wait_done", "barrier_done", NULL};
    long long from, to;
    if (get_int(r, view_json_get(&r->doc, e, "from"), "from", 0, seq - 1, &from) != 0 ||
        get_int(r, view_json_get(&r->doc, e, "to"), "to", 0, seq - 1, &to) != 0 ||
        check_one_of(r, view_json_get(&r->doc, e, "kind"), "kind", kinds) != 0)
        return -1;
    char a[32], b[32];
    snprintf(a, sizeof a, "%lld", from);
    snprintf(b, sizeof b, "%lld", to);
    if (!op_is(r->seq_op[from], releases))
        return bad(r, "the edge's \"from\" (seq %s) is not an event that releases (a signal, "
                      "put_signal, put, amo or barrier_start)%s", a, "");
    if (!op_is(r->seq_op[to], acquires))
        return bad(r, "the edge's \"to\" (seq %s) is not an event that acquires (a wait_done "
                      "or barrier_done)%s", b, "");
    view_buf_printf(edges, "%s{\"from\":%lld,\"to\":%lld,\"kind\":", edges->len ? "," : "",
                    from, to);
    view_json_write(edges, &r->doc, view_json_get(&r->doc, e, "kind"));
    view_buf_puts(edges, "}");
    return 0;
}

static int read_event(struct reader *r, const struct view_json *e, long long expect_seq,
                      struct view_buf *out, struct view_buf *edges, struct view_log_info *info)
{
    long long seq, x;
    if (e->type != VJ_OBJ)
        return bad(r, "an event must be a JSON object%s%s", "", "");
    if (get_int(r, view_json_get(&r->doc, e, "seq"), "seq", 0, INT64_MAX, &seq) != 0)
        return -1;
    if (seq != expect_seq) {
        char s[64];
        snprintf(s, sizeof s, "%lld where %lld", seq, expect_seq);
        return bad(r, "\"seq\" is %s was expected (seq counts 0, 1, 2... in line order, "
                      "edges included)%s", s, "");
    }
    const struct view_json *op = view_json_get(&r->doc, e, "op");
    if (check_str(r, op, "op") != 0)
        return -1;
    if (is_str(op, "hb")) {
        info->edges++;
        return read_edge(r, e, seq, edges) != 0 || note_seq(r, SEQ_HB) != 0 ? -1 : 0;
    }
    int k = 0;
    while (k < N_OPS && !is_str(op, op_rules[k].op))
        k++;
    /* Every event, known or not, has its common fields. */
    if (get_int(r, view_json_get(&r->doc, e, "t"), "t", 0, INT64_MAX, &x) != 0 ||
        get_int(r, view_json_get(&r->doc, e, "pe"), "pe", 0, r->npes - 1, &x) != 0)
        return -1;
    if (k == N_OPS) {
        info->ignored++;
        return note_seq(r, SEQ_UNKNOWN);
    }
    if (check_where(r, e) != 0 || check_source(r, e) != 0)
        return -1;
    for (int i = 0; i < RULES_MAX && op_rules[k].f[i].key != NULL; i++)
        if (check_field(r, e, &op_rules[k].f[i]) != 0)
            return -1;
    view_buf_puts(out, info->events ? ",{\"seq\":" : "{\"seq\":");
    view_buf_printf(out, "%lld", seq);
    static const char *const common[] = {"t", "pe", "op", "where", "stream", "kernel", "launch",
                                         "block", "thread", "file", "line", "func"};
    for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
        copy(r, out, e, common[i]);
    for (int i = 0; i < RULES_MAX && op_rules[k].f[i].key != NULL; i++)
        if (strcmp(op_rules[k].f[i].key, "kernel") != 0 && strcmp(op_rules[k].f[i].key, "launch") != 0 &&
            strcmp(op_rules[k].f[i].key, "block") != 0 && strcmp(op_rules[k].f[i].key, "stream") != 0)
            copy(r, out, e, op_rules[k].f[i].key);
    view_buf_puts(out, "}");
    info->events++;
    return note_seq(r, k);
}

int view_log_convert(const char *text, size_t len, const char *name, struct view_buf *out,
                     struct view_log_info *info, char *err, size_t errlen)
{
    struct reader r = {.name = name, .err = err, .errlen = errlen};
    struct view_buf edges = {0};
    long long announced = 0;
    int rc = 0;
    *info = (struct view_log_info){0};
    size_t at = 0;
    if (len == 0) {
        r.line = 1;
        rc = bad(&r, "the file is empty: an event log starts with its header line%s%s", "", "");
    }
    while (rc == 0 && at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        char jerr[160];
        r.line++;
        if (n == 0 || (n == 1 && text[at] == '\r')) {
            rc = bad(&r, "an empty line (each line of an event log is one JSON object)%s%s", "", "");
        } else if (view_json_parse(&r.doc, text + at, n, jerr, sizeof jerr) != 0) {
            rc = bad(&r, "not JSON: %s%s", jerr, "");
        } else if (r.line == 1) {
            rc = read_header(&r, &r.doc.node[0], out, &announced, &info->dropped);
        } else if (r.nseq >= announced) {
            char s[32];
            snprintf(s, sizeof s, "%lld", announced);
            rc = bad(&r, "more lines than the header's \"events\":%s announces%s", s, "");
        } else {
            rc = read_event(&r, &r.doc.node[0], r.nseq, out, &edges, info);
        }
        at += n + (nl != NULL);
    }
    if (rc == 0 && r.nseq != announced) {
        char s[80];
        snprintf(s, sizeof s, "%lld lines but the log holds %lld", announced, r.nseq);
        rc = bad(&r, "the header announces %s: was the log cut short (copied while it was "
                     "written, or truncated)?%s", s, "");
    }
    if (rc == 0) {
        view_buf_puts(out, "],\"edges\":[");
        view_buf_put(out, edges.p, edges.len);
        view_buf_printf(out, "],\"ignored\":%lld}", info->ignored);
        info->npes = r.npes;
        if (out->oom) {
            snprintf(err, errlen, "%s: out of memory", name);
            rc = -1;
        }
    }
    view_buf_free(&edges);
    view_json_free(&r.doc);
    free(r.seq_op);
    return rc;
}
