/*
 * cuda_check.c: the reports of cuda_check.h. Plain C with no CUDA or emulator call (the
 * caller passes the error's text), so the CUDA build links this object as it is.
 */
#include "cuda_check.h"

#include <stdio.h>
#include <stdlib.h>

#include "md_assert.h"

static void who(void)
{
    const int pe = md_assert_pe();
    if (pe >= 0)
        fprintf(stderr, "shmemu-md: PE %d: ", pe);
    else
        fprintf(stderr, "shmemu-md: ");
}

void md_cuda_fail(const char *call, const char *err_text, const char *file, int line)
{
    who();
    fprintf(stderr, "%s failed: %s (%s:%d)\n", call, err_text, file, line);
    fflush(NULL);
    exit(2);
}

void md_alloc_fail(bool sym, const char *name, size_t bytes, const char *err_text)
{
    who();
    if (sym) {
        const char *now = getenv("NVSHMEM_SYMMETRIC_SIZE");
        fprintf(stderr, "cannot allocate the symmetric buffer \"%s\" (%zu bytes): the "
                "symmetric heap is full; raise NVSHMEM_SYMMETRIC_SIZE (bytes per PE, suffix "
                "K, M or G; now %s), or give each PE fewer atoms (more --pes, fewer --cells)\n",
                name, bytes, now && *now ? now : "unset: the default");
    } else {
        fprintf(stderr, "cannot allocate the device buffer \"%s\" (%zu bytes): %s; give each "
                "PE fewer atoms (more --pes, fewer --cells) or free device memory\n",
                name, bytes, err_text ? err_text : "no memory");
    }
    fflush(NULL);
    exit(2);
}
