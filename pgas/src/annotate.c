/*
 * annotate.c: happens-before annotations for the race checkers (docs/design.md D4).
 *
 * Helgrind and DRD do not understand C11 atomics: they learn ordering from these client
 * requests (DRD accepts helgrind's). Outside valgrind each request is a few register moves.
 * ThreadSanitizer learns it from __tsan_release/__tsan_acquire (and from real acquire and
 * release atomics). Only operations that promise ordering call these: a relaxed operation
 * must leave no edge, or the checkers could not see a missing release.
 */
#include <stdint.h>
#include <valgrind/helgrind.h>

#include "internal.h"
#include "shmemu/internal/checkers.h"
#include "shmemu/internal/pgas_emu.h"

#ifdef SHMEMU_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#endif

void pgas_hb_before_checkers(const volatile void *addr)
{
    void *a = (void *)(uintptr_t)addr;
    ANNOTATE_HAPPENS_BEFORE(a);
#ifdef SHMEMU_TSAN
    __tsan_release(a);
#endif
    (void)a;
}

void (*_Atomic pgas_release_hook)(bool gpu_scope);

void pgas_hb_before(const volatile void *addr)
{
    /* weak-memory mode: a release publishes the releasing thread's buffered stores first */
    void (*hook)(bool) = atomic_load_explicit(&pgas_release_hook, memory_order_relaxed);
    if (__builtin_expect(hook != NULL, 0))
        hook(false);
    pgas_hb_before_checkers(addr);
}

void pgas_hb_before_gpu(const volatile void *tag)
{
    void (*hook)(bool) = atomic_load_explicit(&pgas_release_hook, memory_order_relaxed);
    if (__builtin_expect(hook != NULL, 0))
        hook(true);
    pgas_hb_before_checkers(tag);
}

#ifdef SHMEMU_TSAN
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
#endif

void pgas_checker_unchecked_reads(bool begin)
{
#ifdef SHMEMU_TSAN
    if (begin)
        AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    else
        AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
#endif
    (void)begin;
}

void pgas_checker_forget(const volatile void *addr, size_t bytes)
{
    VALGRIND_HG_DISABLE_CHECKING((void *)(uintptr_t)addr, bytes);
    (void)addr;
    (void)bytes;
}

void (*_Atomic pgas_acquire_hook)(void);

void pgas_hb_after_gpu(const volatile void *tag) { pgas_hb_after(tag); }

void pgas_hb_after(const volatile void *addr)
{
    /* weak-memory mode: what its PE published at gpu scope so far is now observed */
    void (*hook)(void) = atomic_load_explicit(&pgas_acquire_hook, memory_order_relaxed);
    if (__builtin_expect(hook != NULL, 0))
        hook();
    void *a = (void *)(uintptr_t)addr;
    ANNOTATE_HAPPENS_AFTER(a);
#ifdef SHMEMU_TSAN
    __tsan_acquire(a);
#endif
    (void)a;
}
