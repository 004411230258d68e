/*
 * test_shmem_threads.c: application threads, thread levels and the environment variables of
 * OpenSHMEM 1.5 (docs/openshmem.md, "Threads" and "Environment variables"), at 1, 2, 3 and 8
 * PEs.
 *
 * A program built by bin/shmemu-cc reaches the runtime's thread entry points through the
 * --wrap'ed pthread_create, thrd_create and libgomp calls; tests/check-app-threads.sh runs
 * such programs (tests/threads/). This suite calls the same entry points directly
 * (shmemu/internal/app_thread.h), as the wrappers do, so that it runs in `make test` and
 * under helgrind and DRD with the other suites:
 *  - threads created on a PE see that PE in shmem_my_pe and put, get and use atomics as it;
 *    a thread created by such a thread belongs to the same PE; thrd_create's result and
 *    thrd_exit's come back through thrd_join;
 *  - an OpenMP region's workers (here plain pthreads that run the region as libgomp's would)
 *    belong to the PE for the region, and again for the next region;
 *  - a thread that calls SHMEM after its PE finalized, or after its PE's main returned, and
 *    an OpenMP worker that calls SHMEM under the deterministic scheduler, stop with a
 *    message; under the scheduler, pthread_create's and thrd_create's threads are scheduled
 *    and their joins do not deadlock;
 *  - every thread level is answered with SHMEM_THREAD_MULTIPLE (NVSHMEM's too), and an
 *    unknown level is refused;
 *  - SHMEM_INFO and SHMEM_VERSION print once per job; SHMEM_SYMMETRIC_SIZE sets the heap
 *    size, and contradicts NVSHMEM_SYMMETRIC_SIZE with a message; bad values are refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <threads.h>
#include <unistd.h>

#include "shmem.h"
#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmemu/internal/app_thread.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

#define NT 4 /* threads per PE */

/* ---- threads created with pthread_create and thrd_create ------------------------------- */

typedef struct app_arg {
    int me, id;
    long *slots;   /* NT + 1 symmetric slots, written by the left neighbour's threads */
    long *counter; /* symmetric; PE 0's counts one add per thread of every PE */
} app_arg;

static void *nested_body(void *p)
{
    app_arg *a = p;
    PE_CHECK_EQ_I64(shmem_my_pe(), a->me);
    shmem_long_p(&a->slots[NT], 1000L * a->me + NT, (a->me + 1) % shmem_n_pes());
    shmem_long_atomic_inc(a->counter, 0);
    shmem_quiet();
    pthread_exit(p); /* leaves its PE through the cleanup path */
}

static void *app_body(void *p)
{
    app_arg *a = p;
    int me = shmem_my_pe(), n = shmem_n_pes();
    PE_CHECK_EQ_I64(me, a->me);
    long v = 1000L * me + a->id;
    shmem_long_put(&a->slots[a->id], &v, 1, (me + 1) % n);
    shmem_long_atomic_add(a->counter, 1, 0);
    shmem_quiet();
    if (a->id == 0) {
        app_arg inner = {me, NT, a->slots, a->counter};
        pthread_t t;
        void *r = NULL;
        PE_CHECK_EQ_I64(shmemu_app_pthread_create(pthread_create, &t, NULL, nested_body, &inner),
                        0);
        shmemu_app_pthread_join(pthread_join, t, &r);
        PE_CHECK_EQ_PTR(r, &inner);
    }
    return p;
}

static int c11_body(void *p)
{
    app_arg *a = p;
    PE_CHECK_EQ_I64(shmem_my_pe(), a->me);
    int right = (a->me + 1) % shmem_n_pes();
    shmem_long_atomic_fetch_add(a->counter, 1, 0);
    shmem_long_p(&a->slots[a->id], 1000L * a->me + a->id, right);
    shmem_quiet();
    if (a->id % 2 == 1)
        thrd_exit(50 + a->id);
    return 50 + a->id;
}

/* After the writes: reads the right neighbour's slots back with shmem_long_get. */
static void *getter_body(void *p)
{
    app_arg *a = p;
    int n = shmem_n_pes();
    long got[NT] = {0};
    shmem_long_get(got, a->slots, NT, (a->me + 1) % n);
    for (int i = 0; i < NT; i++)
        PE_CHECK_EQ_I64(got[i], 1000L * a->me + i);
    return NULL;
}

static int body_app_threads(void *arg)
{
    bool c11 = arg != NULL;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *slots = shmem_calloc(NT + 1, sizeof *slots);
    long *counter = shmem_calloc(1, sizeof *counter);
    app_arg args[NT];
    pthread_t t[NT];
    for (int i = 0; i < NT; i++) {
        args[i] = (app_arg){me, i, slots, counter};
        if (c11)
            PE_CHECK_EQ_I64(shmemu_app_thrd_create(thrd_create, &t[i], c11_body, &args[i]),
                            thrd_success);
        else
            PE_CHECK_EQ_I64(shmemu_app_pthread_create(pthread_create, &t[i], NULL, app_body,
                                                      &args[i]),
                            0);
    }
    for (int i = 0; i < NT; i++) {
        if (c11) {
            int r = -1;
            shmemu_app_thrd_join(thrd_join, t[i], &r);
            PE_CHECK_EQ_I64(r, 50 + i);
        } else {
            void *r = NULL;
            shmemu_app_pthread_join(pthread_join, t[i], &r);
            PE_CHECK_EQ_PTR(r, &args[i]);
        }
    }
    shmem_barrier_all();
    int left = (me + n - 1) % n;
    int written = c11 ? NT : NT + 1;
    for (int i = 0; i < written; i++)
        PE_CHECK_EQ_I64(slots[i], 1000L * left + i);
    if (me == 0)
        PE_CHECK_EQ_I64(*counter, (long)n * written);
    app_arg get_arg = {me, 0, slots, counter};
    PE_CHECK_EQ_I64(shmemu_app_pthread_create(pthread_create, &t[0], NULL, getter_body, &get_arg),
                    0);
    shmemu_app_pthread_join(pthread_join, t[0], NULL);
    shmem_barrier_all();
    shmem_free(slots);
    shmem_free(counter);
    shmem_finalize();
    return 0;
}

static void test_pthread_create(void **state)
{
    (void)state;
    for (int i = 0; i < PE_COUNTS_N; i++) {
        run_pes(pe_counts[i], body_app_threads, NULL);
        pe_check_assert_clean("threads created with pthread_create");
    }
}

static void test_thrd_create(void **state)
{
    (void)state;
    for (int i = 0; i < PE_COUNTS_N; i++) {
        run_pes(pe_counts[i], body_app_threads, "c11");
        pe_check_assert_clean("threads created with thrd_create");
    }
}

/* ---- OpenMP regions: workers created outside the program ------------------------------- */

#define REGIONS 3
#define WORKERS 2

typedef struct region_data {
    int me;
    long *counter;
} region_data;

static void region_fn(void *p)
{
    region_data *d = p;
    PE_CHECK_EQ_I64(shmem_my_pe(), d->me);
    shmem_long_atomic_inc(d->counter, 0);
}

typedef struct pool {
    pthread_barrier_t start, end;
    void *boxes[REGIONS];
} pool;

/* A worker as libgomp's: created outside any PE, it runs every region it is handed. */
static void *pool_worker(void *p)
{
    pool *pl = p;
    for (int r = 0; r < REGIONS; r++) {
        pthread_barrier_wait(&pl->start);
        shmemu_app_region_run(pl->boxes[r]);
        pthread_barrier_wait(&pl->end);
    }
    return NULL;
}

static int body_regions(void *arg)
{
    (void)arg;
    shmem_init();
    int me = shmem_my_pe(), n = shmem_n_pes();
    long *counter = shmem_calloc(1, sizeof *counter);
    region_data d = {me, counter};
    pool pl;
    pthread_barrier_init(&pl.start, NULL, WORKERS + 1);
    pthread_barrier_init(&pl.end, NULL, WORKERS + 1);
    pthread_t w[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        pthread_create(&w[i], NULL, pool_worker, &pl); /* not the program's: no PE */
    for (int r = 0; r < REGIONS; r++) {
        pl.boxes[r] = shmemu_app_region_begin(region_fn, &d);
        PE_CHECK(pl.boxes[r] != NULL);
        pthread_barrier_wait(&pl.start);
        shmemu_app_region_run(pl.boxes[r]); /* the PE's own share */
        pthread_barrier_wait(&pl.end);
        shmemu_app_region_end(pl.boxes[r]);
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(w[i], NULL);
    pthread_barrier_destroy(&pl.start);
    pthread_barrier_destroy(&pl.end);
    shmem_barrier_all();
    if (me == 0)
        PE_CHECK_EQ_I64(*counter, (long)n * REGIONS * (WORKERS + 1));
    shmem_barrier_all();
    shmem_free(counter);
    shmem_finalize();
    return 0;
}

static void test_openmp_regions(void **state)
{
    (void)state;
    for (int i = 0; i < PE_COUNTS_N; i++) {
        run_pes(pe_counts[i], body_regions, NULL);
        pe_check_assert_clean("OpenMP-style regions");
    }
    /* Outside any PE a region is passed through: no box. */
    assert_null(shmemu_app_region_begin(region_fn, NULL));
}

/* ---- misuse ---------------------------------------------------------------------------- */

/* Posted when the late thread may make its call: no SHMEM, and an ordering that helgrind
 * and DRD understand (they do not model C11 atomics). */
static sem_t released;
static long *late_target;
static pthread_t late_thread;

static void *late_caller(void *p)
{
    (void)p;
    sem_wait(&released);
    shmem_long_p(late_target, 1, 0);
    return NULL;
}

static void scenario_after_finalize(void *arg)
{
    (void)arg;
    sem_init(&released, 0, 0);
    shmem_init();
    late_target = shmem_malloc(sizeof *late_target);
    pthread_t t;
    shmemu_app_pthread_create(pthread_create, &t, NULL, late_caller, NULL);
    shmem_finalize();
    sem_post(&released);
    shmemu_app_pthread_join(pthread_join, t, NULL);
}

static int body_start_late(void *arg)
{
    (void)arg;
    shmem_init();
    long *target = shmem_malloc(sizeof *target);
    if (shmem_my_pe() == 0) {
        late_target = target;
        shmemu_app_pthread_create(pthread_create, &late_thread, NULL, late_caller, NULL);
    }
    return 0; /* returns with the thread still running, unfinalized */
}

static int child_after_main(void *arg)
{
    (void)arg;
    sem_init(&released, 0, 0);
    shmemu_launch(1, body_start_late, NULL);
    sem_post(&released);
    pthread_join(late_thread, NULL);
    return 0;
}

/* Under the deterministic scheduler: threads from pthread_create and thrd_create are
 * scheduled (their joins wait as sync points); an OpenMP worker belongs to no PE. */
static int child_sched_threads(void *arg)
{
    setenv("SHMEMU_SCHED", "random", 1);
    setenv("SHMEMU_SEED", "3", 1);
    return shmemu_launch(3, body_app_threads, arg) != 0 || pe_check_failures() != 0;
}

static int child_sched_region(void *arg)
{
    (void)arg;
    setenv("SHMEMU_SCHED", "random", 1);
    return shmemu_launch(2, body_regions, NULL) != 0;
}

static void expect_child(int (*fn)(void *), const char *needle)
{
    char out[8192];
    int status = run_child(fn, NULL, child_time_limit(), out, sizeof out, NULL);
    if (status == -1 || (WIFEXITED(status) && WEXITSTATUS(status) == 0) ||
        strstr(out, needle) == NULL) {
        fprintf(stderr, "child status %d, stderr:\n%s\n", status, out);
        fail_msg("want a failure naming \"%s\"", needle);
    }
}

static void test_misuse(void **state)
{
    (void)state;
    expect_child_failure(scenario_after_finalize, NULL, 1,
                         "shmem_long_p: called after shmem_finalize()");
    expect_child(child_after_main, "called on a thread that PE 0 created, after PE 0's main "
                                   "returned");
    expect_child(child_sched_region, "created, an OpenMP thread, which belongs to no PE while "
                                     "the deterministic scheduler runs");
}

static void test_under_scheduler(void **state)
{
    (void)state;
    if (pe_check_under_valgrind())
        skip(); /* scheduling, not races: natively and under TSan only (keeps valgrind quick) */
    char out[8192];
    for (int c11 = 0; c11 < 2; c11++) {
        int st = run_child(child_sched_threads, c11 ? "c11" : NULL, child_time_limit(), out,
                           sizeof out, NULL);
        if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "child status %d, stderr:\n%s\n", st, out);
            fail_msg("%s threads under SHMEMU_SCHED=random", c11 ? "thrd_create" : "pthread");
        }
    }
}

/* ---- thread levels --------------------------------------------------------------------- */

static int body_levels(void *arg)
{
    int requested = (int)(intptr_t)arg;
    int provided = -1, queried = -1;
    PE_CHECK_EQ_I64(shmem_init_thread(requested, &provided), 0);
    PE_CHECK_EQ_I64(provided, SHMEM_THREAD_MULTIPLE);
    shmem_query_thread(&queried);
    PE_CHECK_EQ_I64(queried, SHMEM_THREAD_MULTIPLE);
    nvshmemx_query_thread(&queried);
    PE_CHECK_EQ_I64(queried, NVSHMEM_THREAD_MULTIPLE);
    shmem_finalize();
    return 0;
}

static int body_nv_levels(void *arg)
{
    (void)arg;
    int provided = -1;
    PE_CHECK(nvshmemx_init_thread(NVSHMEM_THREAD_MULTIPLE + 1, &provided) != 0); /* refused */
    PE_CHECK_EQ_I64(provided, -1);
    PE_CHECK_EQ_I64(nvshmemx_init_thread(NVSHMEM_THREAD_SERIALIZED, &provided), 0);
    PE_CHECK_EQ_I64(provided, NVSHMEM_THREAD_MULTIPLE);
    nvshmem_finalize();
    return 0;
}

static void test_thread_levels(void **state)
{
    (void)state;
    static const int levels[] = {SHMEM_THREAD_SINGLE, SHMEM_THREAD_FUNNELED,
                                 SHMEM_THREAD_SERIALIZED, SHMEM_THREAD_MULTIPLE};
    for (int i = 0; i < PE_COUNTS_N; i++) {
        run_pes(pe_counts[i], body_levels, (void *)(intptr_t)levels[i % 4]);
        pe_check_assert_clean("shmem_init_thread");
    }
    char out[4096];
    run_pes_capture(2, body_nv_levels, NULL, out, sizeof out);
    pe_check_assert_clean("nvshmemx_init_thread");
    assert_contains(out, "unknown thread level 4");
}

/* ---- environment variables ------------------------------------------------------------- */

static int body_heap(void *arg)
{
    size_t bytes = (size_t)(uintptr_t)arg;
    shmem_init();
    /* all of the heap but a little for the allocator's own bookkeeping fits; twice does not */
    void *p = shmem_malloc(bytes - (64 << 10));
    PE_CHECK(p != NULL);
    shmem_free(p);
    shmem_finalize();
    return 0;
}

static const char *env_settings[4]; /* NAME, VALUE pairs the child sets */

static int child_with_env(void *arg)
{
    for (int i = 0; i + 1 < 4 && env_settings[i] != NULL; i += 2)
        setenv(env_settings[i], env_settings[i + 1], 1);
    dup2(2, 1); /* what is printed to stdout comes back with stderr */
    return shmemu_launch(3, body_heap, arg) != 0 || pe_check_failures() != 0;
}

/* Runs a 3-PE job in a child with the settings; returns its wait status, output in out. */
static int run_with_env(const char *n1, const char *v1, const char *n2, const char *v2,
                        size_t heap, char *out, size_t len)
{
    env_settings[0] = n1;
    env_settings[1] = v1;
    env_settings[2] = n2;
    env_settings[3] = v2;
    return run_child(child_with_env, (void *)(uintptr_t)heap, child_time_limit(), out, len,
                     NULL);
}

static int count_of(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void expect_refused(int status, const char *out, const char *needle)
{
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 2 ||
        strstr(out, needle) == NULL) {
        fprintf(stderr, "child status %d, output:\n%s\n", status, out);
        fail_msg("want exit 2 naming \"%s\"", needle);
    }
}

static void test_environment(void **state)
{
    (void)state;
    if (pe_check_under_valgrind())
        skip(); /* parsing and printing, not races: natively and under the sanitizers only */
    char out[16384];
    int st = run_with_env("SHMEM_INFO", "1", "SHMEM_SYMMETRIC_SIZE", "8M", 8 << 20, out,
                          sizeof out);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(count_of(out, "shmemu 0.1.0: OpenSHMEM 1.5"), 1); /* once per job */
    assert_contains(out, "SHMEM_SYMMETRIC_SIZE         8388608                  environment");
    assert_contains(out, "SHMEMU_HANG_TIMEOUT");
    assert_contains(out, "SHMEM_INFO                   on                       environment");
    assert_contains(out, "SHMEMU_SCHED                 off                      default");

    st = run_with_env("SHMEM_VERSION", "on", NULL, NULL, 1 << 20, out, sizeof out);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    assert_int_equal(count_of(out, "shmemu 0.1.0: OpenSHMEM 1.5"), 1);
    assert_null(strstr(out, "SHMEMU_HANG_TIMEOUT")); /* the version only */

    st = run_with_env("NVSHMEM_INFO", "yes", "SHMEM_DEBUG", "1", 8 << 20, out, sizeof out);
    assert_contains(out, "SHMEMU_CHECK_NBI             on                       "
                         "environment (SHMEM_DEBUG)");

    /* the heap is as large as SHMEM_SYMMETRIC_SIZE says, and no larger */
    st = run_with_env("SHMEM_SYMMETRIC_SIZE", "4M", NULL, NULL, 8 << 20, out, sizeof out);
    assert_true(st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0);
    st = run_with_env("SHMEM_SYMMETRIC_SIZE", "1G", "NVSHMEM_SYMMETRIC_SIZE", "1024M", 8 << 20,
                      out, sizeof out);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0); /* the same size, written two ways */

    st = run_with_env("SHMEM_SYMMETRIC_SIZE", "1G", "NVSHMEM_SYMMETRIC_SIZE", "512M", 8 << 20,
                      out, sizeof out);
    expect_refused(st, out, "SHMEM_SYMMETRIC_SIZE=\"1G\" and NVSHMEM_SYMMETRIC_SIZE=\"512M\" "
                            "differ");
    st = run_with_env("SHMEM_SYMMETRIC_SIZE", "12X", NULL, NULL, 8 << 20, out, sizeof out);
    expect_refused(st, out, "SHMEM_SYMMETRIC_SIZE=\"12X\" is not valid");
    st = run_with_env("SHMEM_INFO", "maybe", NULL, NULL, 8 << 20, out, sizeof out);
    expect_refused(st, out, "SHMEM_INFO=\"maybe\" is not valid");
    st = run_with_env("SHMEM_DEBUG", "2", NULL, NULL, 8 << 20, out, sizeof out);
    expect_refused(st, out, "SHMEM_DEBUG=\"2\" is not valid");
    st = run_with_env("SHMEM_VERSION", "x", NULL, NULL, 8 << 20, out, sizeof out);
    expect_refused(st, out, "SHMEM_VERSION=\"x\" is not valid");
    st = run_with_env("NVSHMEM_INFO", "", "NVSHMEM_SYMMETRIC_SIZE", "0", 8 << 20, out,
                      sizeof out);
    expect_refused(st, out, "NVSHMEM_SYMMETRIC_SIZE=\"0\" is not valid");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pthread_create), cmocka_unit_test(test_thrd_create),
        cmocka_unit_test(test_openmp_regions), cmocka_unit_test(test_misuse),
        cmocka_unit_test(test_under_scheduler),
        cmocka_unit_test(test_thread_levels),  cmocka_unit_test(test_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
