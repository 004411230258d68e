/*
 * shmemu/internal/assert.h: invariant checks of pgas/src and emu/src (not installed).
 *
 *   PGAS_ASSERT(cond)   in pgas/src: the runtime's own invariants (heap blocks, ...)
 *   EMU_ASSERT(cond)    in emu/src: the emulator's own invariants (SM slots, ...)
 *
 * They check what a bug in shmemu itself would break, never a user's misuse: misuse gets a
 * message that names the call and the fix (pgas_fail, emu_fail). A failed check prints
 *     shmemu: PE 2: assertion failed: a->n_blocks > 0 (pgas/src/heap.c:123, check_blocks)
 *     shmemu: <hint>
 * to stderr and aborts (SIGABRT: a core dump, and the debugger stops there).
 *
 * Which builds check: every build, unless compiled with -DSHMEMU_NDEBUG. No make target
 * defines it: the checks sit on slow paths (allocation, slot release), and the test suite
 * and `make run` run the same checked code. With SHMEMU_NDEBUG the condition is still
 * compiled (inside sizeof, never evaluated), so it cannot rot.
 */
#ifndef SHMEMU_INTERNAL_ASSERT_H
#define SHMEMU_INTERNAL_ASSERT_H

/* Prints the report above (PE from shmemu_my_pe: -1 on a thread that is no PE) and aborts. */
__attribute__((noreturn)) void shmemu_assert_fail(const char *layer, const char *expr,
                                                  const char *file, int line,
                                                  const char *func);

#ifdef SHMEMU_NDEBUG
#define SHMEMU_ASSERT_(layer, cond) ((void)sizeof(!(cond)))
#else
#define SHMEMU_ASSERT_(layer, cond)                                                           \
    ((cond) ? (void)0 : shmemu_assert_fail(layer, #cond, __FILE__, __LINE__, __func__))
#endif

#define PGAS_ASSERT(cond) SHMEMU_ASSERT_("pgas", cond)
#define EMU_ASSERT(cond) SHMEMU_ASSERT_("emu", cond)

#endif
