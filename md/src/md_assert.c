/*
 * md_assert.c: the report of a failed MD_ASSERT (md_assert.h), and the thread's PE it
 * names. Plain C with no emulator call: the CUDA build links this object as it is.
 */
#include "md_assert.h"

#include <stdio.h>
#include <stdlib.h>

/* The per-thread "who am I" (docs/design.md: the one global state allowed). */
static _Thread_local int assert_pe = -1;

void md_assert_set_pe(int pe) { assert_pe = pe; }

int md_assert_pe(void) { return assert_pe; }

void md_assert_fail(const char *expr, const char *file, int line, const char *func,
                    const char *hint)
{
    char pe[32] = "";
    if (assert_pe >= 0)
        snprintf(pe, sizeof pe, "PE %d: ", assert_pe);
    char report[2048]; /* one write: PEs failing together do not interleave */
    snprintf(report, sizeof report, "shmemu: %sassertion failed: %s (%s:%d, %s)\nshmemu: %s\n",
             pe, expr, file, line, func, hint);
    fputs(report, stderr);
    fflush(NULL);
    abort();
}
