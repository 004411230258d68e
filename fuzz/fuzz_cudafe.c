/*
 * fuzz_cudafe.c: libFuzzer harness for shmemu-cudafe, the source rewriter of shmemu-nvcc
 * (cudafe_rewrite in cuda/tools/cudafe_rw.c, over the tokenizer cuda/tools/cudafe_lex.c).
 * The input is a translation unit as g++ -E writes it (line markers included).
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=c17 \
 *       -D_GNU_SOURCE fuzz/fuzz_cudafe.c cuda/tools/cudafe_rw.c cuda/tools/cudafe_lex.c \
 *       -o fuzz_cudafe
 *   mkdir -p work && ./fuzz_cudafe -max_len=4096 -dict=fuzz/fuzz_cudafe.dict work fuzz/corpus/fuzz_cudafe
 *
 * Every input is rewritten or refused with a message "FILE:LINE: shmemu-cudafe: what; what
 * to do" (a device-only NVSHMEM call in host code: nvcc's message, then such a line). A
 * rewritten one must be
 *   - a fixed point: rewriting the output again succeeds and changes nothing (no launch,
 *     __global__, __shared__, __noinline__, __device__ or __host__ is left to rewrite, and no
 *     rewrite wrote text that lexes differently the second time); the second rewrite does not
 *     check device-only calls, which reads the qualifiers the first removed;
 *   - the input itself when it holds none of <<<, __global__, __shared__, __noinline__,
 *     __device__, __host__;
 *   - as many lines long as the input when the input has no directive (no '#' at all):
 *     every rewrite keeps its lines.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/tools/cudafe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count(const char *s, size_t n, char c)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += s[i] == c;
    return k;
}

static int contains(const char *s, size_t n, const char *word)
{
    size_t w = strlen(word);
    for (size_t i = 0; i + w <= n; i++)
        if (memcmp(s + i, word, w) == 0)
            return 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    char *out = NULL, *again = NULL;
    size_t out_len, again_len;
    char err[8192]; /* a line marker's name, twice in a device-only call's message */
    if (cudafe_rewrite(in, size, "fuzz.cu", CUDAFE_CHECK_DEVICE_ONLY, &out, &out_len, err,
                       sizeof err) != 0) {
        /* refused: a message naming a place and the rewriter (or nvcc's error for a
         * device-only call, whose second line err may not have room for), no output */
        if (out != NULL || (strstr(err, ": shmemu-cudafe: ") == NULL &&
                            strstr(err, ": error: calling a __device__ function(") == NULL))
            abort();
        return 0;
    }
    if (out == NULL || out[out_len] != '\0')
        abort();
    if (!contains(in, size, "<<<") && !contains(in, size, "__global__") &&
        !contains(in, size, "__shared__") && !contains(in, size, "__noinline__") &&
        !contains(in, size, "__device__") && !contains(in, size, "__host__") &&
        (out_len != size || (size > 0 && memcmp(out, in, size) != 0)))
        abort();
    if (count(in, size, '#') == 0 && count(out, out_len, '\n') != count(in, size, '\n'))
        abort();
    if (cudafe_rewrite(out, out_len, "fuzz.cu", 0, &again, &again_len, err, sizeof err) != 0 ||
        again_len != out_len || (out_len > 0 && memcmp(again, out, out_len) != 0))
        abort();
    free(out);
    free(again);
    return 0;
}
