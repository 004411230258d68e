/*
 * shmemu/internal/sizes.h: sizes and limits that pgas/src and emu/src share (not installed).
 */
#ifndef SHMEMU_INTERNAL_SIZES_H
#define SHMEMU_INTERNAL_SIZES_H

/* The page size that stack guard pages (emu/src/launch.c, block.c) and every PE's heap slice
 * (pgas/src/config.c) are rounded to: the base page of x86-64 and of most aarch64 Linux
 * kernels. A constant, not sysconf(_SC_PAGESIZE), so that layouts (and so schedules and
 * replays) are the same on every machine. On a kernel with larger pages the guard pages'
 * mprotect fails and is ignored: the stacks then simply have no guard. */
#define SHMEMU_PAGE_SIZE 4096

/* PEs in one job, at most (SHMEMU_NPES, shmemu_launch, a trace's npes): far more than
 * threads one host runs usefully; it keeps every per-PE table small. A plain literal, so
 * that messages can spell it with SHMEMU_STR. */
#define SHMEMU_MAX_PES 4096

#define SHMEMU_STR_(x) #x
#define SHMEMU_STR(x) SHMEMU_STR_(x)

#endif
