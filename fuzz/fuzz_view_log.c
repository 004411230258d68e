/*
 * fuzz_view_log.c: libFuzzer harness for shmemu-view's readers (viewer/, docs/view.md): the
 * event log reader (view_log_convert in viewer/view_log.c, over its strict JSON reader
 * view_json.c) and the reader of bin/shmemu-check's race summary (view_report_convert in
 * viewer/view_report.c). Every input goes to both.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=c17 \
 *       -D_GNU_SOURCE fuzz/fuzz_view_log.c viewer/view_json.c viewer/view_log.c \
 *       viewer/view_report.c -o fuzz_view_log
 *   mkdir -p work && ./fuzz_view_log -dict=fuzz/fuzz_view_log.dict work fuzz/corpus/fuzz_view_log
 *
 * Each reader accepts the input or refuses it with a message that names it ("fuzz:"). What
 * it accepts becomes page data that must be JSON (the strict reader reads it back, unless
 * only its nesting is too deep for it: a log's own values are copied one level down) and
 * safe inside an HTML <script> element: no '<', '>' or '&' anywhere in it. An accepted log
 * holds no more events than lines.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../viewer/view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_page_data(const struct view_buf *out)
{
    if (out->oom)
        return;
    if (memchr(out->p, '<', out->len) || memchr(out->p, '>', out->len) ||
        memchr(out->p, '&', out->len))
        abort();
    struct view_json_doc doc = {0};
    char err[256];
    if (view_json_parse(&doc, out->p, out->len, err, sizeof err) != 0 &&
        strstr(err, "nested too deeply") == NULL)
        abort();
    view_json_free(&doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    char err[1024];
    struct view_buf out = {0};
    struct view_log_info info;
    err[0] = '\0';
    if (view_log_convert(text, size, "fuzz", &out, &info, err, sizeof err) == 0) {
        size_t lines = 1;
        for (size_t i = 0; i < size; i++)
            lines += data[i] == '\n';
        if (info.events + info.edges + info.ignored > (long long)lines || info.npes < 1)
            abort();
        check_page_data(&out);
    } else if (strncmp(err, "fuzz", 4) != 0) {
        abort();
    }
    view_buf_free(&out);

    int races = 0;
    err[0] = '\0';
    if (view_report_convert(text, size, "fuzz", &out, &races, err, sizeof err) == 0) {
        if (races < 0 || (size_t)races > size / 20 + 1)
            abort();
        check_page_data(&out);
    } else if (strncmp(err, "fuzz", 4) != 0) {
        abort();
    }
    view_buf_free(&out);
    return 0;
}
