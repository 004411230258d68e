/*
 * error.c: the emulator's error messages. Every message names the PE, the kernel, the block
 * and (for a thread's error) the thread, then what is wrong and what to do:
 *     shmemu: PE 0: kernel pack block (3,0,0) thread (17,0,0): <problem>; <fix>
 * Only the first fatal error of the process prints; the abort that follows ends every PE.
 * Also CUDA's error codes: each host thread's last error (emu_set_error, cudaGetLastError)
 * and their strings.
 */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <valgrind/drd.h>

#include "internal.h"

static _Atomic int emu_failing;
static _Thread_local cudaError_t last_error; /* per host thread, as in CUDA */

void emu_describe_thread(const emu_thread *t, char *out, size_t len)
{
    const emu_block *b = t->block;
    snprintf(out, len, "kernel %s block (%u,%u,%u) thread (%u,%u,%u)",
             b->launch->kernel->name, b->idx.x, b->idx.y, b->idx.z, t->view.thread_idx.x,
             t->view.thread_idx.y, t->view.thread_idx.z);
}

_Noreturn static void fail_with(const char *who, int pe, const char *fmt, va_list ap)
{
    if (atomic_exchange(&emu_failing, 1) != 0) {
        for (;;)
            pause();
    }
    char message[2048];
    vsnprintf(message, sizeof message, fmt, ap);
    fprintf(stderr, "shmemu: PE %d: %s: %s\n", pe, who, message);
    fflush(NULL);
    abort();
}

_Noreturn void emu_fail(const emu_thread *t, const char *fmt, ...)
{
    char who[160];
    emu_describe_thread(t, who, sizeof who);
    va_list ap;
    va_start(ap, fmt);
    fail_with(who, shmemu_my_pe(), fmt, ap);
}

_Noreturn void emu_fail_block(const emu_block *b, const char *fmt, ...)
{
    char who[160];
    snprintf(who, sizeof who, "kernel %s block (%u,%u,%u)", b->launch->kernel->name, b->idx.x,
             b->idx.y, b->idx.z);
    va_list ap;
    va_start(ap, fmt);
    fail_with(who, shmemu_my_pe(), fmt, ap);
}

void emu_complain(const char *call, const char *fmt, ...)
{
    char message[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    fprintf(stderr, "shmemu: PE %d: %s: %s\n", shmemu_my_pe(), call, message);
}

/* drd.h and helgrind.h define the same ANNOTATE_ macros, so this lives apart from the
 * files that annotate happens-before edges. */
void emu_checker_ignore(const volatile void *addr, size_t bytes)
{
    ANNOTATE_BENIGN_RACE_SIZED((void *)(uintptr_t)addr, bytes,
                               "shmemu emulator bookkeeping (atomics, no ordering)");
}

/* ---- CUDA's error codes ------------------------------------------------------------------ */

cudaError_t emu_set_error(cudaError_t e)
{
    last_error = e;
    return e;
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }

const char *cudaGetErrorString(cudaError_t error)
{
    switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
    }
    return "unknown error";
}
