/*
 * test_emu_errors.c: kernels with bugs, each in a forked child that must fail with a
 * message naming the kernel, the block, the thread and the problem: out-of-bounds shared
 * memory, a __syncthreads not reached by every thread (both orders), a missing
 * __syncthreads between a shared-memory write and another thread's read, mbarrier misuse
 * (uninitialized, too many arrivals, a phase that can never complete), a bulk copy read
 * before its mbarrier phase, a warp call whose mask leaves out the caller, grid_sync
 * without a cooperative launch, a kernel that deadlocks with a residency limit, and a block
 * whose fiber stacks cannot be mapped at the process's limit on mappings.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmemu/emu.h"
#include "shmemu/kernel.h"
#include "support/pe_check.h"

typedef struct {
    int which;
    int *sink;
} bug_args;

enum {
    BUG_OOB,
    BUG_SYNC_EXITED_FIRST,
    BUG_SYNC_EXIT_LATER,
    BUG_RACE,
    BUG_MBAR_UNINIT,
    BUG_MBAR_OVER_ARRIVE,
    BUG_MBAR_NEVER,
    BUG_TMA_EARLY_READ,
    BUG_WARP_MASK,
    BUG_GRID_SYNC,
    BUG_NONE
};

KERNEL(buggy, bug_args, a)
{
    SHARED_ARRAY(int, tile, 32);
    SHARED_ARRAY(uint64_t, bar, 1);
    int t = (int)threadIdx.x;
    switch (a.which) {
    case BUG_OOB:
        SH_ST(tile, t, t);
        __syncthreads();
        a.sink[t] = SH_LD(tile, t + 1); /* thread 31 reads tile[32] */
        break;
    case BUG_SYNC_EXITED_FIRST:
        if (t < 4)
            return;
        __syncthreads();
        break;
    case BUG_SYNC_EXIT_LATER:
        if (t >= 4)
            return;
        __syncthreads();
        break;
    case BUG_RACE:
        SH_ST(tile, t, t);
        /* missing __syncthreads() */
        a.sink[t] = SH_LD(tile, (t + 1) % 32);
        break;
    case BUG_MBAR_UNINIT:
        if (t == 0)
            (void)mbar_arrive(bar);
        break;
    case BUG_MBAR_OVER_ARRIVE:
        if (t == 0)
            mbar_init(bar, 1);
        __syncthreads();
        if (t == 0) {
            mbar_expect_tx(bar, 16);
            (void)mbar_arrive(bar);
            (void)mbar_arrive(bar); /* the count was 1 */
        }
        break;
    case BUG_MBAR_NEVER:
        if (t == 0)
            mbar_init(bar, 32);
        __syncthreads();
        if (t != 5)
            (void)mbar_arrive(bar); /* thread 5 never arrives */
        mbar_wait_parity(bar, 0);
        break;
    case BUG_TMA_EARLY_READ:
        if (t == 0) {
            mbar_init(bar, 1);
            mbar_arrive_expect_tx(bar, 32 * sizeof(int));
            tma_ld(tile, a.sink, 32 * sizeof(int), bar);
            a.sink[40] = SH_LD(tile, 3); /* no mbar_wait before the read */
        }
        break;
    case BUG_WARP_MASK:
        (void)__shfl_sync(0x0000ffffu, t, 0); /* lanes 16..31 are not in the mask */
        break;
    case BUG_GRID_SYNC:
        grid_sync();
        break;
    default: break;
    }
}

static void run_bug(void *arg)
{
    int which = *(const int *)arg;
    nvshmem_init();
    int *sink = NULL;
    cudaMalloc((void **)&sink, 64 * sizeof(int));
    bug_args a = {which, sink};
    LAUNCH(buggy, DIM3(2, 1, 1), DIM3(32, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    cudaFree(sink);
    nvshmem_finalize();
}

static void expect_bug(int which, const char *message)
{
    expect_child_failure(run_bug, &which, 1, message);
}

static int no_bug_body(void *arg)
{
    run_bug(arg);
    return 0;
}

/* The same kernel without a bug runs to the end. */
static void test_correct_kernel_passes(void **state)
{
    (void)state;
    int which = BUG_NONE;
    run_pes(1, no_bug_body, &which);
}

static void test_out_of_bounds_shared(void **state)
{
    (void)state;
    expect_bug(BUG_OOB, "thread (31,0,0): out-of-bounds shared memory: SH_LD");
    expect_bug(BUG_OOB, "element 32 of tile");
}

static void test_syncthreads_not_reached(void **state)
{
    (void)state;
    expect_bug(BUG_SYNC_EXITED_FIRST, "is not reached by every thread of the block");
    expect_bug(BUG_SYNC_EXIT_LATER, "thread (4,0,0): exited while 4 thread(s) wait at "
                                    "__syncthreads()");
}

static void test_missing_syncthreads_race(void **state)
{
    (void)state;
    expect_bug(BUG_RACE, "shared-memory race");
    /* thread 0 read tile[1] before thread 1 wrote it: the write is the second access */
    expect_bug(BUG_RACE, "thread (1,0,0): shared-memory race: writes byte 4 of tile");
}

static void test_mbarrier_misuse(void **state)
{
    (void)state;
    expect_bug(BUG_MBAR_UNINIT, "which is not initialized");
    expect_bug(BUG_MBAR_OVER_ARRIVE, "more arrivals than the count 1");
    expect_bug(BUG_MBAR_NEVER, "waits on the mbarrier at shared offset");
    expect_bug(BUG_MBAR_NEVER, "has 31 of 32 arrivals");
}

static void test_bulk_copy_read_too_early(void **state)
{
    (void)state;
    expect_bug(BUG_TMA_EARLY_READ, "filled by a bulk copy that completes on the mbarrier");
}

static void test_warp_mask_and_grid_sync(void **state)
{
    (void)state;
    expect_bug(BUG_WARP_MASK, "which does not include the calling lane 16");
    expect_bug(BUG_GRID_SYNC, "grid_sync at");
    expect_bug(BUG_GRID_SYNC, "launch it with LAUNCH_COOP");
}

/* ---- residency: block 0 waits for the last block, with fewer SMs than blocks ---------------- */

typedef struct {
    uint32_t *flag;
} resid_args;

KERNEL(wait_for_last, resid_args, a)
{
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x == gridDim.x - 1)
        st_release(a.flag, 1u, SCOPE_GPU);
    else
        while (ld_acquire(a.flag, SCOPE_GPU) == 0u) {
        }
}

static int resid_body(void *arg)
{
    int sms = *(const int *)arg;
    nvshmem_init();
    emu_set_sm_limit(sms);
    uint32_t *flag = NULL;
    cudaMalloc((void **)&flag, sizeof *flag);
    resid_args a = {flag};
    LAUNCH(wait_for_last, DIM3(8, 1, 1), DIM3(4, 1, 1), 0, NULL, a);
    cudaDeviceSynchronize();
    PE_CHECK_EQ_U64(*flag, 1);
    cudaFree(flag);
    nvshmem_finalize();
    return 0;
}

static void resid_scenario(void *arg)
{
    setenv("SHMEMU_EMU_STALL", pe_check_under_valgrind() ? "3" : "0.3", 1);
    (void)resid_body(arg);
}

static void test_residency_deadlock(void **state)
{
    (void)state;
    /* enough SMs for every block: runs */
    int sms = 8;
    run_pes(1, resid_body, &sms);
    /* 4 SMs for 8 blocks: blocks 0..3 wait for block 7, which cannot start */
    sms = 4;
    expect_child_failure(resid_scenario, &sms, 1, "residency deadlock: kernel wait_for_last");
    expect_child_failure(resid_scenario, &sms, 1, "not resident: blocks (4,0,0) to (7,0,0)");
}

/* ---- the process's limit on mappings ------------------------------------------------------ */

typedef int *int_ptr; /* KERNEL takes its argument type as one token */
KERNEL(wide_block, int_ptr, out) { out[threadIdx.x] = (int)threadIdx.x; }

/* Fills the process's mappings to within 1000 of vm.max_map_count (alternate pages of one
 * reservation made inaccessible: one mapping each), then launches a 1024-thread block,
 * whose 1024 stacks and guard pages need about 2050 more. */
static void map_limit_scenario(void *arg)
{
    long most = *(const long *)arg;
    nvshmem_init();
    int *out = NULL;
    cudaMalloc((void **)&out, 1024 * sizeof(int));
    long have = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    for (int c; f != NULL && (c = fgetc(f)) != EOF;)
        have += c == '\n';
    if (f != NULL)
        fclose(f);
    const long pages = most - have - 1000; /* alternating protections: a mapping a page */
    const long page = sysconf(_SC_PAGESIZE);
    char *r = mmap(NULL, (size_t)(pages * page), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    for (long i = 1; r != MAP_FAILED && i < pages; i += 2)
        if (mprotect(r + i * page, (size_t)page, PROT_NONE) != 0)
            break;
    LAUNCH(wide_block, DIM3(1, 1, 1), DIM3(1024, 1, 1), 0, NULL, out);
    cudaDeviceSynchronize();
    nvshmem_finalize();
}

/* A block whose stacks cannot be mapped for want of mappings (not memory) ends the run with
 * the limit named, not with "out of memory" advice or a stack left without its guard. */
static void test_mapping_limit_named(void **state)
{
    (void)state;
    long most = -1;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f != NULL) {
        if (fscanf(f, "%ld", &most) != 1)
            most = -1;
        fclose(f);
    }
    if (pe_check_under_valgrind()) { /* valgrind manages the address space, with its own limits */
        print_message("under valgrind: the mapping limit is valgrind's, not checked here (the "
                      "native and sanitizer runs check it)\n");
        skip();
    }
    if (most <= 0 || most > 1000000) {
        print_message("vm.max_map_count is %ld: too large to fill in a test; not checked\n", most);
        skip();
    }
    expect_child_failure(map_limit_scenario, &most, 1, "vm.max_map_count");
    expect_child_failure(map_limit_scenario, &most, 1, "cannot map a fiber stack's guard page");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_correct_kernel_passes),
        cmocka_unit_test(test_out_of_bounds_shared),
        cmocka_unit_test(test_syncthreads_not_reached),
        cmocka_unit_test(test_missing_syncthreads_race),
        cmocka_unit_test(test_mbarrier_misuse),
        cmocka_unit_test(test_bulk_copy_read_too_early),
        cmocka_unit_test(test_warp_mask_and_grid_sync),
        cmocka_unit_test(test_residency_deadlock),
        cmocka_unit_test(test_mapping_limit_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
