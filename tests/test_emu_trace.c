/*
 * test_emu_trace.c: the emulator's Chrome trace (Perfetto) has one track per stream and SM
 * slot, however many launches ran: 2 PEs x N launches give the same, small set of tracks
 * for N = 3 and N = 24. Every file is valid JSON (checked by a small strict parser here),
 * and every track is named once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "shmemu/emu.h"
#include "shmemu/kernel.h"
#include "support/pe_check.h"

/* ---- a strict JSON syntax check (RFC 8259, no extensions) ---------------------------- */

typedef struct json_in {
    const char *s;
    int depth;
} json_in;

static void json_ws(json_in *in)
{
    while (*in->s == ' ' || *in->s == '\t' || *in->s == '\n' || *in->s == '\r')
        in->s++;
}

static bool json_value(json_in *in);

static bool json_string(json_in *in)
{
    if (*in->s != '"')
        return false;
    for (in->s++; *in->s != '"'; in->s++) {
        if ((unsigned char)*in->s < 0x20)
            return false;
        if (*in->s == '\\') {
            in->s++;
            if (*in->s == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (strchr("0123456789abcdefABCDEF", in->s[i]) == NULL || in->s[i] == '\0')
                        return false;
                in->s += 4;
            } else if (*in->s == '\0' || strchr("\"\\/bfnrt", *in->s) == NULL) {
                return false;
            }
        }
    }
    in->s++;
    return true;
}

static bool json_number(json_in *in)
{
    const char *p = in->s;
    if (*p == '-')
        p++;
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return false;
    if (*p == '.') {
        p++;
        if (!(*p >= '0' && *p <= '9'))
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    in->s = p;
    return true;
}

static bool json_container(json_in *in, char open, char close, bool keyed)
{
    if (*in->s != open || ++in->depth > 64)
        return false;
    in->s++;
    json_ws(in);
    if (*in->s == close) {
        in->s++;
        in->depth--;
        return true;
    }
    for (;;) {
        json_ws(in);
        if (keyed) {
            if (!json_string(in))
                return false;
            json_ws(in);
            if (*in->s++ != ':')
                return false;
        }
        if (!json_value(in))
            return false;
        json_ws(in);
        if (*in->s == ',') {
            in->s++;
            continue;
        }
        if (*in->s++ != close)
            return false;
        in->depth--;
        return true;
    }
}

static bool json_value(json_in *in)
{
    json_ws(in);
    switch (*in->s) {
    case '{': return json_container(in, '{', '}', true);
    case '[': return json_container(in, '[', ']', false);
    case '"': return json_string(in);
    case 't': return strncmp(in->s, "true", 4) == 0 ? (in->s += 4, true) : false;
    case 'f': return strncmp(in->s, "false", 5) == 0 ? (in->s += 5, true) : false;
    case 'n': return strncmp(in->s, "null", 4) == 0 ? (in->s += 4, true) : false;
    default: return json_number(in);
    }
}

static bool json_valid(const char *text)
{
    json_in in = {text, 0};
    if (!json_value(&in))
        return false;
    json_ws(&in);
    return *in.s == '\0';
}

static void test_json_checker(void **state)
{
    (void)state;
    assert_true(json_valid("{\"a\":[1,2.5,-3e2,\"x\\n\",true,null,{}]}"));
    assert_false(json_valid("{\"a\":[1,2,]}"));
    assert_false(json_valid("{\"a\":1}}"));
    assert_false(json_valid("{\"a\":01}"));
    assert_false(json_valid("{\"a\":\"\\q\"}"));
    assert_false(json_valid("[1,2"));
}

/* ---- the trace of N launches --------------------------------------------------------- */

typedef struct {
    int *buf;
} tiny_args;

KERNEL(tiny, tiny_args, a)
{
    a.buf[blockIdx.x * blockDim.x + threadIdx.x] += 1;
}

typedef struct {
    int launches;
    char dir[64];
    int tracks[2];      /* distinct tids on each PE */
    int names[2];       /* thread_name records on each PE */
} trace_job;

/* The distinct "tid" values in text; *names gets the count of thread_name records. */
static int count_tracks(const char *text, int *names)
{
    long seen[512];
    int n = 0;
    *names = 0;
    for (const char *p = text; (p = strstr(p, "\"thread_name\"")) != NULL; p++)
        (*names)++;
    for (const char *p = text; (p = strstr(p, "\"tid\":")) != NULL;) {
        p += 6;
        long tid = strtol(p, NULL, 10);
        bool known = false;
        for (int i = 0; i < n; i++)
            known = known || seen[i] == tid;
        if (!known && n < 512)
            seen[n++] = tid;
    }
    return n;
}

static int trace_launches_body(void *arg)
{
    trace_job *job = arg;
    nvshmem_init();
    int me = nvshmem_my_pe();
    emu_set_sm_limit(4);
    emu_set_timing(true);
    int *buf = NULL;
    cudaMalloc((void **)&buf, 4 * 8 * sizeof(int));
    tiny_args a = {buf};
    for (int k = 0; k < job->launches; k++)
        LAUNCH(tiny, DIM3(4, 1, 1), DIM3(8, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    char path[128];
    snprintf(path, sizeof path, "%s/trace.%d.json", job->dir, me);
    PE_CHECK_EQ_I64(emu_trace_write(path), 0);
    FILE *f = fopen(path, "r");
    if (PE_CHECK(f != NULL)) {
        static char text[2][1 << 20];
        size_t got = fread(text[me], 1, sizeof text[me] - 1, f);
        text[me][got] = '\0';
        fclose(f);
        PE_CHECK_MSG(got < sizeof text[me] - 1, "trace of PE %d too long for the test", me);
        PE_CHECK_MSG(json_valid(text[me]), "PE %d's trace is not valid JSON", me);
        job->tracks[me] = count_tracks(text[me], &job->names[me]);
        PE_CHECK(strstr(text[me], "\"stream 0, SM ") != NULL);
        PE_CHECK(strstr(text[me], "\"stream 0 (priority 0)\"") != NULL);
    }
    unlink(path);
    cudaFree(buf);
    nvshmem_finalize();
    return 0;
}

static void run_trace(trace_job *job)
{
    snprintf(job->dir, sizeof job->dir, "/tmp/shmemu-trace-XXXXXX");
    assert_non_null(mkdtemp(job->dir));
    run_pes(2, trace_launches_body, job);
    rmdir(job->dir);
}

static void test_tracks_per_stream_and_sm(void **state)
{
    (void)state;
    trace_job few = {.launches = 3}, many = {.launches = 24};
    run_trace(&few);
    run_trace(&many);
    for (int p = 0; p < 2; p++) {
        /* at most 4 SM slots of one stream, plus the stream's kernel track, whether 3 or 24
         * launches ran (one track per launch and slot made 24 x 4 + 1) */
        assert_in_range(many.tracks[p], 2, 5);
        assert_in_range(few.tracks[p], 2, 5);
        assert_int_equal(many.names[p], many.tracks[p]); /* each track named once */
        assert_int_equal(few.names[p], few.tracks[p]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_checker),
        cmocka_unit_test(test_tracks_per_stream_and_sm),
    };
    return cmocka_run_group_tests_name("emu_trace", tests, NULL, NULL);
}
