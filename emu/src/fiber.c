/*
 * fiber.c: the threads of a block as ucontext fibers of the block's pthread.
 *
 * Each emulated thread gets its own stack; the block's scheduler runs on the pthread's own
 * stack. Switching tells every checker about the stacks (docs/design.md D4):
 *   - valgrind: VALGRIND_STACK_REGISTER on each fiber stack, so memcheck, helgrind and DRD
 *     do not mistake a switch for a wild stack-pointer jump; the stacks are fresh mappings,
 *     marked clean for helgrind (VALGRIND_HG_CLEAN_MEMORY) so no history carries over;
 *   - ThreadSanitizer: __tsan_create_fiber / __tsan_switch_to_fiber. A switch is a release
 *     and an acquire, so TSan, like helgrind, sees a block's threads as one ordered thread.
 *     The edge goes through the emu_fiber we switch to (calloc'd with its block, so TSan
 *     forgets its clock when the block is freed), not through the switch's own flag 0: that
 *     synchronizes on the address of TSan's fiber object, which TSan recycles for the next
 *     block's fibers, on any PE, with the old clock still attached. A block started after
 *     another PE's block ended would then inherit that block's accesses as happens-before,
 *     and hide a kernel's read racing with that PE's later put
 *     (tests/racy/fiber_reuse_race.c);
 *   - AddressSanitizer: __sanitizer_start_switch_fiber / __sanitizer_finish_switch_fiber,
 *     so its fake stacks and stack bounds follow the switch.
 *
 * On x86-64 the switch itself is a few instructions (emu_ctx_swap_: callee-saved registers,
 * MXCSR and the x87 control word, then the stack pointer): glibc's swapcontext makes two
 * signal-mask system calls per switch, which made a __syncthreads of 256 threads cost
 * half a millisecond. Elsewhere, or with -DEMU_USE_UCONTEXT, fibers are ucontexts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/helgrind.h>
#include <valgrind/valgrind.h>

#include "internal.h"
#include "shmemu/internal/checkers.h"

#if defined(__x86_64__) && !defined(EMU_USE_UCONTEXT)
#define EMU_FAST_SWITCH 1
/* Saves the caller's callee-saved state on its stack, stores its stack pointer in *save,
 * and continues on the stack `load` (as saved by an earlier call, or as built by
 * emu_fiber_make). */
void emu_ctx_swap_(void **save, void *load);
__asm__(".text\n"
        ".globl emu_ctx_swap_\n"
        ".hidden emu_ctx_swap_\n"
        ".type emu_ctx_swap_,@function\n"
        "emu_ctx_swap_:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    subq $16, %rsp\n"
        "    stmxcsr 8(%rsp)\n"
        "    fnstcw (%rsp)\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    fldcw (%rsp)\n"
        "    ldmxcsr 8(%rsp)\n"
        "    addq $16, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size emu_ctx_swap_, .-emu_ctx_swap_\n");
#endif

#ifdef SHMEMU_TSAN
void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
enum { EMU_TSAN_SWITCH_NO_SYNC = 1 }; /* __tsan_switch_to_fiber_no_sync */

/* Switches TSan to `to`, ordering it after everything the current fiber did (see above).
 * A macro, not a function: an instrumented function would enter on one fiber's shadow stack
 * and return on the other's, and TSan's shadow stacks would drift until they overflow. */
#define TSAN_SWITCH(to)                                                                     \
    do {                                                                                    \
        __tsan_release(to);                                                                 \
        __tsan_switch_to_fiber((to)->tsan_fiber, EMU_TSAN_SWITCH_NO_SYNC);                  \
        __tsan_acquire(to);                                                                 \
    } while (0)
#endif
#ifdef SHMEMU_ASAN
void __sanitizer_start_switch_fiber(void **fake_stack_save, const void *bottom, size_t size);
void __sanitizer_finish_switch_fiber(void *fake_stack_save, const void **bottom_old,
                                     size_t *size_old);
#endif

size_t emu_fiber_stack_size(void)
{
#if defined(SHMEMU_ASAN) || defined(SHMEMU_TSAN)
    size_t size = (size_t)256 << 10;
#else
    size_t size = (size_t)64 << 10;
#endif
    size = (size_t)shmemu_env_size("SHMEMU_EMU_STACK", 16384, (uint64_t)64 << 20, size);
    return (size + 4095) & ~(size_t)4095;
}

void emu_fiber_init_main(emu_fiber *self)
{
    memset(self, 0, sizeof *self);
    /* DRD takes the most recently registered stack as the thread's stack: register the
     * pthread's own stack last (after the fibers'), so that its bounds are right again. */
    pthread_attr_t own;
    if (pthread_getattr_np(pthread_self(), &own) == 0) {
        void *lo = NULL;
        size_t size = 0;
        pthread_attr_getstack(&own, &lo, &size);
        pthread_attr_destroy(&own);
        self->vg_stack_id = VALGRIND_STACK_REGISTER((char *)lo, (char *)lo + size - 1);
        self->asan_bottom = lo;
        self->asan_size = size;
    }
#ifdef SHMEMU_TSAN
    self->tsan_fiber = __tsan_get_current_fiber();
#endif
}

void emu_fiber_make(emu_fiber *f, char *stack, size_t stack_size, void (*entry)(void))
{
    memset(f, 0, sizeof *f);
    f->stack = stack;
    f->stack_size = stack_size;
    f->asan_bottom = stack;
    f->asan_size = stack_size;
    /* the end is the highest byte of the stack, not one past it */
    f->vg_stack_id = VALGRIND_STACK_REGISTER(stack, stack + stack_size - 1);
    VALGRIND_HG_CLEAN_MEMORY(stack, stack_size);
#ifdef EMU_FAST_SWITCH
    /* The first switch "returns" into entry with the stack aligned as after a call:
     * [control words][r15 r14 r13 r12 rbx rbp][entry][0 = entry's return address] */
    uintptr_t top = ((uintptr_t)stack + stack_size) & ~(uintptr_t)15;
    uint64_t *frame = (uint64_t *)(top - 80);
    uint32_t mxcsr = 0;
    uint16_t fpucw = 0;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fpucw));
    memset(frame, 0, 80);
    memcpy((char *)frame, &fpucw, sizeof fpucw);
    memcpy((char *)frame + 8, &mxcsr, sizeof mxcsr);
    frame[8] = (uint64_t)(uintptr_t)entry; /* top - 16 */
    frame[9] = 0;                          /* top - 8 */
    f->sp = frame;
#else
    if (getcontext(&f->ctx) != 0) {
        perror("shmemu: getcontext");
        abort();
    }
    f->ctx.uc_stack.ss_sp = stack;
    f->ctx.uc_stack.ss_size = stack_size;
    f->ctx.uc_link = NULL;
    makecontext(&f->ctx, entry, 0);
#endif
#ifdef SHMEMU_TSAN
    f->tsan_fiber = __tsan_create_fiber(0);
#endif
}

void emu_fiber_started(emu_fiber *self)
{
#ifdef SHMEMU_ASAN
    __sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
    (void)self;
}

void emu_fiber_switch(emu_fiber *from, emu_fiber *to)
{
#ifdef SHMEMU_ASAN
    __sanitizer_start_switch_fiber(&from->asan_fake_stack, to->asan_bottom, to->asan_size);
#endif
#ifdef SHMEMU_TSAN
    TSAN_SWITCH(to);
#endif
#ifdef EMU_FAST_SWITCH
    emu_ctx_swap_(&from->sp, to->sp);
#else
    swapcontext(&from->ctx, &to->ctx);
#endif
#ifdef SHMEMU_ASAN
    __sanitizer_finish_switch_fiber(from->asan_fake_stack, NULL, NULL);
#endif
}

_Noreturn void emu_fiber_exit(emu_fiber *from, emu_fiber *to)
{
#ifdef SHMEMU_ASAN
    __sanitizer_start_switch_fiber(NULL, to->asan_bottom, to->asan_size);
#endif
#ifdef SHMEMU_TSAN
    TSAN_SWITCH(to);
#endif
#ifdef EMU_FAST_SWITCH
    emu_ctx_swap_(&from->sp, to->sp);
#else
    setcontext(&to->ctx);
#endif
    (void)from;
    abort();
}

void emu_fiber_destroy(emu_fiber *f)
{
    if (f->stack != NULL)
        VALGRIND_STACK_DEREGISTER(f->vg_stack_id);
#ifdef SHMEMU_TSAN
    if (f->tsan_fiber != NULL)
        __tsan_destroy_fiber(f->tsan_fiber);
#endif
    f->tsan_fiber = NULL;
}

void emu_fiber_reassert_main(emu_fiber *self)
{
    if (self->asan_bottom == NULL)
        return;
    VALGRIND_STACK_DEREGISTER(self->vg_stack_id);
    self->vg_stack_id = VALGRIND_STACK_REGISTER((const char *)self->asan_bottom,
                                                (const char *)self->asan_bottom +
                                                    self->asan_size - 1);
}

void emu_fiber_destroy_main(emu_fiber *self) { VALGRIND_STACK_DEREGISTER(self->vg_stack_id); }
