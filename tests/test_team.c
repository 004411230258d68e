/*
 * test_team.c: teams: nvshmem_team_split_strided into the even and the odd PEs, team
 * queries and translation, team barrier/sync, collectives on a sub-team, nested splits,
 * destroy, and the recycling of team slots; the per-PE predefined teams
 * (NVSHMEMX_TEAM_SAME_MYPE_NODE, NVSHMEMI_TEAM_SAME_GPU: this PE alone) and
 * NVSHMEMI_TEAM_GPU_LEADERS (every PE); nvshmem_team_split_2d (and shmem_team_split_2d)
 * into rows and columns, with its refusals.
 *
 * Semantics chosen where the header is silent (NVSHMEM/OpenSHMEM 1.5): queries on
 * NVSHMEM_TEAM_INVALID return -1; translate_pe returns -1 for a PE outside the destination
 * team or out of range; destroying NVSHMEM_TEAM_INVALID does nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "nvshmem.h"
#include "nvshmemx.h"
#include "shmem.h"
#include "shmemu/pgas.h"
#include "support/pe_check.h"

#define MAX_PES 8

/* Splits WORLD into the even and the odd PEs (every PE calls both splits). */
static void split_even_odd(int n, nvshmem_team_t *even, nvshmem_team_t *odd)
{
    *even = *odd = NVSHMEM_TEAM_INVALID;
    PE_CHECK_EQ_I64(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0,
                                               even),
                    0);
    if (n >= 2)
        PE_CHECK_EQ_I64(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0,
                                                   odd),
                        0);
}

static int queries_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    PE_CHECK_EQ_I64(nvshmem_team_my_pe(NVSHMEM_TEAM_WORLD), me);
    PE_CHECK_EQ_I64(nvshmem_team_n_pes(NVSHMEM_TEAM_WORLD), n);
    /* One node: SHARED and NODE hold every PE. */
    PE_CHECK_EQ_I64(nvshmem_team_my_pe(NVSHMEM_TEAM_SHARED), me);
    PE_CHECK_EQ_I64(nvshmem_team_n_pes(NVSHMEM_TEAM_SHARED), n);
    PE_CHECK_EQ_I64(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE), me);
    PE_CHECK_EQ_I64(nvshmem_team_n_pes(NVSHMEMX_TEAM_NODE), n);
    PE_CHECK_EQ_I64(nvshmem_team_my_pe(NVSHMEM_TEAM_INVALID), -1);
    PE_CHECK_EQ_I64(nvshmem_team_n_pes(NVSHMEM_TEAM_INVALID), -1);

    nvshmem_team_t even, odd;
    split_even_odd(n, &even, &odd);
    int even_size = (n + 1) / 2, odd_size = n / 2;
    nvshmem_team_t mine = me % 2 == 0 ? even : odd;
    nvshmem_team_t other = me % 2 == 0 ? odd : even;
    PE_CHECK(mine != NVSHMEM_TEAM_INVALID);
    PE_CHECK_EQ_I64(other, NVSHMEM_TEAM_INVALID); /* non-members get INVALID */
    PE_CHECK(mine != NVSHMEM_TEAM_WORLD && mine != NVSHMEM_TEAM_SHARED &&
             mine != NVSHMEMX_TEAM_NODE);
    PE_CHECK_EQ_I64(nvshmem_team_my_pe(mine), me / 2);
    PE_CHECK_EQ_I64(nvshmem_team_n_pes(mine), me % 2 == 0 ? even_size : odd_size);
    PE_CHECK_EQ_I64(nvshmem_team_my_pe(other), -1);

    /* translate: team rank k of my team is world PE 2k (+1 for odd) and back. */
    int size = nvshmem_team_n_pes(mine);
    for (int k = 0; k < size; k++) {
        int world = 2 * k + me % 2;
        PE_CHECK_EQ_I64(nvshmem_team_translate_pe(mine, k, NVSHMEM_TEAM_WORLD), world);
        PE_CHECK_EQ_I64(nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, world, mine), k);
    }
    /* world PEs of the other parity are in no position of my team */
    for (int q = (me + 1) % 2; q < n; q += 2)
        PE_CHECK_EQ_I64(nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, q, mine), -1);
    PE_CHECK_EQ_I64(nvshmem_team_translate_pe(mine, size, NVSHMEM_TEAM_WORLD), -1);
    PE_CHECK_EQ_I64(nvshmem_team_translate_pe(mine, -1, NVSHMEM_TEAM_WORLD), -1);
    PE_CHECK_EQ_I64(nvshmem_team_translate_pe(NVSHMEM_TEAM_INVALID, 0, NVSHMEM_TEAM_WORLD), -1);
    PE_CHECK_EQ_I64(nvshmem_team_translate_pe(mine, 0, NVSHMEM_TEAM_INVALID), -1);

    /* Nested: every other PE of my team (team ranks 0, 2, ...: world PEs 4j + parity). */
    nvshmem_team_t quarter = NVSHMEM_TEAM_INVALID;
    PE_CHECK_EQ_I64(nvshmem_team_split_strided(mine, 0, 2, (size + 1) / 2, NULL, 0, &quarter),
                    0);
    if (me % 4 < 2) {
        PE_CHECK(quarter != NVSHMEM_TEAM_INVALID);
        PE_CHECK_EQ_I64(nvshmem_team_my_pe(quarter), me / 4);
        PE_CHECK_EQ_I64(nvshmem_team_n_pes(quarter), (size + 1) / 2);
        PE_CHECK_EQ_I64(nvshmem_team_translate_pe(quarter, 1, NVSHMEM_TEAM_WORLD),
                        (size + 1) / 2 > 1 ? 4 + me % 2 : -1);
        PE_CHECK_EQ_I64(nvshmem_team_translate_pe(quarter, 0, mine), 0);
        PE_CHECK_EQ_I64(nvshmem_barrier(quarter), 0);
        nvshmem_team_destroy(quarter);
    } else {
        PE_CHECK_EQ_I64(quarter, NVSHMEM_TEAM_INVALID);
        nvshmem_team_destroy(quarter); /* INVALID: nothing to do */
    }

    nvshmem_team_destroy(mine);
    nvshmem_team_destroy(other); /* INVALID */
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}

static void test_split_even_odd_queries(void **state)
{
    (void)state;
    run_pes_each(queries_body, NULL);
}

/* ---- barrier, sync and collectives on the sub-teams ---------------------------------- */

static int subteam_coll_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    nvshmem_team_t even, odd;
    split_even_odd(n, &even, &odd);
    nvshmem_team_t mine = me % 2 == 0 ? even : odd;
    int rank = nvshmem_team_my_pe(mine), size = nvshmem_team_n_pes(mine);
    int leader = me % 2; /* world PE of team rank 0 */
    enum { N = 4 };
    uint64_t *counter = nvshmem_calloc(1, sizeof(uint64_t));
    int *isrc = nvshmem_malloc(N * sizeof(int));
    int *idst = nvshmem_malloc(MAX_PES * N * sizeof(int));
    float *fsrc = nvshmem_malloc(N * sizeof(float));
    float *fdst = nvshmem_malloc(N * sizeof(float));
    const int rounds = pe_check_scaled(50, 5);

    /* A team barrier waits for the team only: each team counts on its leader. */
    for (int r = 0; r < rounds; r++) {
        nvshmem_uint64_atomic_add(counter, 1, leader);
        PE_CHECK_EQ_I64(nvshmem_barrier(mine), 0);
        PE_CHECK_EQ_U64(nvshmem_uint64_atomic_fetch(counter, leader),
                        (uint64_t)size * (uint64_t)(r + 1));
        PE_CHECK_EQ_I64(r % 2 ? nvshmem_team_sync(mine) : nvshmem_barrier(mine), 0);
    }

    /* Reductions over the team: world PE p contributes p + i. */
    for (int i = 0; i < N; i++)
        isrc[i] = me + i;
    PE_CHECK_EQ_I64(nvshmem_int_sum_reduce(mine, idst, isrc, N), 0);
    for (int i = 0; i < N; i++) {
        int want = 0;
        for (int k = 0; k < size; k++)
            want += 2 * k + leader + i;
        PE_CHECK_EQ_I64(idst[i], want);
    }
    PE_CHECK_EQ_I64(nvshmem_int_max_reduce(mine, idst, isrc, N), 0);
    for (int i = 0; i < N; i++)
        PE_CHECK_EQ_I64(idst[i], 2 * (size - 1) + leader + i);
    /* A float sum in team order, bit for bit. */
    for (int i = 0; i < N; i++)
        fsrc[i] = (float)((me % 3 == 0 ? 1e8 : me % 3 == 1 ? 1.0 : -1e8) * (i + 1) + me);
    PE_CHECK_EQ_I64(nvshmem_float_sum_reduce(mine, fdst, fsrc, N), 0);
    for (int i = 0; i < N; i++) {
        int w = leader;
        float want = (float)((w % 3 == 0 ? 1e8 : w % 3 == 1 ? 1.0 : -1e8) * (i + 1) + w);
        for (int k = 1; k < size; k++) {
            w = 2 * k + leader;
            want = want + (float)((w % 3 == 0 ? 1e8 : w % 3 == 1 ? 1.0 : -1e8) * (i + 1) + w);
        }
        PE_CHECK_EQ_FLT_BITS(fdst[i], want);
    }
    /* Broadcast from the last team rank, fcollect over the team. */
    for (int i = 0; i < N; i++)
        isrc[i] = 1000 * me + i;
    PE_CHECK_EQ_I64(nvshmem_int_broadcast(mine, idst, isrc, N, size - 1), 0);
    for (int i = 0; i < N; i++)
        PE_CHECK_EQ_I64(idst[i], 1000 * (2 * (size - 1) + leader) + i);
    PE_CHECK_EQ_I64(nvshmem_int_fcollect(mine, idst, isrc, N), 0);
    for (int k = 0; k < size; k++)
        for (int i = 0; i < N; i++)
            PE_CHECK_EQ_I64(idst[k * N + i], 1000 * (2 * k + leader) + i);
    PE_CHECK(rank >= 0);

    nvshmem_barrier_all();
    nvshmem_team_destroy(mine);
    nvshmem_free(fdst);
    nvshmem_free(fsrc);
    nvshmem_free(idst);
    nvshmem_free(isrc);
    nvshmem_free(counter);
    nvshmem_finalize();
    return 0;
}

static void test_subteam_barrier_and_collectives(void **state)
{
    (void)state;
    run_pes_each(subteam_coll_body, NULL);
}

/* ---- destroy recycles slots; bad arguments are refused ------------------------------- */

static int recycle_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    /* More splits than the team table holds, each destroyed before the next: slots come
     * back, and each new team works (a barrier and a reduction on it). */
    const int cycles = pe_check_scaled(150, 5);
    int *v = nvshmem_malloc(sizeof(int));
    int *sum = nvshmem_malloc(sizeof(int));
    for (int c = 0; c < cycles; c++) {
        int size = 1 + c % n;
        nvshmem_team_t t = NVSHMEM_TEAM_INVALID;
        PE_CHECK_EQ_I64(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, size, NULL, 0, &t),
                        0);
        if (me < size) {
            if (!PE_CHECK_MSG(t != NVSHMEM_TEAM_INVALID, "cycle %d: split failed", c))
                continue;
            *v = me + c;
            PE_CHECK_EQ_I64(nvshmem_int_sum_reduce(t, sum, v, 1), 0);
            PE_CHECK_EQ_I64(*sum, size * (size - 1) / 2 + size * c);
            nvshmem_team_destroy(t);
        } else {
            PE_CHECK_EQ_I64(t, NVSHMEM_TEAM_INVALID);
        }
    }
    nvshmem_barrier_all();
    nvshmem_free(sum);
    nvshmem_free(v);
    nvshmem_finalize();
    return 0;
}

static void test_destroy_recycles_slots(void **state)
{
    (void)state;
    run_pes_each(recycle_body, NULL);
}

static int bad_split_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int n = nvshmem_n_pes();
    nvshmem_team_t t = 12345;
    /* Runs past the parent: every PE gets non-zero and INVALID. */
    PE_CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, n + 1, NULL, 0, &t) != 0);
    PE_CHECK_EQ_I64(t, NVSHMEM_TEAM_INVALID);
    t = 12345;
    PE_CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, n, 1, 1, NULL, 0, &t) != 0);
    PE_CHECK_EQ_I64(t, NVSHMEM_TEAM_INVALID);
    t = 12345;
    PE_CHECK(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, 0, NULL, 0, &t) != 0);
    PE_CHECK_EQ_I64(t, NVSHMEM_TEAM_INVALID);
    /* The world still works afterwards. */
    PE_CHECK_EQ_I64(nvshmem_barrier(NVSHMEM_TEAM_WORLD), 0);
    nvshmem_finalize();
    return 0;
}

static void test_bad_split_is_refused(void **state)
{
    (void)state;
    static char err[16384];
    for (int i = 0; i < PE_COUNTS_N; i++) {
        run_pes_capture(pe_counts[i], bad_split_body, NULL, err, sizeof err);
        char who[64];
        snprintf(who, sizeof who, "PE %d: nvshmem_team_split_strided: ", pe_counts[i] - 1);
        assert_contains(err, who);
    }
}


/* ---- predefined teams whose members differ per PE ------------------------------------ */

static int predefined_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    /* One PE per node position and per emulated GPU: the PE alone. */
    const nvshmem_team_t alone[] = {NVSHMEMX_TEAM_SAME_MYPE_NODE, NVSHMEMI_TEAM_SAME_GPU};
    for (int i = 0; i < 2; i++) {
        nvshmem_team_t team = alone[i];
        PE_CHECK_EQ_I64(nvshmem_team_my_pe(team), 0);
        PE_CHECK_EQ_I64(nvshmem_team_n_pes(team), 1);
        PE_CHECK_EQ_I64(nvshmem_team_translate_pe(team, 0, NVSHMEM_TEAM_WORLD), me);
        PE_CHECK_EQ_I64(nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, me, team), 0);
        PE_CHECK_EQ_I64(nvshmem_team_translate_pe(NVSHMEM_TEAM_WORLD, (me + 1) % n, team),
                        n == 1 ? 0 : -1);
        /* collectives over it complete alone and see only this PE */
        PE_CHECK_EQ_I64(nvshmem_barrier(team), 0);
        int *src = nvshmem_malloc(sizeof(int)), *dst = nvshmem_malloc(sizeof(int));
        *src = 10 + me;
        *dst = -1;
        PE_CHECK_EQ_I64(nvshmem_int_sum_reduce(team, dst, src, 1), 0);
        PE_CHECK_EQ_I64(*dst, 10 + me);
        nvshmem_free(dst);
        nvshmem_free(src);
        /* a split of it is the PE alone again */
        nvshmem_team_t sub = NVSHMEM_TEAM_INVALID;
        PE_CHECK_EQ_I64(nvshmem_team_split_strided(team, 0, 1, 1, NULL, 0, &sub), 0);
        PE_CHECK_EQ_I64(nvshmem_team_translate_pe(sub, 0, NVSHMEM_TEAM_WORLD), me);
        nvshmem_team_destroy(sub);
    }
    PE_CHECK_EQ_I64(nvshmem_team_my_pe(NVSHMEMI_TEAM_GPU_LEADERS), me);
    PE_CHECK_EQ_I64(nvshmem_team_n_pes(NVSHMEMI_TEAM_GPU_LEADERS), n);
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}

static void test_per_pe_predefined_teams(void **state)
{
    (void)state;
    run_pes_each(predefined_body, NULL);
}

/* ---- nvshmem_team_split_2d ------------------------------------------------------------- */

static int split_2d_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int me = nvshmem_my_pe(), n = nvshmem_n_pes();
    const int xranges[] = {1, 2, 3, n, n + 2};
    for (int k = 0; k < 5; k++) {
        int xr = xranges[k], cols = xr < n ? xr : n;
        nvshmem_team_t x = 12345, y = 12345;
        PE_CHECK_EQ_I64(nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, xr, NULL, 0, &x, NULL, 0, &y),
                        0);
        int row = me / cols, col = me % cols;
        int row_size = n - row * cols < cols ? n - row * cols : cols;
        int col_size = (n - col + cols - 1) / cols;
        PE_CHECK_MSG(nvshmem_team_n_pes(x) == row_size, "xrange %d: x team of %d PEs, want %d",
                     xr, nvshmem_team_n_pes(x), row_size);
        PE_CHECK_MSG(nvshmem_team_my_pe(x) == col, "xrange %d: rank %d in x, want %d", xr,
                     nvshmem_team_my_pe(x), col);
        PE_CHECK_MSG(nvshmem_team_n_pes(y) == col_size, "xrange %d: y team of %d PEs, want %d",
                     xr, nvshmem_team_n_pes(y), col_size);
        PE_CHECK_MSG(nvshmem_team_my_pe(y) == row, "xrange %d: rank %d in y, want %d", xr,
                     nvshmem_team_my_pe(y), row);
        for (int j = 0; j < row_size; j++)
            PE_CHECK_EQ_I64(nvshmem_team_translate_pe(x, j, NVSHMEM_TEAM_WORLD), row * cols + j);
        for (int j = 0; j < col_size; j++)
            PE_CHECK_EQ_I64(nvshmem_team_translate_pe(y, j, NVSHMEM_TEAM_WORLD), col + j * cols);
        /* the teams work: a sum over each counts its members */
        int *one = nvshmem_malloc(sizeof(int)), *sum = nvshmem_malloc(sizeof(int));
        *one = 1;
        PE_CHECK_EQ_I64(nvshmem_int_sum_reduce(x, sum, one, 1), 0);
        PE_CHECK_EQ_I64(*sum, row_size);
        PE_CHECK_EQ_I64(nvshmem_int_sum_reduce(y, sum, one, 1), 0);
        PE_CHECK_EQ_I64(*sum, col_size);
        nvshmem_free(sum);
        nvshmem_free(one);
        nvshmem_team_destroy(x);
        nvshmem_team_destroy(y);
    }
    /* OpenSHMEM's name: the same split */
    shmem_team_t sx, sy;
    PE_CHECK_EQ_I64(shmem_team_split_2d(SHMEM_TEAM_WORLD, 2, NULL, 0, &sx, NULL, 0, &sy), 0);
    PE_CHECK_EQ_I64(shmem_team_n_pes(sx), n - (me / 2) * 2 < 2 ? 1 : 2);
    PE_CHECK_EQ_I64(shmem_team_my_pe(sy), me / 2);
    shmem_team_destroy(sx);
    shmem_team_destroy(sy);
    /* A PE outside the parent takes no part and gets INVALID twice. */
    nvshmem_team_t x = 7, y = 7;
    PE_CHECK_EQ_I64(nvshmem_team_split_2d(NVSHMEM_TEAM_INVALID, 2, NULL, 0, &x, NULL, 0, &y), 0);
    PE_CHECK_EQ_I64(x, NVSHMEM_TEAM_INVALID);
    PE_CHECK_EQ_I64(y, NVSHMEM_TEAM_INVALID);
    /* xrange < 1 is refused by every PE, with both teams INVALID. */
    x = y = 7;
    PE_CHECK(nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y) != 0);
    PE_CHECK_EQ_I64(x, NVSHMEM_TEAM_INVALID);
    PE_CHECK_EQ_I64(y, NVSHMEM_TEAM_INVALID);
    nvshmem_barrier_all();
    nvshmem_finalize();
    return 0;
}

static void test_split_2d(void **state)
{
    (void)state;
    static char err[16384];
    for (int i = 0; i < PE_COUNTS_N; i++) {
        run_pes_capture(pe_counts[i], split_2d_body, NULL, err, sizeof err);
        char who[96];
        snprintf(who, sizeof who, "PE %d: nvshmem_team_split_2d: xrange 0 is not positive",
                 pe_counts[i] - 1);
        assert_contains(err, who);
    }
}

/* Out of team slots in the middle of a 2-D split: every PE gets non-zero and INVALID, and
 * the teams the split had made are destroyed (the slots are free again afterwards). */
static int split_2d_full_body(void *arg)
{
    (void)arg;
    nvshmem_init();
    int n = nvshmem_n_pes();
    /* xrange 1: n rows and one column, n + 1 teams; leave n free slots (64 - 6 predefined) */
    enum { SLOTS = 64 - 6 };
    nvshmem_team_t hold[SLOTS];
    int held = 0;
    for (; held < SLOTS - n; held++)
        PE_CHECK_EQ_I64(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, n, NULL, 0,
                                                   &hold[held]),
                        0);
    nvshmem_team_t x = 7, y = 7;
    PE_CHECK(nvshmem_team_split_2d(NVSHMEM_TEAM_WORLD, 1, NULL, 0, &x, NULL, 0, &y) != 0);
    PE_CHECK_EQ_I64(x, NVSHMEM_TEAM_INVALID);
    PE_CHECK_EQ_I64(y, NVSHMEM_TEAM_INVALID);
    /* the n row teams it had made are free again: n more splits succeed */
    for (int i = 0; i < n; i++) {
        nvshmem_team_t t = NVSHMEM_TEAM_INVALID;
        PE_CHECK_EQ_I64(nvshmem_team_split_strided(NVSHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t), 0);
        hold[held++] = t;
    }
    for (int i = 0; i < held; i++)
        nvshmem_team_destroy(hold[i]);
    nvshmem_finalize();
    return 0;
}

static void test_split_2d_out_of_slots(void **state)
{
    (void)state;
    static char err[16384];
    run_pes_capture(3, split_2d_full_body, NULL, err, sizeof err);
    assert_contains(err, "nvshmem_team_split_2d: all 64 team slots are in use");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_even_odd_queries),
        cmocka_unit_test(test_subteam_barrier_and_collectives),
        cmocka_unit_test(test_destroy_recycles_slots),
        cmocka_unit_test(test_bad_split_is_refused),
        cmocka_unit_test(test_per_pe_predefined_teams),
        cmocka_unit_test(test_split_2d),
        cmocka_unit_test(test_split_2d_out_of_slots),
    };
    return cmocka_run_group_tests_name("team", tests, NULL, NULL);
}
