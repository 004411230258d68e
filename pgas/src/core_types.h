/*
 * core_types.h: the core entries that only the OpenSHMEM layer calls, and the reduction
 * combiners.
 *
 * OpenSHMEM 1.5 has types NVSHMEM lacks (long double in RMA and collectives, the complex
 * types in sum/prod; shmemu/typelists.h's SHMEMU_SHMEM_*_EXTRA_TYPES). rma.c and
 * collective.c define their core entries with the same macros as NVSHMEM's, under the
 * nvshmem_ names (so that messages name the shmem_ call on an OpenSHMEM PE, as for every
 * other type), but nvshmem.h does not declare them: they are no part of the NVSHMEM API.
 *
 * pgas_combine_NAME_OP (collective.c) combines n elements of one type, acc[i] op= in[i]; the
 * team reductions and the active-set *_to_all reductions (shmem_deprecated.c) share them.
 */
#ifndef PGAS_CORE_TYPES_H
#define PGAS_CORE_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "nvshmem.h"
#include "shmemu/typelists.h"

/* With nvshmem.h's own declaration macros, so the two cannot differ. */
SHMEMU_SHMEM_RMA_EXTRA_TYPES(SHMEMU_DECLARE_RMA)
SHMEMU_SHMEM_RMA_EXTRA_TYPES(SHMEMU_DECLARE_COLL)

#define PGAS_DECLARE_EXTRA_REDUCE(TYPE, NAME, OP)                                             \
    int nvshmem_##NAME##_##OP##_reduce(nvshmem_team_t team, TYPE *dest, const TYPE *source,   \
                                       size_t nreduce);                                       \
    int nvshmem_##NAME##_##OP##_reducescatter(nvshmem_team_t team, TYPE *dest,                \
                                              const TYPE *source, size_t nreduce);
#define PGAS_DECLARE_EXTRA_MINMAX(TYPE, NAME)                                                 \
    SHMEMU_REDUCE_ARITH_OPS(PGAS_DECLARE_EXTRA_REDUCE, TYPE, NAME)
SHMEMU_SHMEM_REDUCE_MINMAX_EXTRA_TYPES(PGAS_DECLARE_EXTRA_MINMAX)
#define PGAS_DECLARE_EXTRA_COMPLEX(TYPE, NAME)                                                \
    PGAS_DECLARE_EXTRA_REDUCE(TYPE, NAME, sum) PGAS_DECLARE_EXTRA_REDUCE(TYPE, NAME, prod)
SHMEMU_SHMEM_REDUCE_COMPLEX_TYPES(PGAS_DECLARE_EXTRA_COMPLEX)
#undef PGAS_DECLARE_EXTRA_COMPLEX
#undef PGAS_DECLARE_EXTRA_MINMAX
#undef PGAS_DECLARE_EXTRA_REDUCE

/* ---- combiners ----------------------------------------------------------------------- */

#define PGAS_DECLARE_COMBINER(TYPE, NAME, OP)                                                 \
    void pgas_combine_##NAME##_##OP(void *acc, const void *in, size_t n);
#define PGAS_DECLARE_COMBINERS_BITWISE(TYPE, NAME)                                            \
    SHMEMU_REDUCE_BITWISE_OPS(PGAS_DECLARE_COMBINER, TYPE, NAME)
#define PGAS_DECLARE_COMBINERS_ARITH(TYPE, NAME)                                              \
    SHMEMU_REDUCE_ARITH_OPS(PGAS_DECLARE_COMBINER, TYPE, NAME)
#define PGAS_DECLARE_COMBINERS_COMPLEX(TYPE, NAME)                                            \
    PGAS_DECLARE_COMBINER(TYPE, NAME, sum) PGAS_DECLARE_COMBINER(TYPE, NAME, prod)
SHMEMU_REDUCE_BITWISE_TYPES(PGAS_DECLARE_COMBINERS_BITWISE)
SHMEMU_SHMEM_REDUCE_MINMAX_TYPES(PGAS_DECLARE_COMBINERS_ARITH)
SHMEMU_SHMEM_REDUCE_COMPLEX_TYPES(PGAS_DECLARE_COMBINERS_COMPLEX)
#undef PGAS_DECLARE_COMBINERS_COMPLEX
#undef PGAS_DECLARE_COMBINERS_ARITH
#undef PGAS_DECLARE_COMBINERS_BITWISE
#undef PGAS_DECLARE_COMBINER

#endif
