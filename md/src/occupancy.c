/*
 * occupancy.c: --occupancy FILE (occupancy.h). Records are sorted by time (an end before a
 * start at the same nanosecond, so a drawn count never exceeds what was resident) and
 * numbered; times are nanoseconds from the step's first record.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels/blockrec.h"
#include "occupancy.h"
#include "outpath.h"
#include "util.h"

static int by_time(const void *pa, const void *pb)
{
    const md_blockrec *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->edge != b->edge)
        return a->edge < b->edge ? -1 : 1; /* -1 (end) first */
    if (a->sm != b->sm)
        return a->sm < b->sm ? -1 : 1;
    return a->block < b->block ? -1 : a->block > b->block;
}

static void write_events(FILE *f, const md_par_result *res, md_blockrec *r, size_t n, int npes,
                         const char *halo)
{
    qsort(r, n, sizeof *r, by_time);
    unsigned sms = 0;
    for (size_t i = 0; i < n; i++)
        sms = r[i].sm + 1 > sms ? r[i].sm + 1 : sms;
    const bool known = res->occ_sms > 0;
    fprintf(f,
            "{\"shmemu_events\":1,\"program\":\"shmemu-md\",\"args\":[\"--halo\",\"%s\"],"
            "\"npes\":%d,\"backend\":\"%s\",\"order\":\"time\",\"sched\":null,\"seed\":null,"
            "\"events\":%zu,\"dropped\":%llu,\"source\":\"shmemu-md --occupancy\","
            "\"step\":%ld,\"pe\":0,\"sms\":%u,\"sms_known\":%s}\n",
            halo, npes, res->occ_gpu ? "gpu" : "emulator", n, res->occ_total - res->occ_n,
            res->occ_step, known ? (unsigned)res->occ_sms : sms, known ? "true" : "false");
    const uint64_t t0 = n > 0 ? r[0].t : 0;
    for (size_t i = 0; i < n; i++) {
        const int role = r[i].role >= 0 && r[i].role < MD_NPHASE - 1 ? r[i].role : 0;
        fprintf(f,
                "{\"seq\":%zu,\"t\":%" PRIu64 ",\"pe\":0,\"op\":\"%s\",\"where\":\"block\","
                "\"kernel\":\"%s\",\"launch\":-1,\"block\":%u,\"thread\":-1,\"sm\":%u}\n",
                i, r[i].t - t0, r[i].edge > 0 ? "block_start" : "block_end",
                md_par_phase_name[role], r[i].block, r[i].sm);
    }
}

int md_occupancy_write(const char *path, const md_par_result *res, int npes, const char *halo,
                       md_error *err)
{
    if (res->occ_step < 0)
        return md_fail(err, "--occupancy %s: no step without a pair search ran, so no block "
                       "was recorded; give more --steps than --nstlist", path);
    if (md_outpath_check_target("--occupancy", path, err) != 0)
        return -1;
    char *tmp = md_temp_name(path);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) {
        md_fail(err, "--occupancy %s: cannot create %s: %s; check that the directory exists "
                "and is writable", path, tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    write_events(f, res, res->occ, (size_t)res->occ_n, npes, halo);
    const bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok) {
        md_fail(err, "--occupancy %s: writing %s failed: %s", path, tmp, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        md_fail(err, "--occupancy %s: renaming %s over it failed: %s", path, tmp,
                strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}
