/*
 * test_init.c: setup and queries: nvshmem_init, my_pe, n_pes, nvshmemx_init_status,
 * nvshmemx_init_attr with a unique id (and its refusals: MPI and SHMEM bootstraps, with a
 * message naming what to call instead), nvshmem_init_thread and nvshmem_query_thread (and
 * the former nvshmemx_ names), nvshmem_finalize, nvshmem_info_*.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmem.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

typedef struct init_job {
    int n;
    _Atomic uint64_t seen_pes; /* bit p: PE p ran and saw itself as p */
} init_job;

static int init_basic_body(void *arg)
{
    init_job *job = arg;
    int thread_pe = shmemu_my_pe();
    PE_CHECK(thread_pe >= 0 && thread_pe < job->n);
    PE_CHECK_EQ_I64(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);

    nvshmem_init();
    PE_CHECK_EQ_I64(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED);
    int me = nvshmem_my_pe();
    PE_CHECK_EQ_I64(me, thread_pe);
    PE_CHECK_EQ_I64(nvshmem_n_pes(), job->n);
    atomic_fetch_or(&job->seen_pes, UINT64_C(1) << me);

    nvshmem_finalize();
    /* As in NVSHMEM, a finalized PE reports itself not initialized. */
    PE_CHECK_EQ_I64(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
    PE_CHECK_EQ_I64(shmemu_my_pe(), thread_pe);
    return 0;
}

static void test_init_my_pe_n_pes(void **state)
{
    (void)state;
    for (int i = 0; i < PE_COUNTS_N; i++) {
        init_job job = {.n = pe_counts[i]};
        run_pes(job.n, init_basic_body, &job);
        assert_int_equal(atomic_load(&job.seen_pes), (UINT64_C(1) << job.n) - 1);
    }
}

static void test_status_outside_pe(void **state)
{
    (void)state;
    /* The test's own thread belongs to no job. */
    assert_int_equal(shmemu_my_pe(), -1);
    assert_int_equal(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
}

static int return_pe_plus_40(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe();
    nvshmem_finalize();
    return me == 0 ? 0 : 40 + me;
}

static void test_launch_returns_first_failure(void **state)
{
    (void)state;
    /* PE 0 returns 0, PE p returns 40 + p: the first non-zero value in PE order is 41. */
    assert_int_equal(shmemu_launch(3, return_pe_plus_40, NULL), 41);
    assert_int_equal(shmemu_launch(1, return_pe_plus_40, NULL), 0);
}

/* ---- nvshmemx_init_attr with a unique id ---------------------------------------------- */

typedef struct uid_job {
    int n;
    pthread_barrier_t published; /* the out-of-band channel, as MPI_Bcast would be */
    nvshmemx_uniqueid_t uid;     /* written by PE 0 before the barrier */
    _Atomic uint64_t seen_pes;
} uid_job;

static int uid_body(void *arg)
{
    uid_job *job = arg;
    int rank = shmemu_my_pe();
    PE_CHECK_EQ_I64(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
    if (rank == 0) {
        nvshmemx_uniqueid_t uid = NVSHMEMX_UNIQUEID_INITIALIZER;
        PE_CHECK_EQ_I64(nvshmemx_get_uniqueid(&uid), 0);
        job->uid = uid;
    }
    pthread_barrier_wait(&job->published);

    /* Every PE of the job is handed the same id. */
    nvshmemx_uniqueid_t mine = NVSHMEMX_UNIQUEID_INITIALIZER;
    PE_CHECK_EQ_I64(nvshmemx_get_uniqueid(&mine), 0);
    PE_CHECK_MEM(&mine, &job->uid, sizeof mine);

    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    PE_CHECK_EQ_I64(nvshmemx_set_attr_uniqueid_args(rank, job->n, &job->uid, &attr), 0);
    PE_CHECK_EQ_I64(attr.args.uid_args.rank, rank);
    PE_CHECK_EQ_I64(attr.args.uid_args.nranks, job->n);
    PE_CHECK_EQ_I64(nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr), 0);
    PE_CHECK_EQ_I64(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED);
    PE_CHECK_EQ_I64(nvshmem_my_pe(), rank);
    PE_CHECK_EQ_I64(nvshmem_n_pes(), job->n);
    atomic_fetch_or(&job->seen_pes, UINT64_C(1) << nvshmem_my_pe());

    /* The job works: every PE adds its rank + 1 to PE 0's counter. */
    uint64_t *counter = nvshmem_calloc(1, sizeof *counter);
    nvshmem_uint64_atomic_add(counter, (uint64_t)rank + 1, 0);
    nvshmem_barrier_all();
    if (rank == 0)
        PE_CHECK_EQ_U64(*counter, (uint64_t)job->n * (uint64_t)(job->n + 1) / 2);
    nvshmem_barrier_all();
    nvshmem_free(counter);
    nvshmem_finalize();
    return 0;
}

static void test_init_attr_uniqueid(void **state)
{
    (void)state;
    for (int i = 0; i < PE_COUNTS_N; i++) {
        uid_job job = {.n = pe_counts[i]};
        pthread_barrier_init(&job.published, NULL, (unsigned)job.n);
        run_pes(job.n, uid_body, &job);
        pthread_barrier_destroy(&job.published);
        assert_int_equal(atomic_load(&job.seen_pes), (UINT64_C(1) << job.n) - 1);
    }
}

static int init_attr_flags_body(void *arg)
{
    const int n = *(const int *)arg; /* the job's size: nvshmem_n_pes needs init */
    /* Bootstraps the threads backend cannot do are refused with a non-zero return (and a
     * message), and leave the PE uninitialized. */
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    PE_CHECK(nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr) != 0);
    PE_CHECK_EQ_I64(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
    /* A rank that is not this PE's is refused too. */
    int rank = shmemu_my_pe();
    nvshmemx_uniqueid_t uid = NVSHMEMX_UNIQUEID_INITIALIZER;
    PE_CHECK_EQ_I64(nvshmemx_get_uniqueid(&uid), 0);
    PE_CHECK_EQ_I64(nvshmemx_set_attr_uniqueid_args((rank + 1) % (n + 1), n, &uid, &attr), 0);
    PE_CHECK(nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0);
    PE_CHECK_EQ_I64(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
    /* Plain flags work. */
    PE_CHECK_EQ_I64(nvshmemx_init_attr(NVSHMEMX_INIT_THREAD_PES, &attr), 0);
    PE_CHECK_EQ_I64(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED);
    PE_CHECK_EQ_I64(nvshmem_n_pes(), n);
    nvshmem_finalize();
    return 0;
}

static void test_init_attr_refusals(void **state)
{
    (void)state;
    static char err[16384];
    for (int i = 0; i < PE_COUNTS_N; i++) {
        int n = pe_counts[i];
        run_pes_capture(n, init_attr_flags_body, &n, err, sizeof err);
        /* Each refusal says which PE and call, and why. */
        for (int p = 0; p < n; p++) {
            char who[64];
            snprintf(who, sizeof who, "PE %d: nvshmemx_init_attr: flags 0x2", p);
            assert_contains(err, who);
            assert_contains(err, "call nvshmem_init() (or nvshmemx_init_attr with 0");
            snprintf(who, sizeof who, "PE %d: nvshmemx_init_attr: rank", p);
            assert_contains(err, who);
        }
    }
}

/* ---- info ---------------------------------------------------------------------------- */

static int info_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int major = -1, minor = -1;
    nvshmem_info_get_version(&major, &minor);
    PE_CHECK_EQ_I64(major, NVSHMEM_MAJOR_VERSION);
    PE_CHECK_EQ_I64(minor, NVSHMEM_MINOR_VERSION);
    char name[NVSHMEM_MAX_NAME_LEN];
    memset(name, 'x', sizeof name);
    nvshmem_info_get_name(name);
    PE_CHECK(memchr(name, '\0', sizeof name) != NULL);
    PE_CHECK_MSG(strcmp(name, NVSHMEM_VENDOR_STRING) == 0, "name \"%.*s\"", 64, name);
    nvshmem_finalize();
    return 0;
}

/* ---- a second initialization --------------------------------------------------------- */
/* NVSHMEM ("a subsequent call to nvshmem_init or nvshmem_init_thread in the same program
 * results in undefined behavior") and OpenSHMEM 1.5 (the same for shmem_init) leave a second
 * initialization undefined; shmemu reports it, naming the PE and the call. */

static void init_twice(void *arg)
{
    (void)arg;
    nvshmem_init();
    if (nvshmem_my_pe() == nvshmem_n_pes() - 1)
        nvshmem_init();
    nvshmem_barrier_all();
}

static void shmem_init_twice(void *arg)
{
    (void)arg;
    shmem_init();
    if (shmem_my_pe() == shmem_n_pes() - 1)
        shmem_init();
    shmem_barrier_all();
}

static void init_after_finalize(void *arg)
{
    (void)arg;
    nvshmem_init();
    nvshmem_finalize();
    nvshmem_init();
}

static void init_attr_after_init(void *arg)
{
    (void)arg;
    nvshmem_init();
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    if (nvshmem_my_pe() == 0)
        (void)nvshmemx_init_attr(0, &attr);
    nvshmem_barrier_all();
}

static void test_second_init_is_reported(void **state)
{
    (void)state;
    expect_child_failure(init_twice, NULL, 1, "PE 0: nvshmem_init: this PE is already "
                                              "initialized");
    expect_child_failure(init_twice, NULL, 2, "PE 1: nvshmem_init: this PE is already "
                                              "initialized");
    expect_child_failure(init_twice, NULL, 2, "initialize once per PE");
    /* an OpenSHMEM program hears OpenSHMEM's names */
    expect_child_failure(shmem_init_twice, NULL, 2, "PE 1: shmem_init: this PE is already "
                                                    "initialized; a second");
    expect_child_failure(init_after_finalize, NULL, 2, "nvshmem_init: this PE was initialized "
                                                       "and finalized before");
    expect_child_failure(init_attr_after_init, NULL, 2, "PE 0: nvshmemx_init_attr: this PE is "
                                                        "already initialized");
}

static void test_info(void **state)
{
    (void)state;
    assert_int_equal(NVSHMEM_MAJOR_VERSION, 3);
    run_pes_each(info_body, NULL);
}


/* ---- nvshmem_init_thread ------------------------------------------------------------- */

static int init_thread_body(void *arg)
{
    (void)arg;
    /* An unknown level is refused before init, and the PE stays uninitialized. */
    int provided = -7;
    PE_CHECK(nvshmem_init_thread(NVSHMEM_THREAD_MULTIPLE + 1, &provided) != 0);
    PE_CHECK(nvshmem_init_thread(-1, &provided) != 0);
    PE_CHECK_EQ_I64(provided, -7);
    PE_CHECK_EQ_I64(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
    /* Each level is provided as MULTIPLE; PEs alternate the levels they ask for, and odd
     * PEs use the former name with a NULL provided (a PE initializes once). */
    int me = shmemu_my_pe(), level = me % 4;
    if (me % 2 == 0) {
        PE_CHECK_EQ_I64(nvshmem_init_thread(level, &provided), 0);
        PE_CHECK_EQ_I64(provided, NVSHMEM_THREAD_MULTIPLE);
    } else {
        PE_CHECK_EQ_I64(nvshmemx_init_thread(level, NULL), 0);
    }
    PE_CHECK_EQ_I64(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED);
    provided = -7;
    nvshmem_query_thread(&provided);
    PE_CHECK_EQ_I64(provided, NVSHMEM_THREAD_MULTIPLE);
    provided = -7;
    nvshmemx_query_thread(&provided);
    PE_CHECK_EQ_I64(provided, NVSHMEM_THREAD_MULTIPLE);
    nvshmem_query_thread(NULL);
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}

static void test_init_thread(void **state)
{
    (void)state;
    static char err[16384];
    for (int i = 0; i < PE_COUNTS_N; i++) {
        run_pes_capture(pe_counts[i], init_thread_body, NULL, err, sizeof err);
        assert_contains(err, "nvshmem_init_thread: unknown thread level 4; use "
                             "NVSHMEM_THREAD_SINGLE (0)");
        assert_contains(err, "nvshmem_init_thread: unknown thread level -1");
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_status_outside_pe),
        cmocka_unit_test(test_init_my_pe_n_pes),
        cmocka_unit_test(test_launch_returns_first_failure),
        cmocka_unit_test(test_init_attr_uniqueid),
        cmocka_unit_test(test_init_attr_refusals),
        cmocka_unit_test(test_init_thread),
        cmocka_unit_test(test_second_init_is_reported),
        cmocka_unit_test(test_info),
    };
    return cmocka_run_group_tests_name("init", tests, NULL, NULL);
}
