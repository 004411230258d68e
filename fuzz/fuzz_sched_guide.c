/*
 * fuzz_sched_guide.c: libFuzzer harness for the scheduler's guide file parser
 * (pgas_guide_parse in pgas/src/sched_trace.c, over a buffer: the file SHMEMU_SCHED_GUIDE
 * names, written by shmemu-explore's shrinker, one "from-serial decision-index target-serial"
 * line per kept preemption; docs/sched.md).
 *
 *   srcs=$(ls pgas/src/[a-z]*.c | grep -v /main_wrap.c)
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=c17 \
 *       -ffp-contract=off -D_GNU_SOURCE -pthread -Ipgas/include -Iemu/include \
 *       fuzz/fuzz_sched_guide.c $srcs -lm -o fuzz_sched_guide
 *   mkdir -p work && ./fuzz_sched_guide -max_len=1024 work fuzz/corpus/fuzz_sched_guide
 *
 * Every input is accepted, or refused with a message that names the input. An accepted
 * guide holds the steps it reports (ASan checks every read), at most one per 6 bytes of
 * input ("0 0 0\n" is the shortest step).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../pgas/src/sched.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pgas_guide_step *steps = NULL;
    size_t n = 0;
    char err[512];
    err[0] = '\0';
    if (pgas_guide_parse("fuzz", (const char *)data, size, &steps, &n, err, sizeof err) == 0) {
        if (n > size / 6 + 1 || (n > 0 && steps == NULL))
            abort();
        uint64_t sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += steps[i].from + steps[i].yield + steps[i].target;
        (void)sum;
    } else if (strncmp(err, "fuzz", 4) != 0) {
        abort();
    }
    free(steps);
    return 0;
}
