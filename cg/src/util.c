/*
 * util.c: error formatting and allocation that cannot return NULL (util.h).
 */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

int cg_fail(cg_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void out_of_memory(size_t bytes)
{
    fprintf(stderr, "shmemu-cg: out of memory allocating %zu bytes; use a smaller matrix\n",
            bytes);
    exit(2);
}

void *cg_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        out_of_memory(bytes);
    return p;
}

void *cg_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory(n * size);
    return p;
}
