/*
 * checker_ignore.c: tells DRD to skip the runtime's own words.
 *
 * Helgrind treats an atomic read-modify-write as a read, so the runtime's words (written
 * only by RMWs, see internal.h) never race under it. DRD treats an RMW as a store and would
 * report every wake-up counter. Those words carry no user data and no ordering, so DRD is
 * told to ignore them. This file is apart from annotate.c because drd.h and helgrind.h
 * define the same ANNOTATE_ macros.
 */
#include <stddef.h>
#include <valgrind/drd.h>

#include "internal.h"

void pgas_checker_ignore(const volatile void *addr, size_t bytes)
{
    ANNOTATE_BENIGN_RACE_SIZED((void *)(uintptr_t)addr, bytes,
                               "shmemu runtime bookkeeping (atomics, no ordering)");
}
