/*
 * options.c: command-line parsing for bin/shmemu-cg (the house style of md/src/options.c:
 * "--name value" and "--name=value", each error naming the option, the value and what to
 * give). Options of solvers that are not built yet are refused by name, never ignored;
 * an option that the chosen solver would not read is refused too.
 */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void cg_options_usage(FILE *f)
{
    fputs(
        "usage: shmemu-cg [options]\n"
        "\n"
        "Conjugate gradient on a symmetric positive definite matrix (paper 002, docs/cg.md),\n"
        "solving A x = b for a manufactured solution x* (random, unit 2-norm, from --seed;\n"
        "b = A x*) from x0 = 0. Every dot product and norm is exact and rounded once, so\n"
        "the result's bits do not depend on how the sums are ordered or split.\n"
        "\n"
        "matrix (exactly one):\n"
        "  --matrix FILE.mtx     Matrix Market file: coordinate real|integer|pattern,\n"
        "                        symmetric (lower triangle) or general that is symmetric\n"
        "  --poisson1d N         1-D Poisson, N points: tridiagonal 2, -1 (paper 002)\n"
        "  --poisson2d N         2-D 5-point Poisson on an N x N grid\n"
        "  --poisson3d N         3-D 7-point Poisson on an N x N x N grid\n"
        "solver:\n"
        "  --solver serial       the plain reference (default)\n"
        "  --solver cg-mono      one cooperative kernel per PE for the whole solve (paper\n"
        "                        002 Listing 3) on the emulated GPU; bit-identical to serial\n"
        "  --solver cg-host      CPU-initiated (paper 002 Listing 2): a kernel per operation\n"
        "                        launched by each PE's host thread, the halo on a second\n"
        "                        stream; bit-identical to serial\n"
        "  --solver pcg-mono     pipelined CG (Ghysels-Vanroose) in one kernel per PE: one\n"
        "                        reduction per iteration, overlapping the halo and SpMV;\n"
        "                        a different recurrence, bit-identical to pcg-serial\n"
        "  --solver pcg-serial   pipelined CG on one core (pcg-mono's reference)\n"
        "  --solver halo-loop    not CG: the halo-only loop, --iters times u <- u - w A u\n"
        "                        with cg-mono's halo and no reduction (the credit test)\n"
        "  --solver halo-serial  the same loop on one core (its reference)\n"
        "  --iters N             iterations of the halo-only loop (default 50)\n"
        "  --reduce sync|stream  cg-host's reductions: the host waits and reduces (sync,\n"
        "                        default), or on the stream with no host wait (stream)\n"
        "  --pes N               PEs (threads of one job) of cg-mono, cg-host, pcg-mono,\n"
        "                        halo-loop (default 1; up to 64)\n"
        "  --partition contiguous|metis  the rows' split over the PEs: ranges of rows\n"
        "                        (default), or METIS_PartGraphRecursive on the matrix graph\n"
        "                        (fewer ghost values; the same bits)\n"
        "  --transport signal|direct|auto  the halo of cg-mono, pcg-mono, halo-loop:\n"
        "                        put-with-signal (default, paper 002), stores into the\n"
        "                        receiver through nvshmem_ptr with a release-store signal,\n"
        "                        or direct where nvshmem_ptr reaches the receiver (the same\n"
        "                        bits)\n"
        "  --blocks N            blocks of each kernel per PE (default 2; up to 64)\n"
        "  --threads N           threads per block (default 64; up to 1024)\n"
        "  --tol T               stop when ||r_k|| <= T ||r_0|| (default 1e-8; 0 < T < 1)\n"
        "  --max-iter N          at most N iterations (default 10000)\n"
        "  --seed S              seed of x* (default 1)\n"
        "  --history             print 'residual k R' for every iteration k\n"
        "  --list-bugs           the catalogue of planted protocol bugs, then exit\n"
        "  --help                this text\n"
        "  SHMEMU_BUG=NAME       (environment) plant one bug of --list-bugs\n"
        "\n"
        "Output: a header (# lines), 'iterations N residual R error E' (R = ||r_N|| / ||r_0||\n"
        "from the recurrence, E = ||x - x*||), and as the last line 'checksum <16 hex\n"
        "digits>' (FNV-1a of x's bits). Time per iteration and paper 002's FLOP/byte model\n"
        "go to standard error. Exit status 0 when converged, 1 when not (or on a breakdown:\n"
        "the matrix is not positive definite), 2 for a bad option or input.\n",
        f);
}

static int parse_long(const char *opt, const char *v, long long lo, long long hi,
                      long long *out, cg_error *err)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    if (end == v || *end != '\0' || errno == ERANGE || x < lo || x > hi)
        return cg_fail(err, "%s '%s': give a whole number from %lld to %lld", opt, v, lo, hi);
    *out = x;
    return 0;
}

int cg_options_parse(int argc, char **argv, cg_options *o, cg_error *err)
{
    memset(o, 0, sizeof *o);
    o->tol = 1e-8;
    o->max_iter = 10000;
    o->iters = 50;
    o->seed = 1;
    o->pes = 1;
    const char *source_opt = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0)
            return cg_fail(err, "unexpected argument '%s'; options start with --", a);
        char name[64];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a) : strlen(a);
        if (nl >= sizeof name)
            return cg_fail(err, "unknown option '%s'", a);
        memcpy(name, a, nl);
        name[nl] = '\0';
        if (eq)
            val = eq + 1;
        static const char *const flags[] = {"--help", "--history", "--list-bugs"};
        static const char *const valued[] = {"--matrix", "--poisson1d", "--poisson2d",
                                             "--poisson3d", "--solver", "--tol", "--max-iter",
                                             "--seed", "--pes", "--blocks", "--threads",
                                             "--reduce", "--iters", "--partition",
                                             "--transport"};
        bool is_flag = false, known = false;
        for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
            is_flag |= strcmp(name, flags[k]) == 0;
        for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
            known |= strcmp(name, valued[k]) == 0;
        if (!is_flag && !known)
            return cg_fail(err, "unknown option '%s'", name);
        if (is_flag) {
            if (val)
                return cg_fail(err, "%s takes no value", name);
        } else if (!val) {
            if (i + 1 >= argc)
                return cg_fail(err, "%s needs a value", name);
            val = argv[++i];
        }
        long long l;
        if (!strcmp(name, "--help")) {
            o->help = true;
        } else if (!strcmp(name, "--history")) {
            o->history = true;
        } else if (!strcmp(name, "--list-bugs")) {
            o->list_bugs = true;
        } else if (!strcmp(name, "--iters")) {
            if (parse_long(name, val, 0, 100000000, &l, err) != 0)
                return -1;
            o->iters = l;
            o->iters_given = true;
        } else if (!strcmp(name, "--matrix") || !strncmp(name, "--poisson", 9)) {
            if (source_opt)
                return cg_fail(err, "%s and %s: give one matrix", source_opt, name);
            source_opt = name[2] == 'm' ? "--matrix" : name[9] == '1' ? "--poisson1d"
                         : name[9] == '2' ? "--poisson2d" : "--poisson3d";
            if (name[2] == 'm') {
                if (val[0] == '\0')
                    return cg_fail(err, "--matrix needs a file name");
                o->source = CG_SRC_MTX;
                o->matrix = val;
            } else {
                if (parse_long(name, val, 1, CG_MAX_ROWS, &l, err) != 0)
                    return -1;
                o->grid = (long)l;
                o->source = name[9] == '1' ? CG_SRC_P1 : name[9] == '2' ? CG_SRC_P2 : CG_SRC_P3;
            }
        } else if (!strcmp(name, "--solver")) {
            if (!strcmp(val, "serial"))
                o->solver = CG_SOLVER_SERIAL;
            else if (!strcmp(val, "cg-mono"))
                o->solver = CG_SOLVER_MONO;
            else if (!strcmp(val, "cg-host"))
                o->solver = CG_SOLVER_HOST;
            else if (!strcmp(val, "pcg-mono"))
                o->solver = CG_SOLVER_PCG_MONO;
            else if (!strcmp(val, "pcg-serial"))
                o->solver = CG_SOLVER_PCG_SERIAL;
            else if (!strcmp(val, "halo-loop"))
                o->solver = CG_SOLVER_HALO_LOOP;
            else if (!strcmp(val, "halo-serial"))
                o->solver = CG_SOLVER_HALO_SERIAL;
            else
                return cg_fail(err, "--solver '%s': give serial, cg-mono, cg-host, pcg-mono "
                               "or pcg-serial (or halo-loop, halo-serial)", val);
        } else if (!strcmp(name, "--reduce")) {
            if (!strcmp(val, "sync"))
                o->reduce = CG_REDUCE_SYNC;
            else if (!strcmp(val, "stream"))
                o->reduce = CG_REDUCE_STREAM;
            else
                return cg_fail(err, "--reduce '%s': give sync (the host waits and reduces) or "
                               "stream (reductions queued on the stream)", val);
            o->reduce_given = true;
        } else if (!strcmp(name, "--partition")) {
            if (!strcmp(val, "contiguous"))
                o->partition = CG_PARTITION_CONTIGUOUS;
            else if (!strcmp(val, "metis"))
                o->partition = CG_PARTITION_METIS;
            else
                return cg_fail(err, "--partition '%s': give contiguous (row ranges) or metis "
                               "(METIS_PartGraphRecursive)", val);
            if (o->partition == CG_PARTITION_METIS && cg_metis_require(err) != 0)
                return -1;
            o->partition_given = true;
        } else if (!strcmp(name, "--transport")) {
            if (!strcmp(val, "signal"))
                o->transport = CG_TRANSPORT_SIGNAL;
            else if (!strcmp(val, "direct"))
                o->transport = CG_TRANSPORT_DIRECT;
            else if (!strcmp(val, "auto"))
                o->transport = CG_TRANSPORT_AUTO;
            else
                return cg_fail(err, "--transport '%s': give signal (put-with-signal), direct "
                               "(stores through nvshmem_ptr) or auto (direct where nvshmem_ptr "
                               "reaches the receiver)", val);
            o->transport_given = true;
        } else if (!strcmp(name, "--pes")) {
            if (parse_long(name, val, 1, CG_PAR_MAX_PES, &l, err) != 0)
                return -1;
            o->pes = (int)l;
        } else if (!strcmp(name, "--blocks")) {
            if (parse_long(name, val, 1, CG_PAR_MAX_BLOCKS, &l, err) != 0)
                return -1;
            o->blocks = (int)l;
        } else if (!strcmp(name, "--threads")) {
            if (parse_long(name, val, 1, CG_PAR_MAX_THREADS, &l, err) != 0)
                return -1;
            o->threads = (int)l;
        } else if (!strcmp(name, "--tol")) {
            char *end;
            errno = 0;
            double t = strtod(val, &end);
            if (end == val || *end != '\0' || errno == ERANGE || !(t > 0) || !(t < 1))
                return cg_fail(err, "--tol '%s': give a number between 0 and 1 (exclusive), "
                               "e.g. 1e-8", val);
            o->tol = t;
        } else if (!strcmp(name, "--max-iter")) {
            if (parse_long(name, val, 1, LLONG_MAX / 2, &l, err) != 0)
                return -1;
            o->max_iter = l;
        } else if (!strcmp(name, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 10);
            if (end == val || *end != '\0' || errno == ERANGE || val[0] == '-')
                return cg_fail(err, "--seed '%s': give a non-negative whole number", val);
            o->seed = s;
        }
    }
    if (o->history && o->max_iter > 10000000)
        return cg_fail(err, "--history keeps every iteration's residual: give --max-iter up "
                       "to 10000000 with it");
    const bool halo = o->solver == CG_SOLVER_HALO_LOOP || o->solver == CG_SOLVER_HALO_SERIAL;
    if (o->iters_given && !halo)
        return cg_fail(err, "--iters is an option of the halo-only loop: give --solver "
                       "halo-loop or halo-serial with it, or leave it out (CG stops by --tol "
                       "and --max-iter)");
    if (halo && o->history)
        return cg_fail(err, "--history: the halo-only loop has no residual: leave it out");
    if (o->solver == CG_SOLVER_HALO_SERIAL && (o->pes > 1 || o->blocks || o->threads))
        return cg_fail(err, "%s: halo-serial runs on one core: give --solver halo-loop with "
                       "it, or leave it out",
                       o->pes > 1 ? "--pes" : o->blocks ? "--blocks" : "--threads");
    if (o->solver == CG_SOLVER_SERIAL && (o->pes > 1 || o->blocks || o->threads))
        return cg_fail(err, "%s: the serial solver runs on one PE with no kernel: give "
                       "--solver cg-mono or cg-host with it, or leave it out",
                       o->pes > 1 ? "--pes" : o->blocks ? "--blocks" : "--threads");
    if (o->solver == CG_SOLVER_PCG_SERIAL && (o->pes > 1 || o->blocks || o->threads))
        return cg_fail(err, "%s: pcg-serial runs on one PE with no kernel: give --solver "
                       "pcg-mono with it, or leave it out",
                       o->pes > 1 ? "--pes" : o->blocks ? "--blocks" : "--threads");
    const bool on_pes = o->solver == CG_SOLVER_MONO || o->solver == CG_SOLVER_HOST ||
                        o->solver == CG_SOLVER_PCG_MONO || o->solver == CG_SOLVER_HALO_LOOP;
    if (o->partition_given && !on_pes)
        return cg_fail(err, "--partition splits the rows over the PEs of cg-mono, cg-host, "
                       "pcg-mono or halo-loop: give one of them with it, or leave it out");
    if (o->transport_given && o->solver != CG_SOLVER_MONO && o->solver != CG_SOLVER_PCG_MONO &&
        o->solver != CG_SOLVER_HALO_LOOP)
        return cg_fail(err, "--transport is an option of the monolithic kernels' halo: give "
                       "--solver cg-mono, pcg-mono or halo-loop with it, or leave it out "
                       "(cg-host's host puts are put-with-signal)");
    if (o->reduce_given && o->solver != CG_SOLVER_HOST)
        return cg_fail(err, "--reduce is an option of cg-host: give --solver cg-host with it, "
                       "or leave it out");
    if (!o->help && !o->list_bugs && o->source == CG_SRC_NONE)
        return cg_fail(err, "no matrix: give --matrix FILE.mtx, --poisson1d N, --poisson2d N "
                       "or --poisson3d N");
    return 0;
}
