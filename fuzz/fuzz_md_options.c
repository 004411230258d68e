/*
 * fuzz_md_options.c: libFuzzer harness for the command line of shmemu-md
 * (md_options_parse in md/src/options.c: --dd, --cells, every numeric option, the io
 * options of md/src/io.c). The input is the argument list, one argument per line.
 *
 *   srcs=$(ls md/src/[a-z]*.c | grep -v -e /main -e '/par[._]' -e '/check\.c')
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=c17 \
 *       -ffp-contract=off -D_GNU_SOURCE -pthread -Ipgas/include -Iemu/include -Imd/include \
 *       -Imd/src fuzz/fuzz_md_options.c $srcs -lm -o fuzz_md_options
 *   mkdir -p work && ./fuzz_md_options -max_len=512 -dict=fuzz/fuzz_md_options.dict work fuzz/corpus/fuzz_md_options
 *
 * Every argument list must be accepted or rejected with a message; an accepted one must
 * describe something a driver can start from (a PE count from 1 to MD_OPTIONS_MAX_PES,
 * positive cell counts and nstlist), and the checks every driver then makes
 * (md_params_check, md_lattice_check in md/src/params.c) must accept it with finite
 * positive rc and dt and a finite skin >= 0, or refuse it with a message.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_args.h"
#include "options.h"
#include "params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_args a;
    fuzz_argv(&a, "shmemu-md", data, size);
    md_options o;
    md_error err;
    err.msg[0] = '\0';
    if (md_options_parse(a.argc, a.argv, &o, &err) == 0) {
        if (o.dd.pes < 1 || o.dd.pes > MD_OPTIONS_MAX_PES || o.par.nstlist < 1)
            abort();
        for (int d = 0; d < 3; d++)
            if (o.lat.cells[d] < 1 || o.dd.grid[d] < 0)
                abort();
        /* what every driver then checks (params.c): accepts, or refuses with a message */
        err.msg[0] = '\0';
        if (md_params_check(&o.par, NULL, &err) == 0) {
            if (!isfinite(o.par.rc) || !(o.par.rc > 0) || !isfinite(o.par.skin) ||
                !(o.par.skin >= 0) || !isfinite(o.par.dt) || !(o.par.dt > 0))
                abort();
        } else if (err.msg[0] == '\0') {
            abort();
        }
        err.msg[0] = '\0';
        if (md_lattice_check(&o.lat, o.par.dt, &err) != 0 && err.msg[0] == '\0')
            abort();
    } else if (err.msg[0] == '\0') {
        abort();
    }
    fuzz_args_free(&a);
    return 0;
}
