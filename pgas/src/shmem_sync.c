/*
 * shmem_sync.c: OpenSHMEM point-to-point synchronization (wait_until and test in all their
 * forms, signal_wait_until), ordering (fence, quiet) and barriers.
 *
 * Every comparison is translated from SHMEM_CMP_* to NVSHMEM_CMP_* before the nvshmem_
 * routine sees it (shmem_internal.h), and an unknown one is reported as misuse of the shmem_
 * call, even when nelems is 0 or status excludes every element: a wrong constant is a bug
 * whatever the data.
 */
#include "shmem_internal.h"

/* ---- signals ------------------------------------------------------------------------- */

uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    int nv_cmp = pgas_shmem_cmp(cmp, "shmem_signal_wait_until");
    return nvshmem_signal_wait_until(sig_addr, nv_cmp, cmp_value);
}

/* ---- wait_until and test ------------------------------------------------------------- */

#define SHMEMU_SHMEM_DEFINE_WAIT(TYPE, NAME)                                                  \
    void shmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value)                       \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_wait_until");                            \
        nvshmem_##NAME##_wait_until(ivar, c, cmp_value);                                      \
    }                                                                                         \
    void shmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems, const int *status,         \
                                       int cmp, TYPE cmp_value)                               \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_wait_until_all");                        \
        nvshmem_##NAME##_wait_until_all(ivars, nelems, status, c, cmp_value);                 \
    }                                                                                         \
    size_t shmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems, const int *status,       \
                                         int cmp, TYPE cmp_value)                             \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_wait_until_any");                        \
        return nvshmem_##NAME##_wait_until_any(ivars, nelems, status, c, cmp_value);          \
    }                                                                                         \
    size_t shmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems, size_t *indices,        \
                                          const int *status, int cmp, TYPE cmp_value)         \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_wait_until_some");                       \
        return nvshmem_##NAME##_wait_until_some(ivars, nelems, indices, status, c,            \
                                                cmp_value);                                   \
    }                                                                                         \
    void shmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems, const int *status,  \
                                              int cmp, TYPE *cmp_values)                      \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_wait_until_all_vector");                 \
        nvshmem_##NAME##_wait_until_all_vector(ivars, nelems, status, c, cmp_values);         \
    }                                                                                         \
    size_t shmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,                   \
                                                const int *status, int cmp,                   \
                                                TYPE *cmp_values)                             \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_wait_until_any_vector");                 \
        return nvshmem_##NAME##_wait_until_any_vector(ivars, nelems, status, c, cmp_values);  \
    }                                                                                         \
    size_t shmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems, size_t *indices, \
                                                 const int *status, int cmp,                  \
                                                 TYPE *cmp_values)                            \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_wait_until_some_vector");                \
        return nvshmem_##NAME##_wait_until_some_vector(ivars, nelems, indices, status, c,     \
                                                       cmp_values);                           \
    }                                                                                         \
    int shmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value)                              \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_test");                                  \
        return nvshmem_##NAME##_test(ivar, c, cmp_value);                                     \
    }                                                                                         \
    int shmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status, int cmp,       \
                                TYPE cmp_value)                                               \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_test_all");                              \
        return nvshmem_##NAME##_test_all(ivars, nelems, status, c, cmp_value);                \
    }                                                                                         \
    size_t shmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status, int cmp,    \
                                   TYPE cmp_value)                                            \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_test_any");                              \
        return nvshmem_##NAME##_test_any(ivars, nelems, status, c, cmp_value);                \
    }                                                                                         \
    size_t shmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices,              \
                                    const int *status, int cmp, TYPE cmp_value)               \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_test_some");                             \
        return nvshmem_##NAME##_test_some(ivars, nelems, indices, status, c, cmp_value);      \
    }                                                                                         \
    int shmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems, const int *status,         \
                                       int cmp, TYPE *cmp_values)                             \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_test_all_vector");                       \
        return nvshmem_##NAME##_test_all_vector(ivars, nelems, status, c, cmp_values);        \
    }                                                                                         \
    size_t shmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems, const int *status,      \
                                          int cmp, TYPE *cmp_values)                          \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_test_any_vector");                       \
        return nvshmem_##NAME##_test_any_vector(ivars, nelems, status, c, cmp_values);        \
    }                                                                                         \
    size_t shmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems, size_t *indices,       \
                                           const int *status, int cmp, TYPE *cmp_values)      \
    {                                                                                         \
        int c = pgas_shmem_cmp(cmp, "shmem_" #NAME "_test_some_vector");                      \
        return nvshmem_##NAME##_test_some_vector(ivars, nelems, indices, status, c,           \
                                                 cmp_values);                                 \
    }
SHMEMU_WAIT_TYPES(SHMEMU_SHMEM_DEFINE_WAIT)
#undef SHMEMU_SHMEM_DEFINE_WAIT

/* ---- ordering and barriers ----------------------------------------------------------- */

void shmem_fence(void) { nvshmem_fence(); }

void shmem_quiet(void) { nvshmem_quiet(); }

void shmem_barrier_all(void) { nvshmem_barrier_all(); }

void shmem_sync_all(void) { nvshmem_sync_all(); }

int shmem_team_sync(shmem_team_t team)
{
    return nvshmem_team_sync(pgas_shmem_team_id(team, "shmem_team_sync"));
}
