/*
 * fuzz_sched_trace.c: libFuzzer harness for the deterministic scheduler's trace reader
 * (pgas_trace_parse in pgas/src/sched_trace.c, over a buffer: what pgas_trace_read does
 * after reading the file whole; the format is in docs/sched.md).
 *
 *   srcs=$(ls pgas/src/[a-z]*.c | grep -v /main_wrap.c)
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=c17 \
 *       -ffp-contract=off -D_GNU_SOURCE -pthread -Ipgas/include -Iemu/include \
 *       fuzz/fuzz_sched_trace.c $srcs -lm -o fuzz_sched_trace
 *   mkdir -p work && ./fuzz_sched_trace -max_len=4096 work fuzz/corpus/fuzz_sched_trace
 *
 * The last line's FNV-1a checksum would stop nearly every mutation of the records, so each
 * input is read twice: as it is, and with its checksum line made right (everything before
 * the last "checksum: " is kept and hashed; what a hand-edited trace looks like). Each read
 * must accept, or reject with a message that names the input; an accepted trace must hold the records
 * its header announces and a sane header (names NUL-terminated, known strategy).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../pgas/src/sched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_one(const uint8_t *data, size_t size)
{
    pgas_trace_header *h = malloc(sizeof *h);
    if (h == NULL)
        abort();
    uint64_t *log = NULL, n = 0;
    char err[512];
    err[0] = '\0';
    if (pgas_trace_parse("fuzz", data, size, h, &log, &n, err, sizeof err) == 0) {
        if (n != h->n_decisions || (n > 0 && log == NULL))
            abort();
        if (h->strategy < PGAS_SCHED_RANDOM || h->strategy > PGAS_SCHED_LAST)
            abort();
        if (h->n_delays < 0 || h->n_delays > PGAS_SCHED_MAX_DELAYS ||
            (h->n_delays > 0 && h->strategy != PGAS_SCHED_DELAY))
            abort();
        if (h->n_calls < 0 || h->n_calls > PGAS_SCHED_CALLS)
            abort();
        if (memchr(h->program, '\0', sizeof h->program) == NULL ||
            memchr(h->args, '\0', sizeof h->args) == NULL)
            abort();
        uint64_t sum = 0; /* every record is there (ASan checks the reads) */
        for (uint64_t i = 0; i < 2 * n; i++)
            sum += log[i];
        (void)sum;
        free(log);
    } else if (strncmp(err, "fuzz", 4) != 0) {
        abort();
    }
    free(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    read_one(data, size);

    static const char key[] = "checksum: ";
    size_t body = size;
    for (size_t i = size; i >= sizeof key - 1; i--)
        if (memcmp(data + i - (sizeof key - 1), key, sizeof key - 1) == 0) {
            body = i - (sizeof key - 1);
            break;
        }
    uint64_t sum = 0xcbf29ce484222325ull; /* FNV-1a 64, as the writer */
    for (size_t i = 0; i < body; i++)
        sum = (sum ^ data[i]) * 0x100000001b3ull;
    char line[40];
    int ll = snprintf(line, sizeof line, "%s%016llx\n", key, (unsigned long long)sum);
    uint8_t *fixed = malloc(body + (size_t)ll);
    if (fixed == NULL)
        abort();
    memcpy(fixed, data, body);
    memcpy(fixed + body, line, (size_t)ll);
    read_one(fixed, body + (size_t)ll);
    free(fixed);
    return 0;
}
