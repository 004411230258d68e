/*
 * wrap_gomp.c: libgomp's entry points for parallel and teams regions, as GCC's -fopenmp
 * compiles a program's `#pragma omp parallel` (and its combined forms), linked into the
 * program by bin/shmemu-cc with -Wl,--wrap=GOMP_... (libshmemu_app.a;
 * shmemu/internal/app_thread.h). libgomp creates its worker threads itself, so each wrapper
 * hands libgomp a box (the region's function and data, and the starting PE) and
 * shmemu_app_region_run as the function: the workers join the PE for the region. A file of
 * its own, pulled in only by programs compiled with -fopenmp (its __real_ names are
 * libgomp's). The signatures are libgomp's (GCC 9 and later, libgomp_g.h). Clang's OpenMP
 * runtime (__kmpc_fork_call) is not wrapped.
 */
#include "shmemu/internal/app_thread.h"

typedef void (*region_fn)(void *);

#define P_PARALLEL , unsigned n_threads, unsigned flags
#define A_PARALLEL , n_threads, flags
#define P_LOOP , unsigned n_threads, long start, long end, long incr, long chunk, unsigned flags
#define A_LOOP , n_threads, start, end, incr, chunk, flags
#define P_LOOP_RT , unsigned n_threads, long start, long end, long incr, unsigned flags
#define A_LOOP_RT , n_threads, start, end, incr, flags
#define P_SECTIONS , unsigned n_threads, unsigned count, unsigned flags
#define A_SECTIONS , n_threads, count, flags
#define P_TEAMS , unsigned n_teams, unsigned thread_limit, unsigned flags
#define A_TEAMS , n_teams, thread_limit, flags

/* Declares __real_NAME and __wrap_NAME, taking fn, data and then PARAMS, and defines the
 * wrapper, which calls the real one with ARGS after fn and data. */
#define GOMP_WRAP_VOID(name, params, args)                                                  \
    void __real_##name(region_fn fn, void *data params);                                    \
    void __wrap_##name(region_fn fn, void *data params);                                    \
    void __wrap_##name(region_fn fn, void *data params)                                     \
    {                                                                                       \
        void *box = shmemu_app_region_begin(fn, data);                                      \
        if (box == 0) {                                                                     \
            __real_##name(fn, data args);                                                   \
            return;                                                                         \
        }                                                                                   \
        __real_##name(shmemu_app_region_run, box args);                                     \
        shmemu_app_region_end(box);                                                         \
    }

GOMP_WRAP_VOID(GOMP_parallel, P_PARALLEL, A_PARALLEL)
GOMP_WRAP_VOID(GOMP_parallel_sections, P_SECTIONS, A_SECTIONS)
GOMP_WRAP_VOID(GOMP_parallel_loop_static, P_LOOP, A_LOOP)
GOMP_WRAP_VOID(GOMP_parallel_loop_dynamic, P_LOOP, A_LOOP)
GOMP_WRAP_VOID(GOMP_parallel_loop_guided, P_LOOP, A_LOOP)
GOMP_WRAP_VOID(GOMP_parallel_loop_nonmonotonic_dynamic, P_LOOP, A_LOOP)
GOMP_WRAP_VOID(GOMP_parallel_loop_nonmonotonic_guided, P_LOOP, A_LOOP)
GOMP_WRAP_VOID(GOMP_parallel_loop_runtime, P_LOOP_RT, A_LOOP_RT)
GOMP_WRAP_VOID(GOMP_parallel_loop_nonmonotonic_runtime, P_LOOP_RT, A_LOOP_RT)
GOMP_WRAP_VOID(GOMP_parallel_loop_maybe_nonmonotonic_runtime, P_LOOP_RT, A_LOOP_RT)
GOMP_WRAP_VOID(GOMP_teams_reg, P_TEAMS, A_TEAMS)

/* Returns the team's size: the one entry point whose result the compiled code uses. */
unsigned __real_GOMP_parallel_reductions(region_fn fn, void *data P_PARALLEL);
unsigned __wrap_GOMP_parallel_reductions(region_fn fn, void *data P_PARALLEL);
unsigned __wrap_GOMP_parallel_reductions(region_fn fn, void *data P_PARALLEL)
{
    void *box = shmemu_app_region_begin(fn, data);
    if (box == 0)
        return __real_GOMP_parallel_reductions(fn, data A_PARALLEL);
    unsigned n = __real_GOMP_parallel_reductions(shmemu_app_region_run, box A_PARALLEL);
    shmemu_app_region_end(box);
    return n;
}
