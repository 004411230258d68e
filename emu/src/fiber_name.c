/*
 * fiber_name.c: names each CUDA thread's fiber for ThreadSanitizer.
 *
 * Under TSan every fiber of a block is a TSan thread of its own (fiber.c), so a race report
 * can tell the threads of one block apart. Named "PE p kernel K block b thread t", the
 * report says which (bin/shmemu-check prints the name; pgas/src/thread_name.c names the
 * pthreads). helgrind and DRD see the block's pthread only: no name per fiber there.
 */
#include <stdio.h>

#include "internal.h"

#if defined(__SANITIZE_THREAD__)
#define EMU_FIBER_NAMES 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define EMU_FIBER_NAMES 1
#endif
#endif

#ifdef EMU_FIBER_NAMES
void __tsan_set_fiber_name(void *fiber, const char *name);
#endif

void emu_fiber_name(emu_fiber *f, int pe, const char *block_label, int thread)
{
#ifdef EMU_FIBER_NAMES
    char name[96];
    snprintf(name, sizeof name, "PE %d %s thread %d", pe, block_label, thread);
    if (f->tsan_fiber != NULL)
        __tsan_set_fiber_name(f->tsan_fiber, name); /* TSan keeps a copy */
#else
    (void)f;
    (void)pe;
    (void)block_label;
    (void)thread;
#endif
}
