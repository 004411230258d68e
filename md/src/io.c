/*
 * io.c: restart, dumps, checkpoints and progress for bin/shmemu-md (schedule: io.h).
 */
#include "io.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "outpath.h"
#include "util.h"

void md_io_options_default(md_io_options *o)
{
    memset(o, 0, sizeof *o);
    o->dump_every = 100;
    o->checkpoint_every = 0;
    o->progress = -1;
}

int md_io_option_kind(const char *name)
{
    static const char *valued[] = {"--dump", "--dump-every", "--dump-format", "--checkpoint",
                                   "--checkpoint-every", "--restart", "--occupancy"};
    static const char *flags[] = {"--progress", "--no-progress"};
    for (size_t k = 0; k < sizeof valued / sizeof *valued; k++)
        if (!strcmp(name, valued[k]))
            return 1;
    for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
        if (!strcmp(name, flags[k]))
            return 2;
    return 0;
}

static int parse_count(const char *opt, const char *v, long lo, long *out, md_error *err)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (end == v || *end != '\0' || errno == ERANGE || x < lo || x > LONG_MAX / 2)
        return md_fail(err, "%s '%s': give a whole number, %ld or more", opt, v, lo);
    *out = x;
    return 0;
}

int md_io_option_parse(md_io_options *o, const char *name, const char *val, md_error *err)
{
    if (!strcmp(name, "--progress")) {
        o->progress = 1;
    } else if (!strcmp(name, "--no-progress")) {
        o->progress = 0;
    } else if (val[0] == '\0') {
        return md_fail(err, "%s: the value is empty", name);
    } else if (!strcmp(name, "--dump")) {
        o->dump = val;
    } else if (!strcmp(name, "--dump-every")) {
        o->dump_every_given = true;
        return parse_count(name, val, 1, &o->dump_every, err);
    } else if (!strcmp(name, "--dump-format")) {
        md_dump_format f;
        if (md_dump_format_parse(val, &f, err) != 0)
            return -1;
        o->dump_format = val;
    } else if (!strcmp(name, "--checkpoint")) {
        o->checkpoint = val;
    } else if (!strcmp(name, "--checkpoint-every")) {
        o->checkpoint_every_given = true;
        return parse_count(name, val, 0, &o->checkpoint_every, err);
    } else if (!strcmp(name, "--restart")) {
        o->restart = val;
    } else if (!strcmp(name, "--occupancy")) {
        o->occupancy = val;
    } else {
        return md_fail(err, "unknown option '%s' (see --help)", name);
    }
    return 0;
}

int md_io_options_check(const md_io_options *o, const md_params *par, md_error *err)
{
    if ((o->dump_every_given || o->dump_format) && !o->dump)
        return md_fail(err, "--dump-every and --dump-format need --dump FILE");
    if (o->checkpoint_every_given && !o->checkpoint)
        return md_fail(err, "--checkpoint-every needs --checkpoint FILE");
    if (o->dump && !o->dump_format) {
        md_dump_format f;
        if (md_dump_format_from_path(o->dump, &f, err) != 0)
            return -1;
    }
    if (o->checkpoint && par->nstlist > 0 && o->checkpoint_every % par->nstlist != 0)
        return md_fail(err, "--checkpoint-every %ld is not a multiple of --nstlist %d: a "
                       "checkpoint is exact only at a pair-search step; give a multiple, "
                       "e.g. --checkpoint-every %ld", o->checkpoint_every, par->nstlist,
                       (o->checkpoint_every / par->nstlist + 1) * par->nstlist);
    const md_path_use paths[] = {
        {"--checkpoint", o->checkpoint, true, "--restart"},
        {"--dump", o->dump, true, NULL},
        {"--occupancy", o->occupancy, true, NULL},
        {"--restart", o->restart, false, NULL},
        {"--data", o->data, false, NULL},
    };
    return md_outpath_check(paths, (int)(sizeof paths / sizeof *paths), err);
}

md_sim *md_io_create_sim(const md_io_options *o, const md_system *sys, const md_params *par,
                         const md_ddparams *dd, double *etot0, md_error *err)
{
    *etot0 = NAN;
    if (!o->restart)
        return md_sim_create(sys, par, dd, err);
    md_checkpoint ck;
    if (md_checkpoint_read(o->restart, &ck, err) != 0)
        return NULL;
    md_sim *s = NULL;
    if (md_checkpoint_match(&ck, par, sys, o->restart, err) == 0) {
        s = md_checkpoint_restart(&ck, par, dd, err);
        *etot0 = ck.etot0;
    }
    md_checkpoint_free(&ck);
    return s;
}

int md_io_start_at(md_io *io, const md_io_options *o, const md_params *par, long first,
                   FILE *out, md_error *err)
{
    memset(io, 0, sizeof *io);
    io->dump.fd = -1;
    io->opt = *o;
    io->par = *par;
    io->first = first;
    io->final_search = par->steps - par->steps % par->nstlist;
    if (o->restart)
        fprintf(out, "# restarted from %s at step %ld\n", o->restart, io->first);
    if (o->checkpoint) {
        if (md_checkpoint_clean_stale(o->checkpoint, out, err) < 0 ||
            md_checkpoint_probe(o->checkpoint, err) != 0)
            return -1;
        if (io->final_search <= io->first)
            fprintf(out, "# checkpoint %s: none will be written (no search step after step "
                    "%ld up to step %ld; --nstlist %d)\n", o->checkpoint, io->first,
                    par->steps, par->nstlist);
        else if (o->checkpoint_every > 0)
            fprintf(out, "# checkpoint %s every %ld steps and at step %ld\n", o->checkpoint,
                    o->checkpoint_every, io->final_search);
        else
            fprintf(out, "# checkpoint %s at step %ld (the last search step)\n", o->checkpoint,
                    io->final_search);
    }
    if (o->dump) {
        int rc = o->dump_format ? md_dump_format_parse(o->dump_format, &io->fmt, err)
                                : md_dump_format_from_path(o->dump, &io->fmt, err);
        if (rc != 0 || md_dump_open(&io->dump, o->dump, io->fmt, err) != 0)
            return -1;
        io->dumping = true;
        fprintf(out, "# dump %s (%s) every %ld steps\n", o->dump,
                io->fmt == MD_DUMP_XYZ ? "extended XYZ" : "LAMMPS dump", o->dump_every);
    }
    md_progress_init(&io->prog, o->progress, stderr, 5.0, io->first, par->steps,
                     md_progress_now());
    return 0;
}

void md_io_start_quiet(md_io *io, const md_io_options *o, const md_params *par, long first)
{
    memset(io, 0, sizeof *io);
    io->dump.fd = -1;
    io->opt = *o;
    io->par = *par;
    io->first = first;
    io->final_search = par->steps - par->steps % par->nstlist;
    io->dumping = o->dump != NULL; /* the schedule's; no file is open */
    io->quiet = true;
    md_progress_init(&io->prog, 0, stderr, 5.0, io->first, par->steps, md_progress_now());
}

int md_io_start(md_io *io, const md_io_options *o, const md_params *par, const md_sim *s,
                FILE *out, md_error *err)
{
    if (md_io_start_at(io, o, par, md_sim_steps_done(s), out, err) != 0)
        return -1;
    if (!(md_io_wants(io, io->first) & MD_IO_DUMP))
        return 0;
    md_system snap;
    if (md_sim_gather(s, &snap, err) != 0)
        return -1;
    int rc = md_dump_frame(&io->dump, &snap, io->first, err);
    md_system_free(&snap);
    return rc;
}

unsigned md_io_wants(const md_io *io, long step)
{
    unsigned w = 0;
    if (step > io->par.steps)
        return 0;
    if (io->opt.checkpoint && step > io->first &&
        ((io->opt.checkpoint_every > 0 && step % io->opt.checkpoint_every == 0) ||
         step == io->final_search))
        w |= MD_IO_CHECKPOINT;
    if (io->dumping && step % io->opt.dump_every == 0)
        w |= MD_IO_DUMP;
    return w;
}

int md_io_snapshot(md_io *io, const md_system *snap, long step, double etot0, md_error *err)
{
    if (io->quiet)
        return md_fail(err, "step %ld: a snapshot reached a process that writes no output "
                       "(md_io_start_quiet); report it", step);
    unsigned w = md_io_wants(io, step);
    if (w & MD_IO_CHECKPOINT) {
        double t0 = md_progress_now();
        md_checkpoint ck;
        int rc = md_checkpoint_view(snap, step, &io->par, etot0, &ck, err);
        if (rc == 0)
            rc = md_checkpoint_write(io->opt.checkpoint, &ck, err);
        io->checkpoint_s += md_progress_now() - t0;
        if (rc != 0)
            return -1; /* not counted: "N checkpoints written" counts whole files only */
        io->checkpoints++;
    }
    if ((w & MD_IO_DUMP) && md_dump_frame(&io->dump, snap, step, err) != 0)
        return -1;
    return 0;
}

void md_io_progress(md_io *io, long step)
{
    md_progress_update(&io->prog, step, md_progress_now());
}

int md_io_after_step(md_io *io, const md_sim *s, double etot0, md_error *err)
{
    const long step = md_sim_steps_done(s);
    int rc = 0;
    if (md_io_wants(io, step)) {
        md_system snap;
        rc = md_sim_gather(s, &snap, err);
        if (rc == 0)
            rc = md_io_snapshot(io, &snap, step, etot0, err);
        md_system_free(&snap);
    }
    md_io_progress(io, step);
    return rc;
}

int md_io_finish(md_io *io, md_error *err)
{
    if (io->quiet)
        return 0;
    int rc = 0;
    if (io->dumping)
        rc = md_dump_close(&io->dump, err);
    io->dumping = false;
    if (io->checkpoints > 0)
        fprintf(stderr, "shmemu-md: %ld checkpoints written to %s in %.3f s\n",
                io->checkpoints, io->opt.checkpoint, io->checkpoint_s);
    return rc;
}
