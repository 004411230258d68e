/*
 * test_misuse.c: every misuse the header names must stop the program with a message that
 * names the PE and the call ("shmemu: PE 1: nvshmem_putmem: ..."), never a bare crash or a
 * silent wrong answer. Each scenario runs in a forked child (expect_child_failure), whose
 * exit status and stderr are checked.
 *
 * In the scenarios, the PEs that do nothing wrong wait in nvshmem_barrier_all: the abort
 * of the offending PE ends them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmem.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

/* The PE that misbehaves in the scenarios (the last one, so that it is not PE 0). */
static int culprit(void) { return nvshmem_n_pes() - 1; }

/* ---- RMA: PE out of range, addresses outside the heap, sizes past its end ------------ */

static void put_pe_out_of_range(void *arg)
{
    (void)arg;
    nvshmem_init();
    char *buf = nvshmem_malloc(64);
    char src[8] = "abcdefg";
    if (nvshmem_my_pe() == culprit())
        nvshmem_putmem(buf, src, 8, nvshmem_n_pes()); /* one past the last PE */
    nvshmem_barrier_all();
}

static void p_negative_pe(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *x = nvshmem_malloc(sizeof(int));
    if (nvshmem_my_pe() == culprit())
        nvshmem_int_p(x, 1, -1);
    nvshmem_barrier_all();
}

static void test_pe_out_of_range(void **state)
{
    (void)state;
    expect_child_failure(put_pe_out_of_range, NULL, 1, "PE 0: nvshmem_putmem");
    expect_child_failure(put_pe_out_of_range, NULL, 2, "PE 1: nvshmem_putmem");
    expect_child_failure(put_pe_out_of_range, NULL, 3, "PE 2: nvshmem_putmem");
    expect_child_failure(p_negative_pe, NULL, 2, "PE 1: nvshmem_int_p");
}

static void put_to_stack(void *arg)
{
    (void)arg;
    nvshmem_init();
    long not_symmetric = 0;
    long one = 1;
    if (nvshmem_my_pe() == culprit())
        nvshmem_long_put(&not_symmetric, &one, 1, 0);
    nvshmem_barrier_all();
    (void)not_symmetric;
}

static void put_to_malloc(void *arg)
{
    (void)arg;
    nvshmem_init();
    char *heap = malloc(64);
    char src[64] = {0};
    if (nvshmem_my_pe() == culprit())
        nvshmem_putmem(heap, src, 64, 0);
    nvshmem_barrier_all();
    free(heap);
}

static void put_to_peer_copy(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *x = nvshmem_malloc(sizeof(int));
    int one = 1;
    nvshmem_barrier_all();
    /* The address of PE 0's copy, as nvshmem_ptr gives it, is no symmetric address. */
    if (nvshmem_my_pe() == culprit())
        nvshmem_int_put(nvshmem_ptr(x, 0), &one, 1, 0);
    nvshmem_barrier_all();
}

static void get_from_stack(void *arg)
{
    (void)arg;
    nvshmem_init();
    double not_symmetric[4] = {0};
    double into[4];
    if (nvshmem_my_pe() == culprit())
        nvshmem_double_get(into, not_symmetric, 4, 0);
    nvshmem_barrier_all();
}

static void test_address_not_in_heap(void **state)
{
    (void)state;
    expect_child_failure(put_to_stack, NULL, 2, "PE 1: nvshmem_long_put");
    expect_child_failure(put_to_malloc, NULL, 3, "PE 2: nvshmem_putmem");
    expect_child_failure(put_to_malloc, NULL, 1, "PE 0: nvshmem_putmem");
    expect_child_failure(put_to_peer_copy, NULL, 2, "PE 1: nvshmem_int_put");
    expect_child_failure(get_from_stack, NULL, 2, "PE 1: nvshmem_double_get");
}

/* With a 1 MiB heap per PE: a put of 1.5 MiB from the start of the heap runs past its end,
 * into the next PE's slice of the same mapping, which must not count as "in the heap". */
/* The heap rounds up to a multiple of 2 MiB (the largest nvshmem_align), so 2M is exact. */
enum { SMALL_HEAP = 2 << 20 };

static void put_past_heap_end(void *arg)
{
    const int *who = arg;
    nvshmem_init();
    char *buf = nvshmem_malloc(64);
    char *src = calloc(1, SMALL_HEAP * 3 / 2);
    if (nvshmem_my_pe() == *who)
        nvshmem_putmem(buf, src, SMALL_HEAP * 3 / 2, (nvshmem_my_pe() + 1) % nvshmem_n_pes());
    nvshmem_barrier_all();
    free(src);
}

static void get_past_heap_end(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *buf = nvshmem_malloc(64 * sizeof(int));
    int *into = calloc(SMALL_HEAP + 64, 1);
    if (nvshmem_my_pe() == culprit()) /* one element more than the whole heap */
        nvshmem_int_get(into, buf, SMALL_HEAP / sizeof(int) + 1, 0);
    nvshmem_barrier_all();
    free(into);
}

static void signal_past_heap_end(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_malloc(8);
    if (nvshmem_my_pe() == culprit())
        nvshmemx_signal_op(sig + SMALL_HEAP / 8, 1, NVSHMEM_SIGNAL_SET, 0);
    nvshmem_barrier_all();
}

static void test_size_past_heap_end(void **state)
{
    (void)state;
    setenv("NVSHMEM_SYMMETRIC_SIZE", "2M", 1);
    int pe0 = 0, pe1 = 1;
    expect_child_failure(put_past_heap_end, &pe0, 2, "PE 0: nvshmem_putmem");
    expect_child_failure(put_past_heap_end, &pe1, 2, "PE 1: nvshmem_putmem");
    expect_child_failure(put_past_heap_end, &pe0, 1, "PE 0: nvshmem_putmem");
    expect_child_failure(get_past_heap_end, NULL, 3, "PE 2: nvshmem_int_get");
    expect_child_failure(signal_past_heap_end, NULL, 2, "PE 1: nvshmemx_signal_op");
}

static int unset_heap_size(void **state)
{
    (void)state;
    unsetenv("NVSHMEM_SYMMETRIC_SIZE");
    return 0;
}

/* ---- atomics, signals and comparisons ------------------------------------------------ */

static void misaligned_int_add(void *arg)
{
    (void)arg;
    nvshmem_init();
    char *buf = nvshmem_calloc(64, 1);
    if (nvshmem_my_pe() == culprit())
        nvshmem_int_atomic_add((int *)(buf + 1), 1, 0);
    nvshmem_barrier_all();
}

static void misaligned_uint64_fetch(void *arg)
{
    (void)arg;
    nvshmem_init();
    char *buf = nvshmem_calloc(64, 1);
    if (nvshmem_my_pe() == culprit())
        (void)nvshmem_uint64_atomic_fetch((uint64_t *)(buf + 4), 0);
    nvshmem_barrier_all();
}

static void test_misaligned_atomic(void **state)
{
    (void)state;
    expect_child_failure(misaligned_int_add, NULL, 2, "PE 1: nvshmem_int_atomic_add");
    expect_child_failure(misaligned_uint64_fetch, NULL, 3, "PE 2: nvshmem_uint64_atomic_fetch");
    expect_child_failure(misaligned_int_add, NULL, 1, "PE 0: nvshmem_int_atomic_add");
}

static void bad_signal_op(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, 8);
    if (nvshmem_my_pe() == culprit())
        nvshmemx_signal_op(sig, 1, 42, 0);
    nvshmem_barrier_all();
}

static void bad_put_signal_op(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, 8);
    char *buf = nvshmem_malloc(16);
    char src[16] = {0};
    if (nvshmem_my_pe() == culprit())
        nvshmem_putmem_signal(buf, src, 16, sig, 1, NVSHMEM_CMP_GT /* not a signal op */, 0);
    nvshmem_barrier_all();
}

static void bad_put_signal_nbi_op(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, 8);
    float *buf = nvshmem_malloc(16);
    float src[4] = {0};
    if (nvshmem_my_pe() == culprit())
        nvshmem_float_put_signal_nbi(buf, src, 4, sig, 1, -1, 0);
    nvshmem_quiet();
    nvshmem_barrier_all();
}

static void test_unknown_signal_op(void **state)
{
    (void)state;
    expect_child_failure(bad_signal_op, NULL, 2, "PE 1: nvshmemx_signal_op");
    expect_child_failure(bad_put_signal_op, NULL, 2, "PE 1: nvshmem_putmem_signal");
    expect_child_failure(bad_put_signal_nbi_op, NULL, 3, "PE 2: nvshmem_float_put_signal_nbi");
}

static void bad_cmp_signal_wait(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *sig = nvshmem_calloc(1, 8);
    if (nvshmem_my_pe() == culprit())
        nvshmem_signal_wait_until(sig, 17, 0);
    nvshmem_barrier_all();
}

static void bad_cmp_test(void *arg)
{
    (void)arg;
    nvshmem_init();
    int *iv = nvshmem_calloc(1, sizeof(int));
    if (nvshmem_my_pe() == culprit())
        (void)nvshmem_int_test(iv, 99, 0);
    nvshmem_barrier_all();
}

static void bad_cmp_wait_until(void *arg)
{
    (void)arg;
    nvshmem_init();
    long *iv = nvshmem_calloc(1, sizeof(long));
    if (nvshmem_my_pe() == culprit())
        nvshmem_long_wait_until(iv, -1, 0); /* would be satisfied by no comparison */
    nvshmem_barrier_all();
}

static void bad_cmp_wait_until_any(void *arg)
{
    (void)arg;
    nvshmem_init();
    uint64_t *iv = nvshmem_calloc(4, sizeof(uint64_t));
    if (nvshmem_my_pe() == culprit())
        (void)nvshmem_uint64_wait_until_any(iv, 4, NULL, NVSHMEM_SIGNAL_SET, 0);
    nvshmem_barrier_all();
}

static void test_unknown_comparison(void **state)
{
    (void)state;
    expect_child_failure(bad_cmp_signal_wait, NULL, 2, "PE 1: nvshmem_signal_wait_until");
    expect_child_failure(bad_cmp_test, NULL, 2, "PE 1: nvshmem_int_test");
    expect_child_failure(bad_cmp_wait_until, NULL, 3, "PE 2: nvshmem_long_wait_until");
    expect_child_failure(bad_cmp_wait_until_any, NULL, 2, "PE 1: nvshmem_uint64_wait_until_any");
}

/* ---- the heap: freeing foreign memory, unequal collective requests ------------------- */

static void free_malloced(void *arg)
{
    (void)arg;
    nvshmem_init();
    if (nvshmem_my_pe() == culprit())
        nvshmem_free(malloc(16));
    nvshmem_barrier_all();
}

static void free_interior(void *arg)
{
    (void)arg;
    nvshmem_init();
    char *p = nvshmem_malloc(64);
    if (nvshmem_my_pe() == culprit())
        nvshmem_free(p + 8);
    nvshmem_barrier_all();
}

static void test_free_foreign_pointer(void **state)
{
    (void)state;
    expect_child_failure(free_malloced, NULL, 2, "PE 1: nvshmem_free");
    expect_child_failure(free_malloced, NULL, 1, "PE 0: nvshmem_free");
    expect_child_failure(free_interior, NULL, 3, "PE 2: nvshmem_free");
}

static void unequal_malloc(void *arg)
{
    (void)arg;
    nvshmem_init();
    /* PEs 0 .. n-2 ask for 64 bytes, the last PE for 128. */
    (void)nvshmem_malloc(nvshmem_my_pe() == culprit() ? 128 : 64);
    nvshmem_barrier_all();
}

static void unequal_align(void *arg)
{
    (void)arg;
    nvshmem_init();
    (void)nvshmem_align(nvshmem_my_pe() == culprit() ? 256 : 64, 100);
    nvshmem_barrier_all();
}

static void test_unequal_allocation(void **state)
{
    (void)state;
    /* Which PE notices first is a race: either may report, naming itself and the call. */
    const char *const two[] = {"PE 0: nvshmem_malloc", "PE 1: nvshmem_malloc", NULL};
    expect_child_failure_any(unequal_malloc, NULL, 2, two);
    const char *const three[] = {"PE 0: nvshmem_malloc", "PE 1: nvshmem_malloc",
                                 "PE 2: nvshmem_malloc", NULL};
    expect_child_failure_any(unequal_malloc, NULL, 3, three);
    const char *const align[] = {"PE 0: nvshmem_align", "PE 1: nvshmem_align", NULL};
    expect_child_failure_any(unequal_align, NULL, 2, align);
}

/* ---- a heap call made by only some PEs ------------------------------------------------ */
/* Reported at once (not at the hang timeout), naming the PE that made the call, the size and
 * the PEs that did not. */

static void malloc_by_one(void *arg)
{
    (void)arg;
    nvshmem_init();
    if (nvshmem_my_pe() == culprit())
        (void)nvshmem_malloc(64);
    nvshmem_barrier_all(); /* the others meet the culprit's allocation here */
    nvshmem_barrier_all();
}

static void malloc_then_others_return(void *arg)
{
    (void)arg;
    nvshmem_init();
    if (nvshmem_my_pe() == culprit())
        (void)nvshmem_malloc(64);
}

static void shmem_malloc_by_one(void *arg)
{
    (void)arg;
    shmem_init();
    if (shmem_my_pe() == shmem_n_pes() - 1)
        (void)shmem_malloc(64);
    shmem_barrier_all();
    shmem_barrier_all();
}

static void test_allocation_by_some_pes(void **state)
{
    (void)state;
    expect_child_failure(malloc_by_one, NULL, 2, "PE 1: nvshmem_malloc: PE 1 called "
                                                 "nvshmem_malloc (64 bytes, the job's collective "
                                                 "heap call #1), but PE 0 did not");
    expect_child_failure(malloc_by_one, NULL, 3, "but PEs 0 and 1 did not");
    expect_child_failure(shmem_malloc_by_one, NULL, 2, "PE 1: shmem_malloc: PE 1 called "
                                                       "shmem_malloc (64 bytes");
    /* The others return without any barrier: the culprit would wait for ever. Whichever
     * side notices first reports; a short hang timeout keeps the old behaviour quick. */
    setenv("SHMEMU_HANG_TIMEOUT", "20", 1);
    const char *const returned[] = {
        "PE 1: nvshmem_malloc: PE 1 called nvshmem_malloc (64 bytes, the job's collective heap "
        "call #1), but PE 0 finished without calling it",
        "PE 0: nvshmem_malloc: PE 1 is in nvshmem_malloc (the job's collective heap call #1, "
        "64 bytes), but this PE returned from its main function", NULL};
    expect_child_failure_any(malloc_then_others_return, NULL, 2, returned);
    unsetenv("SHMEMU_HANG_TIMEOUT");
}

/* ---- OpenSHMEM programs hear OpenSHMEM names ----------------------------------------- */

static void shmem_put_to_stack(void *arg)
{
    (void)arg;
    shmem_init();
    long not_symmetric = 0, one = 1;
    if (shmem_my_pe() == shmem_n_pes() - 1)
        shmem_long_put(&not_symmetric, &one, 1, 0);
    shmem_barrier_all();
}

static void shmem_free_malloced(void *arg)
{
    (void)arg;
    shmem_init();
    shmem_free(malloc(16));
}

static void (*voice_scenario)(void *); /* set before the fork; the child reads its copy */

static int voice_body(void *arg)
{
    voice_scenario(arg);
    return 0;
}

static int run_scenario_2(void *arg)
{
    (void)arg;
    return shmemu_launch(2, voice_body, NULL);
}

/* The child's stderr for scenario on 2 PEs; fails unless it has needle and no "nvshmem". */
static void expect_openshmem_voice(void (*scenario)(void *), const char *needle)
{
    static char err[16384];
    voice_scenario = scenario;
    int status = run_child(run_scenario_2, NULL, child_time_limit(), err,
                           sizeof err, NULL);
    assert_int_not_equal(status, -1);
    assert_false(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_contains(err, needle);
    if (strstr(err, "nvshmem") != NULL || strstr(err, "NVSHMEM_TEAM") != NULL)
        fail_msg("an OpenSHMEM program was told NVSHMEM names:\n%s", err);
}

static void test_openshmem_voice(void **state)
{
    (void)state;
    expect_openshmem_voice(shmem_put_to_stack, "PE 1: shmem_long_put: dest");
    expect_openshmem_voice(shmem_put_to_stack, "use memory from shmem_malloc");
    expect_openshmem_voice(shmem_free_malloced, "free only what shmem_malloc, shmem_calloc or "
                                                "shmem_align returned");
}

/* ---- calls out of place -------------------------------------------------------------- */

static void put_before_init(void *arg)
{
    (void)arg;
    char src[4] = {0};
    nvshmem_putmem(src, src, 4, 0);
}

static void barrier_on_destroyed_team(void *arg)
{
    (void)arg;
    nvshmem_init();
    nvshmem_team_t t = NVSHMEM_TEAM_INVALID;
    nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, nvshmem_n_pes(), NULL, 0, &t);
    nvshmem_team_destroy(t);
    nvshmem_barrier(t);
}

static void align_not_power_of_two(void *arg)
{
    (void)arg;
    nvshmem_init();
    (void)nvshmem_align(48, 100);
}

static void test_calls_out_of_place(void **state)
{
    (void)state;
    expect_child_failure(put_before_init, NULL, 1, "PE 0: nvshmem_putmem");
    const char *const barrier[] = {"PE 0: nvshmem_barrier", "PE 1: nvshmem_barrier", NULL};
    expect_child_failure_any(barrier_on_destroyed_team, NULL, 2, barrier);
    expect_child_failure(align_not_power_of_two, NULL, 1, "PE 0: nvshmem_align");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pe_out_of_range),
        cmocka_unit_test(test_address_not_in_heap),
        cmocka_unit_test_teardown(test_size_past_heap_end, unset_heap_size),
        cmocka_unit_test(test_misaligned_atomic),
        cmocka_unit_test(test_unknown_signal_op),
        cmocka_unit_test(test_unknown_comparison),
        cmocka_unit_test(test_free_foreign_pointer),
        cmocka_unit_test(test_unequal_allocation),
        cmocka_unit_test(test_allocation_by_some_pes),
        cmocka_unit_test(test_openshmem_voice),
        cmocka_unit_test(test_calls_out_of_place),
    };
    return cmocka_run_group_tests_name("misuse", tests, NULL, NULL);
}
