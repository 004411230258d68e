/*
 * checkpoint.c: the checkpoint file (format and the bit-exactness rule: checkpoint.h), its
 * atomic write, its careful read, and the restart.
 *
 * Encoding is explicit little-endian byte by byte, so the file does not depend on the
 * machine's byte order or struct padding; the reader validates every count against the
 * buffer's length before it allocates or reads, and CRCs catch flipped bits.
 */
#include "checkpoint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fixed.h"
#include "outpath.h"
#include "sim.h"
#include "util.h"

static const char ckpt_magic[8] = {'S', 'H', 'M', 'U', 'M', 'D', 'C', 'K'};
#define CKPT_BOM 0x0102030405060708ull
#define CKPT_MAX_TYPES 1000000
#define CKPT_ATOM_BYTES_V1 84 /* id 8 + type 4 + x, p, f 3 x 3 x 8 */
#define CKPT_ATOM_BYTES 96    /* version 2: + img 3 x 4 */
/* Ranges the reader accepts besides the box (checkpoint.h): momentum and force in their
 * fixed-point units, etot(0) in ε per atom (the pair-energy sum holds 2^31 ε at most). */
#define CKPT_MAX_MOMENTUM MD_MOMENTUM_MAX /* fixed.h */
#define CKPT_MAX_FORCE (INT64_C(1) << 62)
#define CKPT_MAX_ENERGY 2147483648.0

/* ---- CRC-64/XZ ------------------------------------------------------------------------ */

uint64_t md_crc64(uint64_t crc, const void *buf, size_t len)
{
    /* The table is rebuilt per call (2048 shifts, nothing next to hashing megabytes): no
     * global state to initialise or share between threads. */
    uint64_t table[256];
    for (uint64_t b = 0; b < 256; b++) {
        uint64_t c = b;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0xc96c5795d7870f42ull : c >> 1;
        table[b] = c;
    }
    const unsigned char *p = buf;
    crc = ~crc;
    for (size_t i = 0; i < len; i++)
        crc = table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
    return ~crc;
}

/* ---- little-endian encoding ----------------------------------------------------------- */

static void put_u32(unsigned char *b, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        b[k] = (unsigned char)(v >> (8 * k));
}
static void put_u64(unsigned char *b, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        b[k] = (unsigned char)(v >> (8 * k));
}
static void put_f64(unsigned char *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    put_u64(b, u);
}
static uint32_t get_u32(const unsigned char *b)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++)
        v |= (uint32_t)b[k] << (8 * k);
    return v;
}
static uint64_t get_u64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int k = 0; k < 8; k++)
        v |= (uint64_t)b[k] << (8 * k);
    return v;
}
static double get_f64(const unsigned char *b)
{
    uint64_t u = get_u64(b);
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* ---- capture, free -------------------------------------------------------------------- */

int md_checkpoint_capture(const md_sim *sim, const md_params *par, double etot0,
                          md_checkpoint *ck, md_error *err)
{
    memset(ck, 0, sizeof *ck);
    long step = md_sim_steps_done(sim);
    if (step % par->nstlist != 0)
        return md_fail(err, "checkpoint at step %ld: not a search step (a multiple of "
                       "--nstlist %d); checkpoints are exact only at search steps", step,
                       par->nstlist);
    md_system snap;
    if (md_sim_gather(sim, &snap, err) != 0)
        return -1;
    return md_checkpoint_view(&snap, step, par, etot0, ck, err); /* ck owns snap now */
}

int md_checkpoint_view(const md_system *snap, long step, const md_params *par, double etot0,
                       md_checkpoint *ck, md_error *err)
{
    memset(ck, 0, sizeof *ck);
    if (step % par->nstlist != 0)
        return md_fail(err, "checkpoint at step %ld: not a search step (a multiple of "
                       "--nstlist %d); checkpoints are exact only at search steps", step,
                       par->nstlist);
    ck->sys = *snap;
    ck->step = step;
    ck->last_search = step;
    ck->rc = par->rc;
    ck->skin = par->skin;
    ck->nstlist = par->nstlist;
    ck->shift = par->shift;
    ck->etot0 = etot0;
    return 0;
}

uint64_t md_checkpoint_state_checksum(const md_checkpoint *ck)
{
    uint64_t sum = 0;
    for (int32_t i = 0; i < ck->sys.atoms.n; i++)
        sum += md_atom_hash(&ck->sys.atoms, i);
    return sum;
}

void md_checkpoint_free(md_checkpoint *ck)
{
    md_system_free(&ck->sys);
    memset(ck, 0, sizeof *ck);
}

/* ---- encode --------------------------------------------------------------------------- */

static size_t payload_bytes(int64_t natoms, int64_t ntypes, uint32_t version)
{
    return (size_t)ntypes * 8 +
           (size_t)natoms * (version == 1 ? CKPT_ATOM_BYTES_V1 : CKPT_ATOM_BYTES);
}

void md_checkpoint_encode(const md_checkpoint *ck, unsigned char **out, size_t *len)
{
    const md_system *s = &ck->sys;
    const md_atoms *a = &s->atoms;
    const int32_t n = a->n;
    size_t pay = payload_bytes(n, s->ntypes, MD_CKPT_VERSION);
    size_t total = MD_CKPT_HEADER_BYTES + pay;
    unsigned char *b = md_xmalloc(total);
    unsigned char *p = b + MD_CKPT_HEADER_BYTES;
    for (int t = 0; t < s->ntypes; t++, p += 8)
        put_f64(p, s->mass[t]);
    for (int32_t i = 0; i < n; i++, p += 8)
        put_u64(p, (uint64_t)a->id[i]);
    for (int32_t i = 0; i < n; i++, p += 4)
        put_u32(p, (uint32_t)a->type[i]);
    int64_t *const *arrays[3] = {a->x, a->p, a->f};
    for (int q = 0; q < 3; q++)
        for (int d = 0; d < 3; d++)
            for (int32_t i = 0; i < n; i++, p += 8)
                put_u64(p, (uint64_t)arrays[q][d][i]);
    for (int d = 0; d < 3; d++)
        for (int32_t i = 0; i < n; i++, p += 4)
            put_u32(p, (uint32_t)a->img[d][i]);

    memset(b, 0, MD_CKPT_HEADER_BYTES);
    memcpy(b, ckpt_magic, 8);
    put_u32(b + 8, MD_CKPT_VERSION);
    put_u32(b + 12, MD_CKPT_HEADER_BYTES);
    put_u64(b + 16, CKPT_BOM);
    put_u64(b + 24, (uint64_t)n);
    put_u32(b + 32, (uint32_t)s->ntypes);
    put_u32(b + 36, ck->shift ? 1u : 0u);
    put_u64(b + 40, (uint64_t)ck->step);
    put_u64(b + 48, (uint64_t)ck->last_search);
    put_f64(b + 56, ck->rc);
    put_f64(b + 64, ck->skin);
    put_f64(b + 72, s->dt);
    put_u64(b + 80, (uint64_t)ck->nstlist);
    for (int d = 0; d < 3; d++) {
        put_u64(b + 88 + 8 * d, (uint64_t)s->box.len[d]);
        put_f64(b + 112 + 8 * d, s->box.lo[d]);
    }
    put_f64(b + 136, ck->etot0);
    put_u64(b + 144, (uint64_t)pay);
    put_u64(b + 152, md_crc64(0, b + MD_CKPT_HEADER_BYTES, pay));
    put_u64(b + 160, md_crc64(0, b, 160));
    *out = b;
    *len = total;
}

/* ---- decode --------------------------------------------------------------------------- */

int md_checkpoint_decode(const unsigned char *b, size_t len, const char *name,
                         md_checkpoint *ck, md_error *err)
{
    memset(ck, 0, sizeof *ck);
    if (!name)
        name = "(buffer)";
    if (len < 8 || memcmp(b, ckpt_magic, 8) != 0)
        return md_fail(err, "%s: not a shmemu-md checkpoint (it does not start with '%.8s'); "
                       "give --restart a file written by --checkpoint", name, ckpt_magic);
    if (len < MD_CKPT_HEADER_BYTES)
        return md_fail(err, "%s: truncated: %zu bytes, shorter than the %d-byte header; the "
                       "file is damaged: use an older checkpoint", name, len,
                       MD_CKPT_HEADER_BYTES);
    uint32_t version = get_u32(b + 8);
    if (version != 1 && version != MD_CKPT_VERSION)
        return md_fail(err, "%s: checkpoint format version %" PRIu32 "; this program reads "
                       "versions 1 and %d (version 1 without image flags)", name, version,
                       MD_CKPT_VERSION);
    if (get_u32(b + 12) != MD_CKPT_HEADER_BYTES || get_u64(b + 16) != CKPT_BOM)
        return md_fail(err, "%s: header size or byte-order mark wrong (0x%016" PRIx64 "): "
                       "the file is damaged or was not written by shmemu-md", name,
                       get_u64(b + 16));
    uint64_t hcrc = md_crc64(0, b, 160);
    if (hcrc != get_u64(b + 160))
        return md_fail(err, "%s: header checksum mismatch (stored %016" PRIx64 ", computed "
                       "%016" PRIx64 "): the file is corrupted; use an older checkpoint",
                       name, get_u64(b + 160), hcrc);
    uint64_t natoms = get_u64(b + 24);
    uint32_t ntypes = get_u32(b + 32);
    if (natoms < 1 || natoms > INT32_MAX / 2 || ntypes < 1 || ntypes > CKPT_MAX_TYPES)
        return md_fail(err, "%s: header: %" PRIu64 " atoms, %" PRIu32 " atom types: out of "
                       "range; the file is damaged", name, natoms, ntypes);
    size_t pay = payload_bytes((int64_t)natoms, ntypes, version);
    if (get_u64(b + 144) != pay)
        return md_fail(err, "%s: header: payload size %" PRIu64 " does not match %" PRIu64
                       " atoms and %" PRIu32 " types (%zu bytes); the file is damaged", name,
                       get_u64(b + 144), natoms, ntypes, pay);
    if (len < MD_CKPT_HEADER_BYTES + pay)
        return md_fail(err, "%s: truncated: %zu bytes, the header promises %zu (%" PRIu64
                       " atoms); the write was interrupted or the copy is incomplete: use an "
                       "older checkpoint", name, len, MD_CKPT_HEADER_BYTES + pay, natoms);
    if (len > MD_CKPT_HEADER_BYTES + pay)
        return md_fail(err, "%s: %zu bytes after the end of the checkpoint (%zu bytes); the "
                       "file is damaged", name, len - MD_CKPT_HEADER_BYTES - pay,
                       MD_CKPT_HEADER_BYTES + pay);
    const unsigned char *p = b + MD_CKPT_HEADER_BYTES;
    uint64_t pcrc = md_crc64(0, p, pay);
    if (pcrc != get_u64(b + 152))
        return md_fail(err, "%s: payload checksum mismatch (stored %016" PRIx64 ", computed "
                       "%016" PRIx64 "): the file is corrupted; use an older checkpoint",
                       name, get_u64(b + 152), pcrc);

    ck->step = (long)get_u64(b + 40);
    ck->last_search = (long)get_u64(b + 48);
    ck->rc = get_f64(b + 56);
    ck->skin = get_f64(b + 64);
    double dt = get_f64(b + 72);
    uint64_t nstlist = get_u64(b + 80);
    ck->shift = (get_u32(b + 36) & 1u) != 0;
    ck->etot0 = get_f64(b + 136);
    if (ck->step < 0 || nstlist < 1 || nstlist > INT32_MAX || ck->last_search != ck->step ||
        ck->step % (long)nstlist != 0)
        return md_fail(err, "%s: header: step %ld, last search %ld, nstlist %" PRIu64 ": a "
                       "checkpoint is taken at a search step; the file is damaged",
                       name, ck->step, ck->last_search, nstlist);
    ck->nstlist = (int)nstlist;
    if (ck->step > LONG_MAX / 2)
        return md_fail(err, "%s: header: step %ld is beyond the largest --steps (%ld); the "
                       "file is damaged", name, ck->step, LONG_MAX / 2);
    if ((get_u32(b + 36) & ~1u) != 0)
        return md_fail(err, "%s: header: flags 0x%" PRIx32 " has bits that the format does "
                       "not define (bit 0 is --shift); the file is damaged", name,
                       get_u32(b + 36));
    if (!isnan(ck->etot0) && !(fabs(ck->etot0) <= CKPT_MAX_ENERGY))
        return md_fail(err, "%s: header: etot(0) %g ε per atom is not a finite number of at "
                       "most 2^31 in size (no fixed-point energy is larger); the file is "
                       "damaged", name, ck->etot0);
    if (!(ck->rc > 0) || !(ck->skin >= 0) || !(dt > 0) || !isfinite(ck->rc) ||
        !isfinite(ck->skin) || !isfinite(dt))
        return md_fail(err, "%s: header: rc %g, skin %g, dt %g out of range; the file is "
                       "damaged", name, ck->rc, ck->skin, dt);

    md_system *s = &ck->sys;
    int rc = -1;
    s->dt = dt;
    s->ntypes = (int)ntypes;
    for (int d = 0; d < 3; d++) {
        s->box.len[d] = (int64_t)get_u64(b + 88 + 8 * d);
        s->box.lo[d] = get_f64(b + 112 + 8 * d);
        if (!isfinite(s->box.lo[d])) {
            md_fail(err, "%s: header: box origin %clo is %g, not a finite number; the file "
                    "is damaged", name, 'x' + d, s->box.lo[d]);
            goto out;
        }
        if (s->box.len[d] < 1 || (double)s->box.len[d] > MD_MAX_BOX_SIGMA * MD_POS_SCALE) {
            md_fail(err, "%s: header: box edge %c = %" PRId64 " units out of range; the file "
                    "is damaged", name, 'x' + d, s->box.len[d]);
            goto out;
        }
    }
    s->mass = md_xmalloc(ntypes * sizeof *s->mass);
    for (uint32_t t = 0; t < ntypes; t++, p += 8) {
        s->mass[t] = get_f64(p);
        if (!(s->mass[t] > 0) || !isfinite(s->mass[t])) {
            md_fail(err, "%s: mass of type %" PRIu32 " is %g; the file is damaged", name,
                    t + 1, s->mass[t]);
            goto out;
        }
    }
    md_atoms *a = &s->atoms;
    const int32_t n = (int32_t)natoms;
    md_atoms_reserve(a, n);
    a->n = n;
    for (int32_t i = 0; i < n; i++, p += 8) {
        a->id[i] = (int64_t)get_u64(p);
        if (a->id[i] < 1 || (i > 0 && a->id[i] <= a->id[i - 1])) {
            md_fail(err, "%s: atom %" PRId32 " has id %" PRId64 ": ids must be positive and "
                    "increasing; the file is damaged", name, i, a->id[i]);
            goto out;
        }
    }
    for (int32_t i = 0; i < n; i++, p += 4) {
        a->type[i] = (int32_t)get_u32(p);
        a->zone[i] = 0;
        if (a->type[i] < 0 || a->type[i] >= s->ntypes) {
            md_fail(err, "%s: atom %" PRId64 " has type index %" PRId32 ", outside 0..%d; "
                    "the file is damaged", name, a->id[i], a->type[i], s->ntypes - 1);
            goto out;
        }
    }
    int64_t *const arrays[3][3] = {{a->x[0], a->x[1], a->x[2]},
                                   {a->p[0], a->p[1], a->p[2]},
                                   {a->f[0], a->f[1], a->f[2]}};
    for (int q = 0; q < 3; q++)
        for (int d = 0; d < 3; d++)
            for (int32_t i = 0; i < n; i++, p += 8)
                arrays[q][d][i] = (int64_t)get_u64(p);
    for (int d = 0; d < 3; d++)
        for (int32_t i = 0; i < n; i++)
            if (a->x[d][i] < 0 || a->x[d][i] >= s->box.len[d]) {
                md_fail(err, "%s: atom %" PRId64 ": %c = %" PRId64 " units is outside the box "
                        "[0, %" PRId64 "): positions at a search step are wrapped; the file "
                        "is damaged", name, a->id[i], 'x' + d, a->x[d][i], s->box.len[d]);
                goto out;
            }
    /* |p| <= 2^52 and |f| <= 2^62: p + f of the next half kick cannot overflow, and
     * (double)p, which the drift and the dump use, is exact. */
    static const char *qname[2] = {"momentum p", "force f"};
    const int64_t qmax[2] = {CKPT_MAX_MOMENTUM, CKPT_MAX_FORCE};
    for (int q = 1; q < 3; q++)
        for (int d = 0; d < 3; d++)
            for (int32_t i = 0; i < n; i++)
                if (arrays[q][d][i] > qmax[q - 1] || arrays[q][d][i] < -qmax[q - 1]) {
                    md_fail(err, "%s: atom %" PRId64 ": %s%c = %" PRId64 " units is outside "
                            "±2^%d, the range the integrator keeps exact; the file is "
                            "damaged", name, a->id[i], qname[q - 1], 'x' + d,
                            arrays[q][d][i], q == 1 ? 52 : 62);
                    goto out;
                }
    /* Image flags (version 2; a version-1 file has none: every atom at image 0, so its
     * unwrapped positions are the wrapped ones of the checkpoint's step). */
    for (int d = 0; d < 3; d++)
        for (int32_t i = 0; i < n; i++) {
            if (version == 1) {
                a->img[d][i] = 0;
                continue;
            }
            a->img[d][i] = (int32_t)get_u32(p);
            p += 4;
            if (a->img[d][i] > MD_IMAGE_MAX || a->img[d][i] < -MD_IMAGE_MAX) {
                md_fail(err, "%s: atom %" PRId64 ": image flag i%c = %" PRId32 " is beyond "
                        "±2^30 (MD_IMAGE_MAX); the file is damaged", name, a->id[i], 'x' + d,
                        a->img[d][i]);
                goto out;
            }
        }
    rc = 0;
out:
    if (rc != 0)
        md_checkpoint_free(ck);
    return rc;
}

/* ---- files ---------------------------------------------------------------------------- */


/* The directory part of path ("." when it has none); malloc'ed. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) {
        char *dir = md_xmalloc(2);
        strcpy(dir, ".");
        return dir;
    }
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *dir = md_xmalloc(n + 1);
    memcpy(dir, path, n);
    dir[n] = '\0';
    return dir;
}

/* Writes all of b; 0, or -1 with errno set (a write that makes no progress is EIO). */
static int write_all(int fd, const unsigned char *b, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, b, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        b += w;
        len -= (size_t)w;
    }
    return 0;
}

/* fsync of the directory holding path, so that the rename itself is durable. File systems
 * that cannot sync a directory say EINVAL (or ENOTSUP): nothing to do there; any other
 * failure (EIO on a failing disk) is an error. */
static int sync_dir_of(const char *path, md_error *err)
{
    char *dir = dir_of(path);
    int rc = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        rc = md_fail(err, "checkpoint %s: opening its directory %s to sync it failed: %s",
                     path, dir, strerror(errno));
    } else {
        if (fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP)
            rc = md_fail(err, "checkpoint %s: syncing its directory %s failed: %s; the "
                         "checkpoint may not survive a crash", path, dir, strerror(errno));
        if (close(fd) != 0 && rc == 0)
            rc = md_fail(err, "checkpoint %s: closing its directory %s failed: %s", path,
                         dir, strerror(errno));
    }
    free(dir);
    return rc;
}

int md_checkpoint_write(const char *path, const md_checkpoint *ck, md_error *err)
{
    if (md_outpath_check_target("--checkpoint", path, err) != 0)
        return -1; /* never rename over a device node or a FIFO */
    unsigned char *buf;
    size_t len;
    md_checkpoint_encode(ck, &buf, &len);
    char *tmp = md_temp_name(path);
    int rc = -1;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        md_fail(err, "checkpoint %s: cannot create %s: %s; check that the directory exists "
                "and is writable (--checkpoint)", path, tmp, strerror(errno));
        goto out;
    }
    const char *what = "writing";
    int ok = write_all(fd, buf, len) == 0;
    if (ok) {
        what = "syncing";
        ok = fsync(fd) == 0;
    }
    if (!ok) {
        md_fail(err, "checkpoint %s: %s %zu bytes to %s failed: %s; free some space or "
                "choose another --checkpoint path (the previous checkpoint is untouched)",
                path, what, len, tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        goto out;
    }
    if (close(fd) != 0) {
        md_fail(err, "checkpoint %s: closing %s failed: %s (the previous checkpoint is "
                "untouched)", path, tmp, strerror(errno));
        unlink(tmp);
        goto out;
    }
    if (rename(tmp, path) != 0) {
        md_fail(err, "checkpoint %s: renaming %s over it failed: %s (the previous checkpoint "
                "is untouched)", path, tmp, strerror(errno));
        unlink(tmp);
        goto out;
    }
    rc = sync_dir_of(path, err);
out:
    free(tmp);
    free(buf);
    return rc;
}

int md_checkpoint_probe(const char *path, md_error *err)
{
    if (md_outpath_check_target("--checkpoint", path, err) != 0)
        return -1;
    char *tmp = md_temp_name(path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        md_fail(err, "--checkpoint %s: cannot create a file in its directory (%s): %s; "
                "check that the directory exists and is writable", path, tmp,
                strerror(errno));
        free(tmp);
        return -1;
    }
    int rc = 0;
    if (close(fd) != 0)
        rc = md_fail(err, "--checkpoint %s: closing the test file %s failed: %s", path, tmp,
                     strerror(errno));
    if (unlink(tmp) != 0 && rc == 0)
        rc = md_fail(err, "--checkpoint %s: removing the test file %s failed: %s", path, tmp,
                     strerror(errno));
    free(tmp);
    return rc;
}

/* The pid of a name "<base>.tmp.<pid>" exactly as md_temp_name writes it (decimal, no sign,
 * no leading zero), or 0. */
static long stale_pid(const char *name, const char *base)
{
    size_t bl = strlen(base);
    if (strncmp(name, base, bl) != 0 || strncmp(name + bl, ".tmp.", 5) != 0)
        return 0;
    const char *d = name + bl + 5;
    if (*d < '1' || *d > '9' || strlen(d) > 10)
        return 0;
    long pid = 0;
    for (; *d; d++) {
        if (*d < '0' || *d > '9')
            return 0;
        pid = pid * 10 + (*d - '0');
    }
    return pid <= INT_MAX ? pid : 0;
}

int md_checkpoint_clean_stale(const char *path, FILE *log, md_error *err)
{
    char *dir = dir_of(path);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    DIR *dp = opendir(dir);
    if (!dp) {
        free(dir);
        return 0; /* md_checkpoint_probe names the unusable directory */
    }
    int removed = 0, rc = 0;
    const struct dirent *e;
    while (rc == 0 && (e = readdir(dp)) != NULL) {
        long pid = stale_pid(e->d_name, base);
        if (pid == 0 || pid == (long)getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* alive (or not ours to judge): a run writing now */
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *f = md_xmalloc(n);
        snprintf(f, n, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(f, &st) == 0 && S_ISREG(st.st_mode)) {
            if (unlink(f) == 0) {
                removed++;
                if (log)
                    fprintf(log, "# checkpoint %s: removed %s, left by process %ld, which is "
                            "gone\n", path, f, pid);
            } else if (errno != ENOENT) {
                rc = md_fail(err, "--checkpoint %s: cannot remove the stale temporary file "
                             "%s (process %ld is gone): %s; remove it by hand", path, f, pid,
                             strerror(errno));
            }
        }
        free(f);
    }
    closedir(dp);
    free(dir);
    return rc == 0 ? removed : rc;
}

int md_checkpoint_read(const char *path, md_checkpoint *ck, md_error *err)
{
    memset(ck, 0, sizeof *ck);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return md_fail(err, "--restart %s: cannot open: %s; give a file written by "
                       "--checkpoint", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return md_fail(err, "--restart %s: not a regular file", path);
    }
    size_t len = (size_t)st.st_size;
    unsigned char *buf = md_xmalloc(len);
    size_t got = 0;
    while (got < len) {
        ssize_t r = read(fd, buf + got, len - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    int rc;
    if (got != len)
        rc = md_fail(err, "--restart %s: read error after %zu of %zu bytes", path, got, len);
    else
        rc = md_checkpoint_decode(buf, len, path, ck, err);
    free(buf);
    return rc;
}

/* ---- restart -------------------------------------------------------------------------- */

/* Two doubles are the same parameter only when their bits are. */
static bool same_real(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

int md_checkpoint_match(const md_checkpoint *ck, const md_params *par, const md_system *sys,
                        const char *name, md_error *err)
{
    const char *fix = "restart with the value the checkpoint was written with";
    if (!same_real(ck->rc, par->rc))
        return md_fail(err, "%s: rc differs: the checkpoint has --rc %.17g, this run %.17g; %s",
                       name, ck->rc, par->rc, fix);
    if (!same_real(ck->skin, par->skin))
        return md_fail(err, "%s: skin differs: the checkpoint has --skin %.17g, this run %.17g; "
                       "%s", name, ck->skin, par->skin, fix);
    if (!same_real(ck->sys.dt, par->dt))
        return md_fail(err, "%s: dt differs: the checkpoint has --dt %.17g, this run %.17g; %s",
                       name, ck->sys.dt, par->dt, fix);
    if (ck->nstlist != par->nstlist)
        return md_fail(err, "%s: nstlist differs: the checkpoint has --nstlist %d, this run "
                       "%d; %s", name, ck->nstlist, par->nstlist, fix);
    if (ck->shift != par->shift)
        return md_fail(err, "%s: shift differs: the checkpoint was written %s --shift, this "
                       "run is %s it; %s", name, ck->shift ? "with" : "without",
                       par->shift ? "with" : "without", fix);
    if (par->steps < ck->step)
        return md_fail(err, "%s: the checkpoint is at step %ld, after --steps %ld (the last "
                       "step of the run); give --steps %ld or more", name, ck->step,
                       par->steps, ck->step);
    if (!sys)
        return 0;
    const char *sysfix = "give the same --data or lattice options as the run that wrote it";
    if (sys->atoms.n != ck->sys.atoms.n)
        return md_fail(err, "%s: atom count differs: the checkpoint has %d atoms, this run's "
                       "system %d; %s", name, ck->sys.atoms.n, sys->atoms.n, sysfix);
    if (sys->ntypes != ck->sys.ntypes)
        return md_fail(err, "%s: atom types differ: the checkpoint has %d, this run's system "
                       "%d; %s", name, ck->sys.ntypes, sys->ntypes, sysfix);
    for (int t = 0; t < sys->ntypes; t++)
        if (!same_real(sys->mass[t], ck->sys.mass[t]))
            return md_fail(err, "%s: mass of type %d differs: the checkpoint has %.17g, this "
                           "run's system %.17g; %s", name, t + 1, ck->sys.mass[t],
                           sys->mass[t], sysfix);
    for (int d = 0; d < 3; d++)
        if (sys->box.len[d] != ck->sys.box.len[d])
            return md_fail(err, "%s: box edge %c differs: the checkpoint has %.17g σ, this "
                           "run's system %.17g σ; %s", name, 'x' + d,
                           md_pos_to_double(ck->sys.box.len[d]),
                           md_pos_to_double(sys->box.len[d]), sysfix);
    for (int32_t i = 0; i < sys->atoms.n; i++)
        if (sys->atoms.id[i] != ck->sys.atoms.id[i])
            return md_fail(err, "%s: atom ids differ: atom %d has id %" PRId64 " in the "
                           "checkpoint, %" PRId64 " in this run's system; %s", name, i,
                           ck->sys.atoms.id[i], sys->atoms.id[i], sysfix);
    return 0;
}

md_sim *md_checkpoint_restart(const md_checkpoint *ck, const md_params *par,
                              const md_ddparams *dd, md_error *err)
{
    if (md_checkpoint_match(ck, par, NULL, "checkpoint", err) != 0)
        return NULL;
    md_sim *s = md_sim_create(&ck->sys, par, dd, err);
    if (!s)
        return NULL;
    md_sim_set_step(s, ck->step);
    /* The bits must be those of the run that wrote it: same positions, same momenta, and the
     * forces recomputed from a fresh search equal to the stored ones. */
    md_system now;
    md_error gerr;
    if (md_sim_gather(s, &now, &gerr) != 0) {
        md_fail(err, "restart: %s", gerr.msg);
        md_sim_destroy(s);
        return NULL;
    }
    const md_atoms *a = &ck->sys.atoms, *b = &now.atoms;
    static const char *what[3] = {"position", "momentum", "force"};
    int64_t *const *qa[3] = {a->x, a->p, a->f}, *const *qb[3] = {b->x, b->p, b->f};
    int bad = b->n != a->n;
    for (int32_t i = 0; !bad && i < a->n; i++) {
        bad = a->id[i] != b->id[i] || a->img[0][i] != b->img[0][i] ||
              a->img[1][i] != b->img[1][i] || a->img[2][i] != b->img[2][i];
        for (int q = 0; !bad && q < 3; q++)
            for (int d = 0; !bad && d < 3; d++)
                if (qa[q][d][i] != qb[q][d][i]) {
                    md_fail(err, "restart from step %ld: the %s of atom %" PRId64 " (%c) is "
                            "%" PRId64 " after setting up, %" PRId64 " in the checkpoint: the "
                            "restart would not reproduce the run's bits (a changed force "
                            "field, or a bug: report it)", ck->step, what[q], a->id[i],
                            'x' + d, qb[q][d][i], qa[q][d][i]);
                    bad = 2;
                }
    }
    if (bad == 1)
        md_fail(err, "restart from step %ld: the atoms after setting up are not those of the "
                "checkpoint; report it", ck->step);
    md_system_free(&now);
    if (bad) {
        md_sim_destroy(s);
        return NULL;
    }
    return s;
}
