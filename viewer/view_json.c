/*
 * view_json.c: the strict JSON reader and the script-safe writer of shmemu-view (view.h).
 *
 * The reader takes one document (one line of an event log) and builds a tree of nodes that
 * link by index, so that growing the node array never invalidates a parent. Decoded strings
 * go into one buffer that is sized to the input before parsing (a decoded string is never
 * longer than its JSON text), so pointers into it stay valid. Anything RFC 8259 refuses is
 * refused: bad UTF-8, raw control characters, lone surrogates, leading zeros, trailing
 * commas, duplicate keys; nesting is limited to VIEW_JSON_DEPTH so that a hostile line
 * cannot exhaust the stack.
 */
#include "view.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VIEW_JSON_DEPTH 32

void view_buf_put(struct view_buf *b, const char *s, size_t n)
{
    if (b->oom || n == 0)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void view_buf_puts(struct view_buf *b, const char *s)
{
    view_buf_put(b, s, strlen(s));
}

void view_buf_printf(struct view_buf *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof tmp) {
        view_buf_put(b, tmp, (size_t)n);
    } else if (n >= 0) {   /* longer: formatted again into a buffer of its size, never cut */
        char *big = malloc((size_t)n + 1);
        if (big == NULL)
            b->oom = true;
        else if (vsnprintf(big, (size_t)n + 1, fmt, again) == n)
            view_buf_put(b, big, (size_t)n);
        free(big);
    }
    va_end(again);
}

void view_buf_free(struct view_buf *b)
{
    free(b->p);
    *b = (struct view_buf){0};
}

struct parser {
    struct view_json_doc *d;
    const unsigned char *p, *start, *end;
    char *err;
    size_t errlen;
};

static int fail(struct parser *ps, const char *what)
{
    snprintf(ps->err, ps->errlen, "%s at column %zu", what, (size_t)(ps->p - ps->start) + 1);
    return -1;
}

static void skip_ws(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int new_node(struct parser *ps, enum view_json_type t)
{
    struct view_json_doc *d = ps->d;
    if (d->n == d->cap) {
        int cap = d->cap ? d->cap * 2 : 64;
        struct view_json *n = realloc(d->node, (size_t)cap * sizeof *n);
        if (n == NULL)
            return -1;
        d->node = n;
        d->cap = cap;
    }
    d->node[d->n] = (struct view_json){.type = t, .next = -1, .child = -1};
    return d->n++;
}

static void put_utf8(struct view_json_doc *d, uint32_t c)
{
    char *o = d->str + d->str_len;
    if (c < 0x80) {
        o[0] = (char)c;
        d->str_len += 1;
    } else if (c < 0x800) {
        o[0] = (char)(0xC0 | (c >> 6));
        o[1] = (char)(0x80 | (c & 0x3F));
        d->str_len += 2;
    } else if (c < 0x10000) {
        o[0] = (char)(0xE0 | (c >> 12));
        o[1] = (char)(0x80 | ((c >> 6) & 0x3F));
        o[2] = (char)(0x80 | (c & 0x3F));
        d->str_len += 3;
    } else {
        o[0] = (char)(0xF0 | (c >> 18));
        o[1] = (char)(0x80 | ((c >> 12) & 0x3F));
        o[2] = (char)(0x80 | ((c >> 6) & 0x3F));
        o[3] = (char)(0x80 | (c & 0x3F));
        d->str_len += 4;
    }
}

static int hex4(struct parser *ps, uint32_t *out)
{
    if (ps->end - ps->p < 4)
        return fail(ps, "a \\u escape needs four hex digits");
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char c = ps->p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return fail(ps, "a \\u escape needs four hex digits");
    }
    ps->p += 4;
    *out = v;
    return 0;
}

/* The length of the valid UTF-8 sequence at p (2-4 bytes), or 0. */
static int utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned char c = p[0];
    int n;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2; v = c & 0x1F; min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3; v = c & 0x0F; min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4; v = c & 0x07; min = 0x10000;
    } else {
        return 0;
    }
    if (end - p < n)
        return 0;
    for (int i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    return n;
}

/* A string at ps->p (the opening quote): decoded into d->str, *s and *n set. */
static int parse_string(struct parser *ps, const char **s, size_t *n)
{
    struct view_json_doc *d = ps->d;
    ps->p++;
    size_t at = d->str_len;
    for (;;) {
        if (ps->p >= ps->end)
            return fail(ps, "a string is not closed");
        unsigned char c = *ps->p;
        if (c == '"') {
            ps->p++;
            break;
        }
        if (c < 0x20)
            return fail(ps, "a control character inside a string (write it as \\u00XX)");
        if (c == '\\') {
            ps->p++;
            if (ps->p >= ps->end)
                return fail(ps, "a string is not closed");
            c = *ps->p++;
            const char *simple = strchr("\"\\/bfnrt", c);
            if (c != 0 && simple != NULL) {
                static const char out[] = "\"\\/\b\f\n\r\t";
                d->str[d->str_len++] = out[simple - "\"\\/bfnrt"];
            } else if (c == 'u') {
                uint32_t u;
                if (hex4(ps, &u) != 0)
                    return -1;
                if (u >= 0xDC00 && u <= 0xDFFF)
                    return fail(ps, "a lone low surrogate in a \\u escape");
                if (u >= 0xD800 && u <= 0xDBFF) {
                    uint32_t lo;
                    if (ps->end - ps->p < 2 || ps->p[0] != '\\' || ps->p[1] != 'u')
                        return fail(ps, "a high surrogate without its low half");
                    ps->p += 2;
                    if (hex4(ps, &lo) != 0)
                        return -1;
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        return fail(ps, "a high surrogate without its low half");
                    u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                }
                put_utf8(d, u);
            } else {
                ps->p--;
                return fail(ps, "an unknown escape in a string");
            }
        } else if (c < 0x80) {
            d->str[d->str_len++] = (char)c;
            ps->p++;
        } else {
            int k = utf8_len(ps->p, ps->end);
            if (k == 0)
                return fail(ps, "bytes that are not UTF-8 inside a string");
            memcpy(d->str + d->str_len, ps->p, (size_t)k);
            d->str_len += (size_t)k;
            ps->p += k;
        }
    }
    *s = d->str + at;
    *n = d->str_len - at;
    return 0;
}

static int parse_number(struct parser *ps, struct view_json *v)
{
    const unsigned char *p = ps->p;
    v->s = (const char *)p;
    v->is_int = true;
    if (p < ps->end && *p == '-') {
        v->neg = true;
        p++;
    }
    if (p >= ps->end || *p < '0' || *p > '9')
        return fail(ps, "a number needs a digit");
    if (*p == '0' && p + 1 < ps->end && p[1] >= '0' && p[1] <= '9')
        return fail(ps, "a number with a leading zero");
    while (p < ps->end && *p >= '0' && *p <= '9') {
        unsigned dig = (unsigned)(*p - '0');
        if (v->mag > (UINT64_MAX - dig) / 10)
            v->big = true;
        else
            v->mag = v->mag * 10 + dig;
        p++;
    }
    if (p < ps->end && *p == '.') {
        v->is_int = false;
        p++;
        if (p >= ps->end || *p < '0' || *p > '9')
            return fail(ps, "a number needs digits after its '.'");
        while (p < ps->end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < ps->end && (*p == 'e' || *p == 'E')) {
        v->is_int = false;
        p++;
        if (p < ps->end && (*p == '+' || *p == '-'))
            p++;
        if (p >= ps->end || *p < '0' || *p > '9')
            return fail(ps, "a number needs digits in its exponent");
        while (p < ps->end && *p >= '0' && *p <= '9')
            p++;
    }
    v->len = (size_t)(p - ps->p);
    ps->p = p;
    return 0;
}

static int parse_value(struct parser *ps, int depth, int *out);

static int parse_container(struct parser *ps, int depth, int self, bool obj)
{
    char close = obj ? '}' : ']';
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 0;
    }
    int last = -1;
    for (;;) {
        const char *key = NULL;
        size_t key_len = 0;
        skip_ws(ps);
        if (obj) {
            if (ps->p >= ps->end || *ps->p != '"')
                return fail(ps, "an object member must start with a quoted key");
            if (parse_string(ps, &key, &key_len) != 0)
                return -1;
            for (int m = ps->d->node[self].child; m >= 0; m = ps->d->node[m].next) {
                const struct view_json *o = &ps->d->node[m];
                if (o->key_len == key_len && memcmp(o->key, key, key_len) == 0)
                    return fail(ps, "a key given twice in one object");
            }
            skip_ws(ps);
            if (ps->p >= ps->end || *ps->p != ':')
                return fail(ps, "a ':' must follow an object's key");
            ps->p++;
            skip_ws(ps);
        }
        int child;
        if (parse_value(ps, depth + 1, &child) != 0)
            return -1;
        ps->d->node[child].key = key;
        ps->d->node[child].key_len = key_len;
        if (last < 0)
            ps->d->node[self].child = child;
        else
            ps->d->node[last].next = child;
        last = child;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == close) {
            ps->p++;
            return 0;
        }
        return fail(ps, obj ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
    }
}

static int parse_value(struct parser *ps, int depth, int *out)
{
    if (depth > VIEW_JSON_DEPTH)
        return fail(ps, "values nested too deeply");
    skip_ws(ps);
    if (ps->p >= ps->end)
        return fail(ps, "a value is missing");
    unsigned char c = *ps->p;
    int self;
    static const struct { const char *word; enum view_json_type t; } words[] = {
        {"null", VJ_NULL}, {"true", VJ_TRUE}, {"false", VJ_FALSE}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i].word);
        if (c == (unsigned char)words[i].word[0]) {
            if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, words[i].word, n) != 0)
                return fail(ps, "an unknown word (not true, false or null)");
            if ((self = new_node(ps, words[i].t)) < 0)
                return fail(ps, "out of memory");
            ps->p += n;
            *out = self;
            return 0;
        }
    }
    if (c == '"') {
        if ((self = new_node(ps, VJ_STR)) < 0)
            return fail(ps, "out of memory");
        const char *s;
        size_t n;
        if (parse_string(ps, &s, &n) != 0)
            return -1;
        ps->d->node[self].s = s;
        ps->d->node[self].len = n;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        if ((self = new_node(ps, VJ_NUM)) < 0)
            return fail(ps, "out of memory");
        if (parse_number(ps, &ps->d->node[self]) != 0)
            return -1;
    } else if (c == '{' || c == '[') {
        if ((self = new_node(ps, c == '{' ? VJ_OBJ : VJ_ARR)) < 0)
            return fail(ps, "out of memory");
        if (parse_container(ps, depth, self, c == '{') != 0)
            return -1;
    } else {
        return fail(ps, "not a JSON value");
    }
    *out = self;
    return 0;
}

int view_json_parse(struct view_json_doc *d, const char *text, size_t len, char *err,
                    size_t errlen)
{
    d->n = 0;
    d->str_len = 0;
    if (len + 1 > d->str_cap) {
        char *s = realloc(d->str, len + 1);
        if (s == NULL) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        d->str = s;
        d->str_cap = len + 1;
    }
    struct parser ps = {d, (const unsigned char *)text, (const unsigned char *)text,
                        (const unsigned char *)text + len, err, errlen};
    int root;
    if (parse_value(&ps, 0, &root) != 0)
        return -1;
    skip_ws(&ps);
    if (ps.p != ps.end)
        return fail(&ps, "text after the JSON value");
    return 0;
}

void view_json_free(struct view_json_doc *d)
{
    free(d->node);
    free(d->str);
    *d = (struct view_json_doc){0};
}

const struct view_json *view_json_get(const struct view_json_doc *d, const struct view_json *obj,
                                      const char *key)
{
    if (obj == NULL || obj->type != VJ_OBJ)
        return NULL;
    size_t n = strlen(key);
    for (int m = obj->child; m >= 0; m = d->node[m].next)
        if (d->node[m].key_len == n && memcmp(d->node[m].key, key, n) == 0)
            return &d->node[m];
    return NULL;
}

void view_json_write_str(struct view_buf *b, const char *s, size_t n)
{
    view_buf_put(b, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8] = "";
        if (c == '"' || c == '\\')
            snprintf(esc, sizeof esc, "\\%c", c);
        else if (c < 0x20 || c == '<' || c == '>' || c == '&')
            snprintf(esc, sizeof esc, "\\u%04x", c);
        else if (c == 0xE2 && i + 2 < n && (unsigned char)s[i + 1] == 0x80 &&
                 ((unsigned char)s[i + 2] == 0xA8 || (unsigned char)s[i + 2] == 0xA9))
            snprintf(esc, sizeof esc, "\\u%04x", (unsigned char)s[i + 2] == 0xA8 ? 0x2028 : 0x2029);
        else if (c >= 0x80) {
            int k = utf8_len((const unsigned char *)s + i, (const unsigned char *)s + n);
            if (k == 0) {
                snprintf(esc, sizeof esc, "\\ufffd");   /* not UTF-8 (a report, a file name) */
            } else {                                     /* a whole character, kept */
                run += (size_t)k;
                i += (size_t)k - 1;
                continue;
            }
        }
        if (esc[0] == '\0') {
            run++;
            continue;
        }
        view_buf_put(b, s + i - run, run);
        run = 0;
        view_buf_puts(b, esc);
        if (esc[2] == '2')   /* \u2028 or \u2029: three input bytes */
            i += 2;
    }
    view_buf_put(b, s + n - run, run);
    view_buf_put(b, "\"", 1);
}

void view_json_write(struct view_buf *b, const struct view_json_doc *d, const struct view_json *v)
{
    switch (v->type) {
    case VJ_NULL: view_buf_puts(b, "null"); break;
    case VJ_TRUE: view_buf_puts(b, "true"); break;
    case VJ_FALSE: view_buf_puts(b, "false"); break;
    case VJ_STR: view_json_write_str(b, v->s, v->len); break;
    case VJ_NUM:
        if (v->is_int && (v->big || v->mag > (UINT64_C(1) << 53)))
            view_json_write_str(b, v->s, v->len);
        else
            view_buf_put(b, v->s, v->len);
        break;
    case VJ_ARR:
    case VJ_OBJ:
        view_buf_put(b, v->type == VJ_OBJ ? "{" : "[", 1);
        for (int m = v->child; m >= 0; m = d->node[m].next) {
            if (m != v->child)
                view_buf_put(b, ",", 1);
            if (v->type == VJ_OBJ) {
                view_json_write_str(b, d->node[m].key, d->node[m].key_len);
                view_buf_put(b, ":", 1);
            }
            view_json_write(b, d, &d->node[m]);
        }
        view_buf_put(b, v->type == VJ_OBJ ? "}" : "]", 1);
        break;
    }
}
