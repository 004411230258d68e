/*
 * canary.c: a harness with planted bugs. `make fuzz-replay` runs it first, on inputs that
 * trip each bug, and fails unless every one is caught: a replay built without a sanitizer,
 * or run with leak detection off, must not pass silently.
 *
 *   "overflow..."  writes one byte past a heap block (ASan)
 *   "leak..."      loses a heap block (LeakSanitizer)
 *   "ub..."        overflows a signed int (UBSan, made fatal by -fno-sanitize-recover)
 *   anything else  does nothing wrong
 */
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

char *volatile canary_sink; /* keeps the compiler from removing the planted allocations */
volatile int canary_int = INT_MAX;

static int starts(const uint8_t *data, size_t size, const char *word)
{
    size_t n = strlen(word);
    return size >= n && memcmp(data, word, n) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (starts(data, size, "overflow")) {
        char *p = malloc(size);
        memcpy(p, data, size);
        canary_sink = p;
        canary_sink[size] = 0;
        free(p);
    } else if (starts(data, size, "leak")) {
        canary_sink = malloc(size);
        canary_sink = NULL;
    } else if (starts(data, size, "ub")) {
        int x = canary_int;
        canary_int = x + (int)size;
    }
    return 0;
}
