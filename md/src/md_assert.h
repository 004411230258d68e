/*
 * md_assert.h: invariant checks of the MD app (md/src).
 *
 *   MD_ASSERT(cond)             an invariant of md's own data (pair list, pulse table,
 *                               signal words at a quiet point); a bug in shmemu-md if false
 *   MD_ASSERT_HINT(cond, hint)  the same, with a one-line hint of what probably broke
 *
 * A failed check prints, to stderr,
 *     shmemu: PE 1: assertion failed: pl->j[q] > e->i (md/src/pairlist.c:300, md_pairlist_check)
 *     shmemu: <hint>
 * and aborts (SIGABRT). The PE is the one md_assert_set_pe gave this thread (par.c sets it
 * on each PE thread); a thread that is no PE's (the serial driver, set-up) prints none.
 *
 * Which builds check: every build, unless compiled with -DSHMEMU_NDEBUG (the switch of
 * pgas's and emu's checks too, shmemu/internal/assert.h). No make target defines it: the
 * checks run at pair searches and set-up, never per pair or per step, and cost nothing
 * measurable (--cells 10 --pes 4 --steps 200 --nstlist 10, 3 runs each on 2 shared cores:
 * 1.20-1.37 s checked, 1.29-1.39 s with SHMEMU_NDEBUG). With SHMEMU_NDEBUG the condition is
 * still compiled inside sizeof, never evaluated, so it cannot rot.
 *
 * CUDA build (nvcc): host code checks as above. Device code (__CUDA_ARCH__: nvcc's device
 * pass, which also parses host functions) prints the expression and the hint with printf
 * and stops the kernel with __trap(), which fails the launch
 * (cudaErrorLaunchFailure at the next MD_CUDA check) as assert() does on a GPU.
 */
#ifndef MD_ASSERT_H
#define MD_ASSERT_H

#ifdef __cplusplus
extern "C" {
#endif

/* This thread's PE for the reports (-1: none, the default). */
void md_assert_set_pe(int pe);
int md_assert_pe(void);

__attribute__((noreturn)) void md_assert_fail(const char *expr, const char *file, int line,
                                              const char *func, const char *hint);

#ifdef __cplusplus
}
#endif

#define MD_ASSERT_DEFAULT_HINT                                                                \
    "an invariant of shmemu-md broke: a bug in shmemu-md; report it with the command line"

#if defined(SHMEMU_NDEBUG)
#define MD_ASSERT_HINT(cond, hint) ((void)sizeof(!(cond)), (void)sizeof(hint))
#elif defined(__CUDA_ARCH__)
#define MD_ASSERT_HINT(cond, hint)                                                            \
    ((cond) ? (void)0                                                                         \
            : (printf("shmemu: device: assertion failed: %s (%s:%d)\nshmemu: %s\n", #cond,    \
                      __FILE__, __LINE__, hint),                                              \
               __trap()))
#else
#define MD_ASSERT_HINT(cond, hint)                                                            \
    ((cond) ? (void)0 : md_assert_fail(#cond, __FILE__, __LINE__, __func__, hint))
#endif

#define MD_ASSERT(cond) MD_ASSERT_HINT(cond, MD_ASSERT_DEFAULT_HINT)

#endif
