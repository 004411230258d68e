/*
 * cuda_check.c: the reports of cuda_check.h. Plain C with no CUDA or emulator call (the
 * caller passes the error's text), so the CUDA build links this object as it is. Each
 * report is one write, so that PEs failing together do not interleave their lines.
 */
#include "cuda_check.h"

#include <stdio.h>
#include <stdlib.h>

#include "md_assert.h"

__attribute__((noreturn)) static void report(const char *what)
{
    char line[1024];
    const int pe = md_assert_pe();
    if (pe >= 0)
        snprintf(line, sizeof line, "shmemu-md: PE %d: %s\n", pe, what);
    else
        snprintf(line, sizeof line, "shmemu-md: %s\n", what);
    fputs(line, stderr);
    fflush(NULL);
    exit(2);
}

void md_cuda_fail(const char *call, const char *err_text, const char *file, int line)
{
    char what[768];
    snprintf(what, sizeof what, "%s failed: %s (%s:%d)", call, err_text, file, line);
    report(what);
}

/* The buffers are sized by the whole system's atom count (par_int.h: cap), whatever the
 * PE count, so the remedy is a larger heap or a smaller system, not more PEs. */
void md_alloc_fail(bool sym, const char *name, size_t bytes, const char *err_text)
{
    char what[768];
    if (sym) {
        const char *now = getenv("NVSHMEM_SYMMETRIC_SIZE");
        snprintf(what, sizeof what, "cannot allocate the symmetric buffer \"%s\" (%zu "
                 "bytes): the symmetric heap is full; raise NVSHMEM_SYMMETRIC_SIZE (bytes "
                 "per PE, suffix K, M or G; now %s) or run a smaller system", name, bytes,
                 now && *now ? now : "unset: the default");
    } else {
        snprintf(what, sizeof what, "cannot allocate the device buffer \"%s\" (%zu bytes): "
                 "%s; run a smaller system or free device memory", name, bytes,
                 err_text ? err_text : "no memory");
    }
    report(what);
}
