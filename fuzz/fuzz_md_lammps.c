/*
 * fuzz_md_lammps.c: libFuzzer harness for the LAMMPS data file parser of md/
 * (md_lammps_parse is a function over a buffer that need not be NUL-terminated).
 *
 *   srcs=$(ls md/src/[a-z]*.c | grep -v -e /main -e '/par[._]' -e '/check\.c')
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=c17 \
 *       -ffp-contract=off -D_GNU_SOURCE -pthread -Ipgas/include -Iemu/include -Imd/include \
 *       -Imd/src fuzz/fuzz_md_lammps.c $srcs -lm -o fuzz_md_lammps
 *   mkdir -p work && ./fuzz_md_lammps -max_len=4096 work fuzz/corpus/fuzz_md_lammps
 *
 * Every input must be accepted (a consistent system) or rejected with a message that names
 * the input; anything else (a crash, an overread, a silent empty message) is a finding.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shmemu/md.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    md_system sys;
    md_error err;
    err.msg[0] = '\0';
    if (md_lammps_parse((const char *)data, size, "fuzz", 0.005, &sys, &err) == 0) {
        if (sys.atoms.n < 1 || sys.ntypes < 1)
            abort();
        for (int32_t i = 0; i < sys.atoms.n; i++)
            for (int d = 0; d < 3; d++)
                if (sys.atoms.x[d][i] < 0 || sys.atoms.x[d][i] >= sys.box.len[d])
                    abort();
        md_system_free(&sys);
    } else if (strncmp(err.msg, "fuzz", 4) != 0) {
        abort();
    }
    return 0;
}
