/*
 * assert.c: the report of a failed PGAS_ASSERT or EMU_ASSERT (shmemu/internal/assert.h).
 * A failed invariant is a bug in shmemu, so the hint asks for a report, not a fix.
 */
#include <stdio.h>
#include <stdlib.h>

#include "shmemu/internal/assert.h"
#include "shmemu/pgas.h"

void shmemu_assert_fail(const char *layer, const char *expr, const char *file, int line,
                        const char *func)
{
    char report[2048]; /* one write: PEs failing together do not interleave */
    snprintf(report, sizeof report,
             "shmemu: PE %d: assertion failed: %s (%s:%d, %s)\n"
             "shmemu: an invariant of shmemu's %s layer broke: a bug in shmemu, not in the "
             "program; report it with the command line and the SHMEMU_* settings\n",
             shmemu_my_pe(), expr, file, line, func, layer);
    fputs(report, stderr);
    fflush(NULL);
    abort();
}
