/*
 * shmemu/internal/futex.h: the one futex wrapper of pgas/src and emu/src (not installed).
 *
 * Waits and hand-offs in shmemu sleep on a 32-bit word with raw futex calls, not on a mutex
 * or condition variable: helgrind, DRD and TSan see no happens-before edge in a raw futex
 * call, so a sleep never hides a race in the program being checked (docs/design.md D4). The
 * callers (park.c, sched.c, emu's streams) give the ordering themselves with atomics.
 *
 * Private futexes while every PE is a thread of one process; process-shared ones during a
 * process job (job_memory.c clears shmemu_futex_private_flag before the job forks), whose PEs
 * wait and wake on words in shared memory. A wait returns on a wake, on a timeout, on a
 * signal, or at once when *word != expected; callers always re-check the word.
 */
#ifndef SHMEMU_INTERNAL_FUTEX_H
#define SHMEMU_INTERNAL_FUTEX_H

#include <limits.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* FUTEX_PRIVATE_FLAG, or 0 during a process job (job_memory.c). */
extern _Atomic int shmemu_futex_private_flag;

static inline int shmemu_futex_op(int op)
{
    return op | atomic_load_explicit(&shmemu_futex_private_flag, memory_order_relaxed);
}

/* Sleeps while *word == expected, for at most ns nanoseconds (0: no limit). */
static inline void shmemu_futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000ull),
                          .tv_nsec = (long)(ns % 1000000000ull)};
    syscall(SYS_futex, (uint32_t *)word, shmemu_futex_op(FUTEX_WAIT), expected, ns ? &ts : NULL,
            NULL, 0);
}

/* Wakes every thread sleeping on word. */
static inline void shmemu_futex_wake_all(_Atomic uint32_t *word)
{
    syscall(SYS_futex, (uint32_t *)word, shmemu_futex_op(FUTEX_WAKE), INT_MAX, NULL, NULL, 0);
}

#endif
