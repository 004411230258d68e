/*
 * fuzz_cg_mtx.c: libFuzzer harness for the CG app's Matrix Market reader (cg_mtx_parse,
 * cg/src/mtx.c: a function over a buffer that need not be NUL-terminated).
 *
 *   srcs=$(ls cg/src/[a-z]*.c | grep -v /main)
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=c17 \
 *       -ffp-contract=off -D_GNU_SOURCE -pthread -Icg/include fuzz/fuzz_cg_mtx.c $srcs \
 *       -lm -o fuzz_cg_mtx
 *   mkdir -p work && ./fuzz_cg_mtx -max_len=4096 -dict=fuzz/fuzz_cg_mtx.dict work fuzz/corpus/fuzz_cg_mtx
 *
 * Every input must be accepted or refused with a message that names the input ("fuzz:").
 * An accepted matrix must hold cg/matrix.h's invariants (cg_csr_check: square, n >= 1,
 * columns strictly increasing and in range, finite values, symmetric, every diagonal
 * entry positive), have no more entries than the input has bytes (memory is bounded by the
 * input), and, when small, survive the rest of the pipeline: a 3-part halo plan and a few
 * CG iterations (which may break down on an indefinite matrix, never crash).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cg/matrix.h"
#include "cg/plan.h"
#include "cg/solve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cg_csr a;
    cg_mtx_info info;
    cg_error err;
    err.msg[0] = '\0';
    if (cg_mtx_parse((const char *)data, size, "fuzz", &a, &info, &err) != 0) {
        if (strncmp(err.msg, "fuzz:", 5) != 0)
            abort();
        return 0;
    }
    if (cg_csr_check(&a, &err) != 0 || a.nnz > (int64_t)size || info.entries < a.n)
        abort();
    if (a.n <= 64) {
        cg_plan pl;
        if (cg_plan_contiguous(&a, a.n < 3 ? a.n : 3, &pl, &err) != 0)
            abort();
        int32_t ghosts = 0;
        for (int p = 0; p < pl.nparts; p++)
            ghosts += pl.parts[p].n_ghost;
        if (pl.owner[0] != 0 || pl.owner[a.n - 1] != pl.nparts - 1 || ghosts < 0)
            abort();
        cg_plan_free(&pl);
        double b[64], x[64], hist[9];
        for (int32_t i = 0; i < a.n; i++)
            b[i] = 1.0;
        cg_result res;
        cg_solve_serial(&a, b, x, 1e-8, 8, hist, &res);
        if (res.iterations > 8)
            abort();
    }
    cg_csr_free(&a);
    return 0;
}
