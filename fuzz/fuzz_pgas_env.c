/*
 * fuzz_pgas_env.c: libFuzzer harness for the one parser of shmemu's environment variables
 * (the shmemu_env_parse_* layer of pgas/src/env.c, shmemu/env.h: the readers above it only
 * add getenv and the exit on a bad value). The input is one variable's value.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=c17 \
 *       -D_GNU_SOURCE -Ipgas/include fuzz/fuzz_pgas_env.c pgas/src/env.c -lm -o fuzz_pgas_env
 *   mkdir -p work && ./fuzz_pgas_env -max_len=64 work fuzz/corpus/fuzz_pgas_env
 *
 * Each value is parsed as every kind (boolean, integer, number, size, name from a list)
 * under the ranges the runtime, emulator and MD app use. An accepted value must lie in its
 * range and read back the same; a refused one gets a message that names the variable, in
 * a buffer exactly as large as the caller said (ASan catches a longer write), or none when
 * the caller passes no buffer.
 */
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmemu/env.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NAME "SHMEMU_FUZZ"

/* Refused: the message, cut to msg_len, starts with NAME="; msg_len 0 or NULL: untouched. */
static char *msg_buffer(size_t len)
{
    char *m = malloc(len > 0 ? len : 1);
    if (m == NULL)
        abort();
    memset(m, 0x55, len > 0 ? len : 1);
    return m;
}

static void check_refusal(const char *msg, size_t len)
{
    if (len == 0)
        return;
    if (memchr(msg, '\0', len) == NULL)
        abort();
    size_t want = strlen(NAME "=\"");
    if (strncmp(msg, NAME "=\"", len - 1 < want ? len - 1 : want) != 0)
        abort();
}

static void ints(const char *text, size_t msg_len)
{
    static const int64_t ranges[][2] = {
        {0, 0x7fffffffffffLL}, {1, 17}, {1, 1000000000LL}, {16, 1LL << 30},
        {0, 0x7fffffffLL},     {1, 4096}, {INT64_MIN, INT64_MAX}, {-5, -5}};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        int64_t v = 0;
        char *msg = msg_buffer(msg_len);
        if (shmemu_env_parse_int(NAME, text, ranges[r][0], ranges[r][1], &v, msg, msg_len) == 0) {
            if (v < ranges[r][0] || v > ranges[r][1])
                abort();
            char again[32];
            snprintf(again, sizeof again, "%" PRId64, v);
            int64_t w = 0;
            if (shmemu_env_parse_int(NAME, again, ranges[r][0], ranges[r][1], &w, NULL, 0) != 0 ||
                w != v)
                abort();
        } else {
            check_refusal(msg, msg_len);
        }
        free(msg);
    }
}

static void doubles(const char *text, size_t msg_len)
{
    static const double ranges[][2] = {{0.0, 1e12}, {1e-3, 1e6}, {-INFINITY, INFINITY}};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        double v = 0;
        char *msg = msg_buffer(msg_len);
        if (shmemu_env_parse_double(NAME, text, ranges[r][0], ranges[r][1], "seconds", &v, msg,
                                    msg_len) == 0) {
            if (!isfinite(v) || v < ranges[r][0] || v > ranges[r][1])
                abort();
        } else {
            check_refusal(msg, msg_len);
        }
        free(msg);
    }
}

static void sizes(const char *text, size_t msg_len)
{
    static const uint64_t ranges[][2] = {
        {1, (uint64_t)1 << 40}, {16384, (uint64_t)64 << 20}, {0, UINT64_MAX}};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        uint64_t v = 0;
        char *msg = msg_buffer(msg_len);
        if (shmemu_env_parse_size(NAME, text, ranges[r][0], ranges[r][1], &v, msg, msg_len) ==
            0) {
            if (v < ranges[r][0] || v > ranges[r][1])
                abort();
            /* a plain count reads back as itself */
            char again[32];
            snprintf(again, sizeof again, "%" PRIu64, v);
            uint64_t w = 0;
            if (shmemu_env_parse_size(NAME, again, ranges[r][0], ranges[r][1], &w, NULL, 0) != 0 ||
                w != v)
                abort();
        } else {
            check_refusal(msg, msg_len);
        }
        free(msg);
    }
}

static void others(const char *text, size_t msg_len)
{
    bool b = false;
    char *msg = msg_buffer(msg_len);
    if (shmemu_env_parse_bool(NAME, text, &b, msg, msg_len) != 0)
        check_refusal(msg, msg_len);
    else if (strlen(text) > 5)
        abort();
    free(msg);

    static const char *const names[] = {"off", "random", "pct", "rr", "free"};
    int k = -1;
    msg = msg_buffer(msg_len);
    if (shmemu_env_parse_enum(NAME, text, names, 5, &k, msg, msg_len) == 0) {
        if (k < 0 || k >= 5 || strcmp(names[k], text) != 0)
            abort();
    } else {
        check_refusal(msg, msg_len);
    }
    free(msg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* an environment value is a C string: it ends at the first NUL */
    char *text = malloc(size + 1);
    if (text == NULL)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    /* a full message buffer, a short one (the message is cut), and none */
    static const size_t lens[] = {512, 7, 0};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        ints(text, lens[i]);
        doubles(text, lens[i]);
        sizes(text, lens[i]);
        others(text, lens[i]);
    }
    free(text);
    return 0;
}
