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
#include <string.h>
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

/* Lines of /proc/self/maps (the process's memory mappings), or -1. */
static long count_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL)
        return -1;
    long n = 0;
    char buf[65536];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        for (size_t i = 0; i < got; i++)
            n += buf[i] == '\n';
    fclose(f);
    return n;
}

static long max_mappings(void)
{
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    long m = -1;
    if (f != NULL) {
        if (fscanf(f, "%ld", &m) != 1)
            m = -1;
        fclose(f);
    }
    return m;
}

_Noreturn void emu_fail_mapping(const char *what, size_t bytes, int err)
{
    const long n = count_mappings(), most = max_mappings();
    if (n >= 0 && most > 0 && n + EMU_MAPPINGS_MARGIN >= most)
        fprintf(stderr,
                "shmemu: cannot map %s (%zu bytes): %s: the process holds %ld of the %ld memory "
                "mappings Linux allows it (vm.max_map_count), and every fiber stack takes 2 (its "
                "guard page and itself); run fewer blocks at once (fewer PEs, blocks or threads "
                "per block) or raise the limit: sysctl -w vm.max_map_count=262144\n",
                what, bytes, strerror(err), n, most);
    else
        fprintf(stderr,
                "shmemu: cannot map %s (%zu bytes): %s; use fewer threads per block or a "
                "smaller SHMEMU_EMU_STACK\n",
                what, bytes, strerror(err));
    exit(2);
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
    case cudaErrorNotSupported: return "operation not supported";
    case cudaErrorIllegalState: return "the operation cannot be performed in the present state";
    case cudaErrorStreamCaptureUnsupported:
        return "operation not permitted when stream is capturing";
    case cudaErrorStreamCaptureInvalidated:
        return "operation failed due to a previous error during capture";
    case cudaErrorStreamCaptureMerge:
        return "operation would result in a merge of separate capture sequences";
    case cudaErrorStreamCaptureUnmatched:
        return "capture was not ended in the same stream as it began";
    case cudaErrorStreamCaptureUnjoined: return "capturing stream has unjoined work";
    case cudaErrorStreamCaptureIsolation:
        return "dependency created on uncaptured work in another stream";
    case cudaErrorStreamCaptureImplicit:
        return "operation would make the legacy stream depend on a capturing blocking stream";
    case cudaErrorCapturedEvent:
        return "operation not permitted on an event last recorded in a capturing stream";
    case cudaErrorStreamCaptureWrongThread:
        return "attempt to terminate a thread-local capture sequence from another thread";
    case cudaErrorGraphExecUpdateFailure:
        return "the graph update was not performed because it included changes which violated "
               "constraints specific to instantiated graph update";
    }
    return "unknown error";
}
