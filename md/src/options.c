/*
 * options.c: command-line parsing for bin/shmemu-md. "--name value" and "--name=value".
 */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void md_options_usage(FILE *f)
{
    fputs(
        "usage: shmemu-md [options]\n"
        "\n"
        "Lennard-Jones MD (reduced units, velocity Verlet NVE, periodic box) with a GROMACS-\n"
        "style domain decomposition whose PEs are threads of this process, exchanging\n"
        "halos with GPU-style kernels (paper 000, docs/papers.md). Every decomposition,\n"
        "halo variant and transport gives the same bits: the checksum of positions,\n"
        "momenta and forces printed on each thermo line is the same for any --pes/--dd.\n"
        "\n"
        "system (an fcc lattice unless --data is given):\n"
        "  --cells N | X,Y,Z     fcc unit cells, 4 atoms each (default 5)\n"
        "  --density RHO         atoms per sigma^3 (default 0.8442); at most 11.3 (fcc\n"
        "                        neighbours no closer than 0.5 sigma)\n"
        "  --temperature T       initial temperature (default 1.44); at most 806, and at\n"
        "                        most 20.7 at dt 0.005 (collisions of 20 kT stay beyond\n"
        "                        0.5 sigma; a higher T needs a smaller --dt)\n"
        "  --seed S              velocity seed (default 12345)\n"
        "  --data FILE           LAMMPS data file, atom_style atomic\n"
        "run (limits and why: docs/md.md; every driver checks them the same way):\n"
        "  --steps N             steps: the run ends at step N (default 100)\n"
        "  --dt DT               time step, tau (default 0.005); below 0.187 sqrt(m) (Verlet\n"
        "                        stability, m the lightest mass), large enough that momenta\n"
        "                        fit 2^52 units of dt/2 * 2^-32\n"
        "  --rc RC               LJ cut-off, sigma (default 2.5); above 0.5 (closer pairs\n"
        "                        are refused), rc + skin below half of every box edge\n"
        "  --skin S              pair-list buffer, sigma (default 0.3); 0 or more\n"
        "  --nstlist N           steps between pair searches (default 20)\n"
        "  --shift               shift the LJ energy to 0 at the cut-off\n"
        "  --thermo N            thermo line every N steps; 0: first and last (default 10)\n"
        "decomposition and halo exchange:\n"
        "  --pes N               PEs (default 1, or the product of --dd; at most 4096): threads\n"
        "                        of this process, or processes with SHMEMU_BACKEND=process\n"
        "  --dd AxBxC            domains along x, y, z (default: chosen from --pes and the box)\n"
        "  --dim-order zyx|xyz   pulse order of the dimensions (default zyx, as paper 000)\n"
        "  --halo fused|pulse|host|mpi|direct26|serial  halo kernels: fused (paper 000\n"
        "                        Alg. 3-6, default), one kernel per pulse, the CPU-initiated\n"
        "                        baseline (per pulse: pack kernel, host waits, host put,\n"
        "                        barrier, unpack kernel; paper 000 Fig. 1), the same with\n"
        "                        MPI (mpi: persistent MPI_Send_init/MPI_Recv_init requests\n"
        "                        started per pulse, MPI_Waitall, no barrier; every PE an\n"
        "                        MPI rank: mpirun -np N shmemu-md --pes N ..., or\n"
        "                        SHMEMU_BACKEND=mpi), HOOMD-blue's direct exchange\n"
        "                        (direct26: ghosts to up to 26 neighbours\n"
        "                        in one phase, no forces returned: each PE computes every\n"
        "                        pair of its home atoms; domains at least the halo deep),\n"
        "                        or the serial reference driver (every PE simulated in one\n"
        "                        thread, no kernels: it refuses --transport, --force-kernel,\n"
        "                        --bulk-copy, --graph, --timing and SHMEMU_REPLAY, which it\n"
        "                        would ignore)\n"
        "  --transport direct|signal|auto  halo transport per pulse: direct stores through\n"
        "                        nvshmem_ptr, put-with-signal, or direct where nvshmem_ptr\n"
        "                        gives the peer (auto, default); --halo mpi: signal's\n"
        "                        staging, every byte through MPI (direct is refused)\n"
        "  --force-kernel loop|threads|auto  non-bonded kernels: the pair loop on a few\n"
        "                        one-thread blocks, or a thread per pair-list entry; auto\n"
        "                        (default): loop on the CPU build, threads on a GPU (the\n"
        "                        same bits either way)\n"
        "  --bulk-copy on|off|auto  direct transport: move the coordinates out and the\n"
        "                        returned forces in with bulk copies (TMA: tma_st/tma_ld\n"
        "                        through shared memory, as paper 000 on NVLink) instead of\n"
        "                        plain stores and loads; auto (default): on in the CUDA\n"
        "                        build, off on the CPU build (the same bits either way)\n"
        "  --mpi-staging on|off|auto  --halo mpi: hand MPI host copies of the device\n"
        "                        buffers (cudaMemcpy before each send, after each receive:\n"
        "                        an MPI that is not CUDA-aware) or the buffers themselves;\n"
        "                        auto (default): on in the CUDA build when MPI is not\n"
        "                        CUDA-aware, off on the CPU build (the same bits either way)\n"
        "  --graph               CUDA build: capture each step without a pair search as a\n"
        "                        CUDA graph and launch it whole (not with --halo host\n"
        "                        or mpi)\n"
        "output and restart (every driver writes the same bytes; a restart may change\n"
        "--pes, --dd, --halo and --transport):\n"
        "  --dump FILE           trajectory frames, atoms in id order, positions wrapped,\n"
        "                        %.17g (exact); format from the name: .xyz (extended XYZ)\n"
        "                        or .lammpstrj/.dump (LAMMPS dump); each frame is written\n"
        "                        whole, so a crash never damages earlier frames\n"
        "  --dump-every N        a frame every N steps (default 100)\n"
        "  --dump-format F       xyz or lammps, whatever the name\n"
        "  --checkpoint FILE     exact binary state (written to a temporary file, synced,\n"
        "                        renamed): at the run's last pair-search step, and every\n"
        "                        --checkpoint-every steps\n"
        "  --checkpoint-every N  a multiple of --nstlist: checkpoints are exact only at\n"
        "                        search steps (default 0: at the end only)\n"
        "  --restart FILE        continue from a checkpoint to step --steps; the same system\n"
        "                        and --rc --skin --nstlist --dt --shift are required, any\n"
        "                        --pes/--dd: every checksum equals the uninterrupted run's\n"
        "  --progress            a progress line on standard error every 5 s (the default\n"
        "                        when standard error is a terminal); --no-progress: never\n"
        "checking:\n"
        "  --check               brute-force oracles every step: pair lists complete at each\n"
        "                        search, pairs missed between searches, halo contents\n"
        "                        (O(N^2): small systems)\n"
        "  --timing              device time of a step (PE 0; the device then synchronizes\n"
        "                        after every step), on standard error: local work,\n"
        "                        non-local work, non-overlap and step from the kernels'\n"
        "                        per-block %globaltimer stamps (us), then per phase from\n"
        "                        CUDA events (ms)\n"
        "  --occupancy FILE      PE 0's device: every block of the last step without a pair\n"
        "                        search, with its SM (%smid) and its %globaltimer start and\n"
        "                        end, as a shmemu event log (docs/events.md) for\n"
        "                        bin/shmemu-view's occupancy timeline; syncs as --timing\n"
        "  --halo-stats          messages and bytes the halo exchanges send per step, per\n"
        "                        PE and in total (coordinates; force return or, direct26,\n"
        "                        acknowledgements), as '# traffic' lines (docs/md.md)\n"
        "  --list-bugs           the catalogue of planted protocol bugs, then exit (select\n"
        "                        one with SHMEMU_BUG=<name>: docs/checking.md)\n"
        "  --help                this text\n"
        "environment (docs/pgas.md, docs/emu.md, docs/sched.md):\n"
        "  SHMEMU_EMU_TRACE=PATH each PE's kernel timeline as Chrome trace JSON at exit (%d\n"
        "                        in PATH is the PE, else .<pe> is appended); open it in\n"
        "                        ui.perfetto.dev: a track per stream and per stream and SM\n"
        "  SHMEMU_SCHED=random|pct|rr  the deterministic scheduler (parallel drivers);\n"
        "                        SHMEMU_SEED, SHMEMU_TRACE_OUT, SHMEMU_REPLAY with it\n"
        "  SHMEMU_BUG=NAME       plant one protocol bug of --list-bugs\n"
        "  SHMEMU_HANG_TIMEOUT=S report a wait longer than S seconds, then exit 3\n"
        "\n"
        "Output: a header (# lines), thermo lines (step temp epot ekin etot press drift\n"
        "momentum checksum; energies per atom, drift = etot - etot(0)), and as the last line\n"
        "'checksum <16 hex digits>'. Timing goes to standard error. Exit status 1 for a bad\n"
        "request or input (the error names the option, value and limit), 3 when --check\n"
        "finds a problem.\n",
        f);
}

static int parse_long(const char *opt, const char *v, long lo, long hi, long *out,
                      md_error *err)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end != '\0' || errno == ERANGE || x < lo || x > hi)
        return md_fail(err, "%s '%s': give a whole number from %ld to %ld", opt, v, lo, hi);
    *out = x;
    return 0;
}

static int parse_real(const char *opt, const char *v, double *out, md_error *err)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end != '\0' || errno == ERANGE || !isfinite(x))
        return md_fail(err, "%s '%s': give a number", opt, v);
    *out = x;
    return 0;
}

/* "N" or "X,Y,Z" (also "XxYxZ" for --dd). */
static int parse_triple(const char *opt, const char *v, char sep, bool single_ok, int out[3],
                        md_error *err)
{
    long x[3];
    const char *s = v;
    int k = 0;
    for (; k < 3; k++) {
        char *end;
        errno = 0;
        x[k] = strtol(s, &end, 10);
        if (end == s || errno == ERANGE || x[k] < 1 || x[k] > 100000)
            goto bad;
        s = end;
        if (*s == '\0')
            break;
        if (*s != sep || k == 2)
            goto bad;
        s++;
    }
    if (k == 0 && single_ok) {
        out[0] = out[1] = out[2] = (int)x[0];
        return 0;
    }
    if (k != 2)
        goto bad;
    for (int d = 0; d < 3; d++)
        out[d] = (int)x[d];
    return 0;
bad:
    if (single_ok)
        return md_fail(err, "%s '%s': give N or X%cY%cZ (positive whole numbers)", opt, v, sep,
                       sep);
    return md_fail(err, "%s '%s': give AxBxC, e.g. 2x2x1", opt, v);
}

int md_options_parse(int argc, char **argv, md_options *o, md_error *err)
{
    memset(o, 0, sizeof *o);
    md_params_default(&o->par);
    md_lattice_default(&o->lat);
    md_ddparams_default(&o->dd);
    md_io_options_default(&o->io);
    bool pes_given = false, dd_given = false;
    const char *par_only = NULL; /* the first option only the parallel drivers use */
    const char *mpi_only = NULL; /* an option only --halo mpi uses */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0)
            return md_fail(err, "unexpected argument '%s'; options start with --",
                           a);
        char name[64];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        size_t nl = eq ? (size_t)(eq - a) : strlen(a);
        if (nl >= sizeof name)
            return md_fail(err, "unknown option '%s'", a);
        memcpy(name, a, nl);
        name[nl] = '\0';
        if (eq)
            val = eq + 1;
        static const char *flags[] = {"--help", "--shift", "--check", "--timing", "--graph",
                                      "--list-bugs", "--halo-stats"};
        static const char *valued[] = {
            "--cells", "--density", "--temperature", "--seed", "--data", "--steps",
            "--dt", "--rc", "--skin", "--nstlist", "--thermo", "--pes", "--dd",
            "--dim-order", "--halo", "--transport", "--dump", "--checkpoint", "--restart",
            "--force-kernel", "--bulk-copy", "--mpi-staging"};
        bool is_flag = false, known = false;
        for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
            is_flag |= strcmp(name, flags[k]) == 0;
        for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
            known |= strcmp(name, valued[k]) == 0;
        is_flag |= md_io_option_kind(name) == 2; /* io.h: --progress, --no-progress */
        known |= md_io_option_kind(name) == 1;   /* io.h: --dump, --checkpoint, ... */
        if (!is_flag && !known)
            return md_fail(err, "unknown option '%s'", name);
        if (is_flag) {
            if (val)
                return md_fail(err, "%s takes no value", name);
        } else if (!val) {
            if (i + 1 >= argc)
                return md_fail(err, "%s needs a value", name);
            val = argv[++i];
        }
        long l;
        int rc = 0;
        if (!strcmp(name, "--help")) {
            o->help = true;
        } else if (!strcmp(name, "--list-bugs")) {
            o->list_bugs = true;
        } else if (!strcmp(name, "--shift")) {
            o->par.shift = true;
        } else if (!strcmp(name, "--check")) {
            o->check = true;
        } else if (!strcmp(name, "--timing")) {
            o->timing = true;
            par_only = par_only ? par_only : "--timing";
        } else if (!strcmp(name, "--halo-stats")) {
            o->halo_stats = true;
            par_only = par_only ? par_only : "--halo-stats";
        } else if (!strcmp(name, "--graph")) {
            o->graph = true;
            par_only = par_only ? par_only : "--graph";
        } else if (!strcmp(name, "--cells")) {
            rc = parse_triple(name, val, ',', true, o->lat.cells, err);
            o->lattice_given = true;
        } else if (!strcmp(name, "--density")) {
            rc = parse_real(name, val, &o->lat.density, err);
            o->lattice_given = true;
        } else if (!strcmp(name, "--temperature")) {
            rc = parse_real(name, val, &o->lat.temperature, err);
            o->lattice_given = true;
        } else if (!strcmp(name, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 10);
            if (end == val || *end != '\0' || errno == ERANGE || val[0] == '-')
                return md_fail(err, "--seed '%s': give a non-negative whole number", val);
            o->lat.seed = s;
            o->lattice_given = true;
        } else if (!strcmp(name, "--data")) {
            o->data = val;
        } else if (!strcmp(name, "--steps")) {
            rc = parse_long(name, val, 0, LONG_MAX / 2, &l, err);
            o->par.steps = l;
        } else if (!strcmp(name, "--dt")) {
            rc = parse_real(name, val, &o->par.dt, err);
        } else if (!strcmp(name, "--rc")) {
            rc = parse_real(name, val, &o->par.rc, err);
        } else if (!strcmp(name, "--skin")) {
            rc = parse_real(name, val, &o->par.skin, err);
        } else if (!strcmp(name, "--nstlist")) {
            rc = parse_long(name, val, 1, INT_MAX, &l, err);
            o->par.nstlist = (int)l;
        } else if (!strcmp(name, "--thermo")) {
            rc = parse_long(name, val, 0, INT_MAX, &l, err);
            o->par.thermo = (int)l;
        } else if (!strcmp(name, "--pes")) {
            rc = parse_long(name, val, 1, MD_OPTIONS_MAX_PES, &l, err);
            o->dd.pes = (int)l;
            pes_given = true;
        } else if (!strcmp(name, "--dd")) {
            rc = parse_triple(name, val, 'x', false, o->dd.grid, err);
            dd_given = true;
        } else if (!strcmp(name, "--dim-order")) {
            if (!strcmp(val, "zyx")) {
                o->dd.order[0] = 2;
                o->dd.order[1] = 1;
                o->dd.order[2] = 0;
            } else if (!strcmp(val, "xyz")) {
                o->dd.order[0] = 0;
                o->dd.order[1] = 1;
                o->dd.order[2] = 2;
            } else {
                return md_fail(err, "--dim-order '%s': give zyx or xyz", val);
            }
        } else if (md_io_option_kind(name) != 0) {
            rc = md_io_option_parse(&o->io, name, val, err);
            if (!strcmp(name, "--occupancy"))
                par_only = par_only ? par_only : "--occupancy";
        } else if (!strcmp(name, "--halo")) {
            if (!strcmp(val, "fused"))
                o->halo = MD_HALO_FUSED;
            else if (!strcmp(val, "pulse"))
                o->halo = MD_HALO_PULSE;
            else if (!strcmp(val, "host"))
                o->halo = MD_HALO_HOST;
            else if (!strcmp(val, "serial"))
                o->halo = MD_HALO_SERIAL;
            else if (!strcmp(val, "direct26"))
                o->halo = MD_HALO_DIRECT26;
            else if (!strcmp(val, "mpi"))
                o->halo = MD_HALO_MPI;
            else
                return md_fail(err, "--halo '%s': give fused, pulse or serial, host (the "
                                    "CPU-initiated baseline), mpi (the same through MPI) or "
                                    "direct26 (HOOMD's 26-neighbour exchange)", val);
        } else if (!strcmp(name, "--force-kernel")) {
            par_only = par_only ? par_only : "--force-kernel";
            if (!strcmp(val, "auto"))
                o->force = MD_FORCE_AUTO;
            else if (!strcmp(val, "loop"))
                o->force = MD_FORCE_LOOP;
            else if (!strcmp(val, "threads"))
                o->force = MD_FORCE_THREADS;
            else
                return md_fail(err, "--force-kernel '%s': give loop, threads or auto", val);
        } else if (!strcmp(name, "--bulk-copy")) {
            par_only = par_only ? par_only : "--bulk-copy";
            if (!strcmp(val, "auto"))
                o->bulk = MD_BULK_AUTO;
            else if (!strcmp(val, "on"))
                o->bulk = MD_BULK_ON;
            else if (!strcmp(val, "off"))
                o->bulk = MD_BULK_OFF;
            else
                return md_fail(err, "--bulk-copy '%s': give on, off or auto", val);
        } else if (!strcmp(name, "--mpi-staging")) {
            mpi_only = "--mpi-staging";
            if (!strcmp(val, "auto"))
                o->mpi_staging = MD_STAGING_AUTO;
            else if (!strcmp(val, "on"))
                o->mpi_staging = MD_STAGING_ON;
            else if (!strcmp(val, "off"))
                o->mpi_staging = MD_STAGING_OFF;
            else
                return md_fail(err, "--mpi-staging '%s': give on, off or auto", val);
        } else if (!strcmp(name, "--transport")) {
            par_only = par_only ? par_only : "--transport";
            if (!strcmp(val, "auto"))
                o->transport = MD_TRANSPORT_AUTO;
            else if (!strcmp(val, "direct"))
                o->transport = MD_TRANSPORT_DIRECT;
            else if (!strcmp(val, "signal"))
                o->transport = MD_TRANSPORT_SIGNAL;
            else
                return md_fail(err, "--transport '%s': give direct, signal or auto", val);
        } else {
            return md_fail(err, "unknown option '%s'", name);
        }
        if (rc != 0)
            return -1;
    }
    if (o->data && o->lattice_given)
        return md_fail(err, "--data reads the atoms from a file: leave out --cells, --density, "
                            "--temperature and --seed");
    if (o->graph && (o->halo == MD_HALO_HOST || o->halo == MD_HALO_MPI))
        return md_fail(err, "--graph with --halo %s: the host baseline waits for the GPU "
                            "inside a step, which a CUDA graph cannot hold; use --halo fused "
                            "or pulse with --graph", o->halo == MD_HALO_MPI ? "mpi" : "host");
    if (mpi_only && o->halo != MD_HALO_MPI)
        return md_fail(err, "%s sets how --halo mpi hands its buffers to MPI; this run's "
                            "halo sends no MPI message and would ignore it: leave it out or "
                            "give --halo mpi", mpi_only);
    if (o->halo == MD_HALO_MPI && o->transport == MD_TRANSPORT_DIRECT)
        return md_fail(err, "--halo mpi with --transport direct: the MPI baseline moves every "
                            "byte through MPI, never by stores into a peer; leave out "
                            "--transport (or give signal)");
    /* The serial driver runs no kernels, no transport and no device clock: an option it
     * would ignore is refused rather than silently dropped, even with its default value. */
    if (par_only && o->halo == MD_HALO_SERIAL)
        return md_fail(err, "%s is an option of the parallel drivers (--halo fused, pulse or "
                            "host: --transport, --force-kernel, --bulk-copy, --graph, "
                            "--timing, --occupancy, --halo-stats); --halo serial runs no kernels and would "
                            "ignore it: leave it out or pick another --halo", par_only);
    if (dd_given) {
        /* Each count is at most 100000 (parse_triple); the product in 64 bits is exact. */
        long long prod = (long long)o->dd.grid[0] * o->dd.grid[1] * o->dd.grid[2];
        if (prod > MD_OPTIONS_MAX_PES)
            return md_fail(err, "--dd %dx%dx%d: %lld domains, one PE thread each; at most %d "
                                "PEs: give fewer domains", o->dd.grid[0], o->dd.grid[1],
                           o->dd.grid[2], prod, MD_OPTIONS_MAX_PES);
        if (!pes_given)
            o->dd.pes = (int)prod;
    }
    o->io.data = o->data; /* io.h: no output may overwrite this input */
    if (md_io_options_check(&o->io, &o->par, err) != 0)
        return -1;
    return 0;
}
