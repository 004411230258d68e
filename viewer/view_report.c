/*
 * view_report.c: reads the race summary that bin/shmemu-check prints (docs/checking.md) and
 * writes it as the page's list of races.
 *
 * A race is two lines: the first access, indented by four spaces,
 *     read of size 8 at ring.c:46 in main() by PE 1 host
 * and the second, indented by six,
 *       races with write of size 8 at ring.c:40 in main() by PE 0 host (1 report)
 * or, from DRD, "races with an access by PE 0 host within ring.c:40 in main() (DRD ...)",
 * "... between ring.c:38 in main() and ring.c:41 in main() (DRD ...)" or "... (that thread
 * had ended: ...)". A tool's heading line ("helgrind: 2 race report(s) ...") names the tool
 * of the races below it. Every other line is skipped, so the whole output of shmemu-check
 * (or of a script around it) can be given. Each access becomes {"kind","file","line","func",
 * "thread","pe","where",...}: file and line are absent when the report has none, pe is -1
 * for a thread that is not a PE's ("thread #3").
 */
#include "view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE_MAX_LEN 4096

struct access {
    char kind[64];
    char file[512], file2[512];
    long line, line2;
    char func[512];
    char thread[512];
    long pe, stream, block, thread_id;
    char where[8];
    char kernel[512];
};

/* Copies s[0..n) into dst (size cap), cut when longer. */
static void cut(char *dst, size_t cap, const char *s, size_t n)
{
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, s, n);
    dst[n] = '\0';
}

static const char *last_strstr(const char *s, const char *what)
{
    const char *last = NULL;
    for (const char *p = strstr(s, what); p != NULL; p = strstr(p + 1, what))
        last = p;
    return last;
}

/* "PE 1 host", "PE 1 stream 0", "PE 1 kernel k block 3", "PE 1 kernel k block 3 thread 7":
 * the thread's PE and place; anything else keeps pe -1. */
static void parse_thread(struct access *a)
{
    const char *t = a->thread;
    int used = 0;
    long pe;
    a->pe = -1;
    a->stream = a->block = a->thread_id = -1;
    if (sscanf(t, "PE %ld %n", &pe, &used) != 1 || used == 0 || pe < 0 || pe > 65535)
        return;
    t += used;
    if (strcmp(t, "host") == 0) {
        strcpy(a->where, "host");
    } else if (sscanf(t, "stream %ld%n", &a->stream, &used) == 1 && t[used] == '\0') {
        strcpy(a->where, "stream");
    } else if (strncmp(t, "kernel ", 7) == 0) {
        const char *b = last_strstr(t, " block ");
        if (b == NULL || b == t + 6)
            return;
        cut(a->kernel, sizeof a->kernel, t + 7, (size_t)(b - (t + 7)));
        used = 0;
        if (sscanf(b, " block %ld%n", &a->block, &used) != 1)
            return;
        if (b[used] != '\0' && (sscanf(b + used, " thread %ld%n", &a->thread_id, &used) != 1))
            return;
        strcpy(a->where, "block");
    } else {
        return;
    }
    a->pe = pe;
}

/* "FILE:LINE in FUNC()[ (outside your sources)]" or "FILE (line unknown) in FUNC()" or
 * "(no source line)": into file/line (line 0 when unknown) and func. */
static void parse_loc(const char *s, size_t n, char *file, size_t fcap, long *line, char *func)
{
    char loc[1024];
    cut(loc, sizeof loc, s, n);
    *line = 0;
    file[0] = func[0] = '\0';
    char *in = strstr(loc, " in ");
    if (in == NULL)
        return;
    *in = '\0';
    char *fn = in + 4, *paren = strstr(fn, "()");
    if (paren != NULL)
        *paren = '\0';
    cut(func, 512, fn, strlen(fn));
    char *unknown = strstr(loc, " (line unknown)");
    if (unknown != NULL)
        *unknown = '\0';
    char *colon = strrchr(loc, ':');
    if (colon != NULL && colon[1] != '\0' && strspn(colon + 1, "0123456789") == strlen(colon + 1) &&
        strlen(colon + 1) < 9) {
        *line = strtol(colon + 1, NULL, 10);
        *colon = '\0';
    }
    cut(file, fcap, loc, strlen(loc));
}

/* "KIND at LOC by THREAD" */
static int parse_plain(const char *s, struct access *a)
{
    const char *at = strstr(s, " at "), *by = last_strstr(s, " by ");
    if (at == NULL || by == NULL || by < at)
        return -1;
    cut(a->kind, sizeof a->kind, s, (size_t)(at - s));
    parse_loc(at + 4, (size_t)(by - (at + 4)), a->file, sizeof a->file, &a->line, a->func);
    cut(a->thread, sizeof a->thread, by + 4, strlen(by + 4));
    return 0;
}

/* DRD's "an access by THREAD within LOC (...)" / "between LOC and LOC (...)" / "(that
 * thread had ended ...)" */
static int parse_drd(const char *s, struct access *a)
{
    const char *t = s + strlen("an access by ");
    const char *within = strstr(t, " within "), *between = strstr(t, " between ");
    const char *ended = strstr(t, " (that thread");
    const char *end = within ? within : between ? between : ended;
    if (end == NULL)
        return -1;
    strcpy(a->kind, "access");
    cut(a->thread, sizeof a->thread, t, (size_t)(end - t));
    if (end == ended)
        return 0;
    const char *loc = end + (within ? 8 : 9);
    const char *stop = strstr(loc, " (DRD");
    size_t n = stop ? (size_t)(stop - loc) : strlen(loc);
    char func2[512];
    if (within != NULL) {
        parse_loc(loc, n, a->file, sizeof a->file, &a->line, a->func);
        return 0;
    }
    const char *and = strstr(loc, "() and ");
    if (and == NULL || and >= loc + n)
        return -1;
    parse_loc(loc, (size_t)(and + 2 - loc), a->file, sizeof a->file, &a->line, a->func);
    parse_loc(and + 7, n - (size_t)(and + 7 - loc), a->file2, sizeof a->file2, &a->line2, func2);
    return 0;
}

static void write_access(struct view_buf *out, const struct access *a)
{
    view_buf_puts(out, "{\"kind\":");
    view_json_write_str(out, a->kind, strlen(a->kind));
    if (a->file[0] != '\0') {
        view_buf_puts(out, ",\"file\":");
        view_json_write_str(out, a->file, strlen(a->file));
        view_buf_printf(out, ",\"line\":%ld", a->line);
    }
    if (a->file2[0] != '\0') {
        view_buf_puts(out, ",\"file2\":");
        view_json_write_str(out, a->file2, strlen(a->file2));
        view_buf_printf(out, ",\"line2\":%ld", a->line2);
    }
    if (a->func[0] != '\0') {
        view_buf_puts(out, ",\"func\":");
        view_json_write_str(out, a->func, strlen(a->func));
    }
    view_buf_puts(out, ",\"thread\":");
    view_json_write_str(out, a->thread, strlen(a->thread));
    view_buf_printf(out, ",\"pe\":%ld", a->pe);
    if (a->pe >= 0) {
        view_buf_printf(out, ",\"where\":\"%s\"", a->where);
        if (a->stream >= 0)
            view_buf_printf(out, ",\"stream\":%ld", a->stream);
        if (a->kernel[0] != '\0') {
            view_buf_puts(out, ",\"kernel\":");
            view_json_write_str(out, a->kernel, strlen(a->kernel));
            view_buf_printf(out, ",\"block\":%ld", a->block);
        }
        if (a->thread_id >= 0)
            view_buf_printf(out, ",\"thread_id\":%ld", a->thread_id);
    }
    view_buf_puts(out, "}");
}

int view_report_convert(const char *text, size_t len, const char *name, struct view_buf *out,
                        int *nraces, char *err, size_t errlen)
{
    static const char races_with[] = "      races with ";
    char tool[16] = "";
    char prev[LINE_MAX_LEN] = "", line[LINE_MAX_LEN];
    long lineno = 0;
    size_t at = 0;
    *nraces = 0;
    view_buf_puts(out, "[");
    while (at < len) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        lineno++;
        cut(line, sizeof line, text + at, n);
        line[strcspn(line, "\r")] = '\0';
        at += n + (nl != NULL);
        static const char *const tools[] = {"helgrind", "drd", "tsan"};
        for (size_t i = 0; i < 3; i++) {
            size_t k = strlen(tools[i]);
            if (strncmp(line, tools[i], k) == 0 && line[k] == ':')
                strcpy(tool, tools[i]);
        }
        if (strncmp(line, races_with, sizeof races_with - 1) != 0) {
            /* a first access: four spaces, then text */
            bool first = strncmp(line, "    ", 4) == 0 && line[4] != ' ' && line[4] != '\0';
            strcpy(prev, first ? line : "");
            continue;
        }
        if (prev[0] == '\0') {
            snprintf(err, errlen, "%s:%ld: a \"races with\" line without the access before it "
                     "(give the output of bin/shmemu-check as it printed it)", name, lineno);
            return -1;
        }
        struct access a = {0}, b = {0};
        char *rest = line + sizeof races_with - 1;
        long count = 1;
        char *paren = strrchr(rest, '(');
        if (paren != NULL && paren > rest && sscanf(paren, "(%ld report", &count) == 1)
            paren[-1] = '\0';
        int rc = parse_plain(prev + 4, &a);
        if (rc == 0)
            rc = strncmp(rest, "an access by ", 13) == 0 ? parse_drd(rest, &b) : parse_plain(rest, &b);
        if (rc != 0) {
            snprintf(err, errlen, "%s:%ld: a race that does not read as shmemu-check writes one "
                     "(\"KIND at FILE:LINE in FUNC() by THREAD\" and \"races with ...\")",
                     name, lineno - (rc != 0 && a.thread[0] == '\0'));
            return -1;
        }
        parse_thread(&a);
        parse_thread(&b);
        view_buf_puts(out, *nraces ? ",{\"tool\":" : "{\"tool\":");
        view_json_write_str(out, tool[0] ? tool : "?", tool[0] ? strlen(tool) : 1);
        view_buf_printf(out, ",\"count\":%ld,\"text\":[", count);
        view_json_write_str(out, prev + 4, strlen(prev + 4));
        view_buf_puts(out, ",");
        view_json_write_str(out, line + 6, strlen(line + 6));
        view_buf_puts(out, "],\"a\":");
        write_access(out, &a);
        view_buf_puts(out, ",\"b\":");
        write_access(out, &b);
        view_buf_puts(out, "}");
        (*nraces)++;
        prev[0] = '\0';
    }
    view_buf_puts(out, "]");
    if (out->oom) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    return 0;
}
