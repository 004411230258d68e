/*
 * device_only.c: strict mode for the calls NVSHMEM declares __device__ only.
 *
 * In NVSHMEM, put-with-signal, nvshmem_signal_fetch, nvshmem_signal_wait_until and the
 * wait_until/test families exist only in device code: a .cu program that calls them from host
 * code does not compile with nvcc. shmemu's C API keeps them callable from host threads (that
 * is its CPU API), so a C program may use them freely; a strict mode flags them instead. The
 * check is made when the call runs: on a PE's host thread (pgas_thread.host), not on a
 * stream's thread (which runs *_on_stream work for the device) nor in a kernel. It is on by
 * default for programs built by
 * shmemu-nvcc (cuda/include/cuda_runtime.h sets the default), off for C programs, and
 * SHMEMU_STRICT_DEVICE overrides both. A PE that called shmem_init speaks OpenSHMEM, where
 * these calls are host calls: it is never flagged.
 *
 * In a .cu program the rewriter of shmemu-nvcc (cuda/tools/cudafe_rw.c) already refuses, at
 * compile time, a call of one of these names written in host code; this check stays for what
 * it cannot see (C and C++ programs, calls through function pointers, code in headers of
 * shmemu's or the system's). Both read the names from device_only_names.h: every call that
 * reaches this check must be named there (asserted).
 */
#include <assert.h>
#include <stdatomic.h>
#include <string.h>

#include "device_only_names.h"
#include "internal.h"

/* -1: unset (off); set once, before PEs start, by the CUDA layer's static initializer. */
static _Atomic int strict_default = -1;

int shmemu_strict_device_default(int on)
{
    if (on == 0 || on == 1)
        atomic_store_explicit(&strict_default, on, memory_order_relaxed);
    return atomic_load_explicit(&strict_default, memory_order_relaxed) == 1;
}

void pgas_check_device_only(const pgas_thread *t, const char *call)
{
    if (!t->host || !t->world->config.strict_device)
        return;
    if (atomic_load_explicit(&t->world->pes[t->pe].openshmem_names, memory_order_relaxed))
        return;
    /* Only on the way to the error, not on every kernel's call: the list the rewriter refuses
     * at compile time names this call too (check-cudafe compares the two lists in full). */
    assert(shmemu_device_only_name(call, strlen(call)));
    pgas_fail(call, "a device-only NVSHMEM call (NVSHMEM declares it __device__; nvcc does not "
                    "compile it in host code) was made from this PE's host thread; call it in "
                    "a kernel, or use a host form (an *_on_stream call, nvshmem_putmem + "
                    "nvshmemx_signal_op); SHMEMU_STRICT_DEVICE=0 allows it");
}
