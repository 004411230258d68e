/*
 * shmemu_view.c: bin/shmemu-view, the viewer of event logs (docs/view.md).
 *
 *   shmemu-view [-o OUT.html] [--report FILE] LOG...
 *
 * For each LOG (written by a run with SHMEMU_EVENTS=LOG) it writes one self-contained HTML
 * page: the page template, style and script of viewer/page/ (embedded at build time by
 * viewer/embed.c) with the log's events as JSON inside it. Without -o the page of LOG is
 * LOG with its extension replaced by .html; -o names it when one LOG is given. --report
 * FILE adds the races of bin/shmemu-check's output (view_report.c) to every page.
 *
 * A page is written whole (OUT.tmp.<pid>, then rename) and never over an input: a bad log
 * leaves no page behind. Exit status: 0, or 2 on bad arguments or input (the message says
 * what, where, and what to do), 1 when a page cannot be written.
 */
#include "view.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern const char view_page_html[], view_page_css[], view_page_js[];

static const char usage[] =
    "usage: shmemu-view [-o OUT.html] [--report FILE] LOG...\n"
    "  LOG           an event log written by a run with SHMEMU_EVENTS=LOG (docs/events.md)\n"
    "  -o OUT.html   the page to write (one LOG only; default: LOG with .html for its extension)\n"
    "  --report FILE bin/shmemu-check's output: its races are placed on the diagram\n"
    "Open the page in a browser (file://): docs/view.md says what it shows.\n";

/* The whole file into *data (NUL-terminated); -1 with a message on failure. */
static int read_file(const char *path, char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "shmemu-view: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 65536, n = 0, got;
    char *p = malloc(cap);
    while (p != NULL && (got = fread(p + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            char *q = realloc(p, cap * 2);
            if (q == NULL) {
                free(p);
                p = NULL;
                break;
            }
            p = q;
            cap *= 2;
        }
    }
    int failed = ferror(f);
    fclose(f);
    if (p == NULL || failed) {
        fprintf(stderr, "shmemu-view: cannot read %s: %s\n", path,
                p == NULL ? "out of memory" : "read error");
        free(p);
        return -1;
    }
    p[n] = '\0';
    *data = p;
    *len = n;
    return 0;
}

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The template with its three marker lines replaced by the style, the data and the script. */
static void assemble(struct view_buf *page, const struct view_buf *data)
{
    static const struct { const char *mark, *open, *close; } parts[] = {
        {"<!--@CSS@-->", "<style>\n", "</style>"},
        {"<!--@DATA@-->", "<script type=\"application/json\" id=\"shmemu-data\">", "</script>"},
        {"<!--@JS@-->", "<script>\n", "</script>"},
    };
    const char *t = view_page_html;
    for (size_t i = 0; i < 3; i++) {
        const char *m = strstr(t, parts[i].mark);
        if (m == NULL)
            continue;   /* the build's test of the template (check-view) catches it */
        view_buf_put(page, t, (size_t)(m - t));
        view_buf_puts(page, parts[i].open);
        if (i == 0)
            view_buf_puts(page, view_page_css);
        else if (i == 1)
            view_buf_put(page, data->p, data->len);
        else
            view_buf_puts(page, view_page_js);
        view_buf_puts(page, parts[i].close);
        t = m + strlen(parts[i].mark);
    }
    view_buf_puts(page, t);
}

static int write_whole(const char *path, const struct view_buf *b)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (f == NULL) {
        fprintf(stderr, "shmemu-view: cannot write %s: %s (is its folder there and writable?)\n",
                path, strerror(errno));
        return -1;
    }
    size_t n = fwrite(b->p, 1, b->len, f);
    if (fclose(f) != 0 || n != b->len || rename(tmp, path) != 0) {
        fprintf(stderr, "shmemu-view: cannot write %s: %s\n", path, strerror(errno));
        remove(tmp);
        return -1;
    }
    return 0;
}

/* LOG's page name: its extension (after the last '.' of its last component) made .html. */
static void default_out(const char *log, char *out, size_t cap)
{
    const char *slash = strrchr(log, '/'), *dot = strrchr(log, '.');
    size_t n = (dot != NULL && dot > (slash ? slash : log) && dot[1] != '\0') ? (size_t)(dot - log)
                                                                              : strlen(log);
    snprintf(out, cap, "%.*s.html", (int)n, log);
}

static int view_one(const char *log, const char *out, const char *report_json, const char *report,
                    const char *const *inputs, int ninputs)
{
    for (int i = 0; i < ninputs; i++)
        if (strcmp(out, inputs[i]) == 0 || same_file(out, inputs[i])) {
            fprintf(stderr, "shmemu-view: the page %s would overwrite the input %s: name "
                    "another with -o\n", out, inputs[i]);
            return 2;
        }
    char *text;
    size_t len;
    if (read_file(log, &text, &len) != 0)
        return 2;
    struct view_buf data = {0}, page = {0};
    struct view_log_info info;
    char err[1024];
    int rc = 0;
    if (view_log_convert(text, len, log, &data, &info, err, sizeof err) != 0) {
        fprintf(stderr, "shmemu-view: %s\nshmemu-view: no page written: the log must be an event "
                "log of format 1, whole, as SHMEMU_EVENTS=FILE writes it (docs/events.md); "
                "record the run again\n", err);
        rc = 2;
    } else {
        /* the data object, closed by view_log_convert, is reopened to add the report */
        data.len--;
        view_buf_puts(&data, ",\"report\":");
        if (report_json != NULL) {
            view_buf_puts(&data, "{\"file\":");
            view_json_write_str(&data, report, strlen(report));
            view_buf_puts(&data, ",\"races\":");
            view_buf_puts(&data, report_json);
            view_buf_puts(&data, "}");
        } else {
            view_buf_puts(&data, "null");
        }
        view_buf_puts(&data, ",\"log\":");
        view_json_write_str(&data, log, strlen(log));
        view_buf_puts(&data, "}");
        assemble(&page, &data);
        if (page.oom) {
            fprintf(stderr, "shmemu-view: out of memory for the page of %s\n", log);
            rc = 1;
        } else if (write_whole(out, &page) != 0) {
            rc = 1;
        } else {
            printf("shmemu-view: %s: %lld events, %lld edges on %lld PEs%s -> %s\n", log,
                   info.events, info.edges, info.npes,
                   info.ignored ? " (some ops unknown to this viewer left out)" : "", out);
            if (info.dropped)
                printf("shmemu-view: %s: the recorder dropped %lld events (the page says so)\n",
                       log, info.dropped);
        }
    }
    view_buf_free(&data);
    view_buf_free(&page);
    free(text);
    return rc;
}

int main(int argc, char **argv)
{
    const char *out = NULL, *report = NULL;
    const char *logs[argc], *inputs[argc];
    int nlogs = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "-o") == 0 || strcmp(a, "--report") == 0) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                fprintf(stderr, "shmemu-view: %s needs a file name\n%s", a, usage);
                return 2;
            }
            *(a[1] == 'o' ? &out : &report) = argv[++i];
        } else if (strcmp(a, "--") == 0) {
            while (++i < argc)
                logs[nlogs++] = argv[i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "shmemu-view: unknown option %s\n%s", a, usage);
            return 2;
        } else {
            logs[nlogs++] = a;
        }
    }
    if (nlogs == 0) {
        fprintf(stderr, "shmemu-view: no event log given\n%s", usage);
        return 2;
    }
    if (out != NULL && nlogs > 1) {
        fprintf(stderr, "shmemu-view: -o names one page, but %d logs were given: leave -o out "
                "(each LOG gets LOG.html)\n", nlogs);
        return 2;
    }
    for (int i = 0; i < nlogs; i++)
        inputs[i] = logs[i];
    int ninputs = nlogs;
    if (report != NULL)
        inputs[ninputs++] = report;
    struct view_buf races = {0};
    if (report != NULL) {
        char *text;
        size_t len;
        char err[1024];
        int n;
        if (read_file(report, &text, &len) != 0)
            return 2;
        int rc = view_report_convert(text, len, report, &races, &n, err, sizeof err);
        free(text);
        if (rc != 0) {
            fprintf(stderr, "shmemu-view: %s\n", err);
            view_buf_free(&races);
            return 2;
        }
        if (n == 0)
            fprintf(stderr, "shmemu-view: %s lists no race (is it bin/shmemu-check's output?): "
                    "the pages show none\n", report);
    }
    int rc = 0;
    for (int i = 0; i < nlogs && rc == 0; i++) {
        char page[4096];
        if (out != NULL)
            snprintf(page, sizeof page, "%s", out);
        else
            default_out(logs[i], page, sizeof page);
        rc = view_one(logs[i], page, report ? races.p : NULL, report, inputs, ninputs);
    }
    view_buf_free(&races);
    return rc;
}
