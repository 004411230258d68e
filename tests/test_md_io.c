/*
 * test_md_io.c: the MD app's input and output (md/src/dump.c, checkpoint.c, progress.c,
 * io.c) and its error messages.
 *
 *   - dump round trip: frames in extended XYZ and LAMMPS format parse back to the exact
 *     fixed-point state (wrapped positions, momenta), several frames appended;
 *   - checkpoint: CRC-64/XZ check value; encode/decode and file round trip; every
 *     truncation, flipped bytes in header and payload, wrong magic, trailing bytes: all
 *     rejected with a message, never a crash;
 *   - restart equality: a run of N steps and a run of N/2 steps + checkpoint + restart on
 *     another decomposition + N/2 steps give the same checksum at every step; a capture at
 *     a non-search step is refused; inconsistent parameters and systems are named;
 *   - physics oracles: energy drift of a shifted-LJ fcc system over 300 steps (dt 0.005)
 *     below a bound, total momentum exactly zero at every step;
 *   - progress line schedule and text; option errors; a data-file atom outside the box;
 *   - the program (bin/shmemu-md, run as a child when built): restart equality across
 *     --pes through the files, stdout ending in the checksum, clear errors and exit 1 for
 *     an unwritable dump, a corrupted checkpoint, a restart with another --rc, and domains
 *     too thin for two pulses;
 *   - hostile files and paths: crafted checkpoints with recomputed CRCs; outputs
 *     that alias inputs or each other; a FIFO, then /dev/null as output (refused, intact); a
 *     checkpoint write failing with EFBIG under RLIMIT_FSIZE; stale temporaries of dead
 *     runs; the XYZ dump read by ASE (python3-ase must be installed: no skip).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "checkpoint.h"
#include "dump.h"
#include "io.h"
#include "options.h"
#include "progress.h"
#include "test_md_util.h"

/* ---- helpers --------------------------------------------------------------------------- */

static char tmpdir[256];

static int setup_tmp(void **state)
{
    (void)state;
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/test_md_io.XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(tmpdir))
        return -1;
    return 0;
}

static int teardown_tmp(void **state)
{
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void tmp_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", tmpdir, name);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = md_xmalloc((size_t)n + 1);
    size_t got = fread(b, 1, (size_t)n, f);
    fclose(f);
    assert_int_equal(got, (size_t)n);
    b[n] = '\0';
    if (len)
        *len = (size_t)n;
    return b;
}

static void spit(const char *path, const void *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        fail_msg("cannot create %s", path);
    assert_int_equal(fwrite(b, 1, len, f), len);
    fclose(f);
}

/* A small system in motion, gathered between two searches (positions unwrapped). */
static md_sim *moving_sim(md_params *par, int steps)
{
    md_system sys;
    md_test_fcc(&sys, 4, 4, 4, 1.44, 99, 0.005);
    md_params_default(par);
    par->nstlist = 10;
    md_sim *s = md_test_sim(&sys, par, 1, 1, 1, false);
    md_system_free(&sys);
    for (int k = 0; k < steps; k++)
        md_test_step(s, false);
    return s;
}

static void gather(const md_sim *s, md_system *out)
{
    md_error err;
    if (md_sim_gather(s, out, &err) != 0)
        fail_msg("gather: %s", err.msg);
}

/* ---- dump ------------------------------------------------------------------------------ */

/* Parses the frames of a dump file back into fixed point and compares with snap. */
static void check_frames(const char *text, md_dump_format fmt, const md_system *snap,
                         const long *steps, int nframes)
{
    const md_atoms *a = &snap->atoms;
    const double unit = md_momentum_unit(snap->dt);
    const char *p = text;
    for (int fr = 0; fr < nframes; fr++) {
        double lo[3], hi[3];
        int n;
        char *end;
        if (fmt == MD_DUMP_XYZ) {
            n = (int)strtol(p, &end, 10);
            assert_int_equal(n, a->n);
            p = strchr(p, '\n') + 1;
            const char *eol = strchr(p, '\n');
            double len[9];
            const char *lat = strstr(p, "Lattice=\"");
            assert_non_null(lat);
            assert_true(lat < eol);
            lat += 9;
            for (int k = 0; k < 9; k++) {
                len[k] = strtod(lat, &end);
                lat = end;
            }
            const char *org = strstr(p, "Origin=\"") + 8;
            for (int d = 0; d < 3; d++) {
                lo[d] = strtod(org, &end);
                org = end;
                hi[d] = lo[d] + len[4 * d];
            }
            assert_non_null(strstr(p, "Properties=species:S:1:pos:R:3:vel:R:3:id:I:1:"
                                      "type:I:1:image:I:3 "));
            char want[64];
            snprintf(want, sizeof want, " Step=%ld ", steps[fr]);
            const char *st = strstr(p, want);
            assert_true(st && st < eol);
            p = eol + 1;
        } else {
            char want[64];
            snprintf(want, sizeof want, "ITEM: TIMESTEP\n%ld\nITEM: NUMBER OF ATOMS\n",
                     steps[fr]);
            assert_memory_equal(p, want, strlen(want));
            p += strlen(want);
            n = (int)strtol(p, &end, 10);
            assert_int_equal(n, a->n);
            p = end + 1;
            const char *bb = "ITEM: BOX BOUNDS pp pp pp\n";
            assert_memory_equal(p, bb, strlen(bb));
            p += strlen(bb);
            for (int d = 0; d < 3; d++) {
                lo[d] = strtod(p, &end);
                hi[d] = strtod(end, &end);
                p = end + 1;
            }
            const char *ah = "ITEM: ATOMS id type x y z ix iy iz vx vy vz\n";
            assert_memory_equal(p, ah, strlen(ah));
            p += strlen(ah);
        }
        for (int d = 0; d < 3; d++) {
            assert_true(lo[d] == snap->box.lo[d]);
            assert_int_equal(md_pos_from_double(hi[d] - lo[d]), snap->box.len[d]);
        }
        for (int32_t i = 0; i < n; i++) {
            long long id, type, im[3];
            double x[3], v[3];
            if (fmt == MD_DUMP_XYZ) {
                const char *sp = strchr(p, ' ');
                assert_non_null(sp);
                char symbol[8];
                snprintf(symbol, sizeof symbol, "%.*s", (int)(sp - p), p);
                end = (char *)sp;
                for (int d = 0; d < 3; d++)
                    x[d] = strtod(end, &end);
                for (int d = 0; d < 3; d++)
                    v[d] = strtod(end, &end);
                id = strtoll(end, &end, 10);
                type = strtoll(end, &end, 10);
                for (int d = 0; d < 3; d++)
                    im[d] = strtoll(end, &end, 10);
                assert_string_equal(symbol, md_dump_species((int)type));
            } else {
                id = strtoll(p, &end, 10);
                type = strtoll(end, &end, 10);
                for (int d = 0; d < 3; d++)
                    x[d] = strtod(end, &end);
                for (int d = 0; d < 3; d++)
                    im[d] = strtoll(end, &end, 10);
                for (int d = 0; d < 3; d++)
                    v[d] = strtod(end, &end);
            }
            assert_int_equal(*end, '\n');
            p = end + 1;
            assert_int_equal(id, a->id[i]);
            assert_int_equal(type, a->type[i] + 1);
            for (int d = 0; d < 3; d++) {
                assert_true(x[d] >= lo[d] && x[d] < hi[d]);
                int64_t xf = md_pos_from_double(x[d] - lo[d]);
                int64_t pf = md_round_i64(v[d] * snap->mass[a->type[i]] / unit);
                /* the unwrapped position x + i·L is the state's, exactly */
                const int64_t len = snap->box.len[d];
                if (xf + im[d] * len != a->x[d][i] + (int64_t)a->img[d][i] * len)
                    fail_msg("frame %d atom %lld %c: x %lld image %lld, state x %lld image %d",
                             fr, id, 'x' + d, (long long)xf, im[d], (long long)a->x[d][i],
                             a->img[d][i]);
                if (xf != md_wrap(a->x[d][i], snap->box.len[d]) || pf != a->p[d][i])
                    fail_msg("frame %d atom %lld %c: read back x %lld p %lld, state x %lld "
                             "(wrapped %lld) p %lld", fr, id, 'x' + d, (long long)xf,
                             (long long)pf, (long long)a->x[d][i],
                             (long long)md_wrap(a->x[d][i], snap->box.len[d]),
                             (long long)a->p[d][i]);
            }
        }
    }
    assert_int_equal(*p, '\0');
}

static void dump_round_trip(md_dump_format fmt, const char *name, double lo)
{
    md_params par;
    md_sim *s = moving_sim(&par, 7); /* between searches: some atoms are outside the box */
    md_system snap;
    gather(s, &snap);
    bool outside = false;
    for (int32_t i = 0; i < snap.atoms.n; i++)
        for (int d = 0; d < 3; d++)
            outside |= snap.atoms.x[d][i] < 0 || snap.atoms.x[d][i] >= snap.box.len[d];
    assert_true(outside); /* the wrap is exercised */
    for (int32_t i = 0; i < snap.atoms.n; i++) /* and stored images of either sign */
        for (int d = 0; d < 3; d++)
            snap.atoms.img[d][i] = (int32_t)((i * 7 + d) % 9) - 4;
    for (int d = 0; d < 3; d++)
        snap.box.lo[d] = lo * (d + 1);
    char path[512];
    tmp_path(path, sizeof path, name);
    md_dump_format guessed;
    md_error err;
    assert_int_equal(md_dump_format_from_path(path, &guessed, &err), 0);
    assert_int_equal(guessed, fmt);
    md_dump d;
    assert_int_equal(md_dump_open(&d, path, fmt, &err), 0);
    const long steps[3] = {7, 7, 1234567};
    for (int k = 0; k < 3; k++)
        if (md_dump_frame(&d, &snap, steps[k], &err) != 0)
            fail_msg("%s", err.msg);
    assert_int_equal(d.frames, 3);
    assert_int_equal(md_dump_close(&d, &err), 0);
    char *text = slurp(path, NULL);
    check_frames(text, fmt, &snap, steps, 3);
    free(text);
    md_system_free(&snap);
    md_sim_destroy(s);
}

static void test_dump_xyz_round_trip(void **state)
{
    (void)state;
    dump_round_trip(MD_DUMP_XYZ, "traj.xyz", 0.0);
    dump_round_trip(MD_DUMP_XYZ, "traj2.extxyz", -3.3);
}

static void test_dump_lammps_round_trip(void **state)
{
    (void)state;
    dump_round_trip(MD_DUMP_LAMMPS, "traj.lammpstrj", 0.0);
    dump_round_trip(MD_DUMP_LAMMPS, "traj2.dump", 17.125);
}

static void test_dump_errors(void **state)
{
    (void)state;
    md_error err;
    md_dump_format f;
    assert_int_equal(md_dump_format_from_path("out.pdb", &f, &err), -1);
    md_test_contains(err.msg, "--dump-format");
    assert_int_equal(md_dump_format_parse("gro", &f, &err), -1);
    md_test_contains(err.msg, "'gro'");
    md_test_contains(err.msg, "xyz");
    md_dump d;
    assert_int_equal(md_dump_open(&d, "/nonexistent-dir/x.xyz", MD_DUMP_XYZ, &err), -1);
    md_test_contains(err.msg, "/nonexistent-dir/x.xyz");
    md_test_contains(err.msg, "cannot create");
    assert_int_equal(md_dump_open(&d, tmpdir, MD_DUMP_XYZ, &err), -1);
    md_test_contains(err.msg, "is a directory");
}

/* ---- checkpoint ------------------------------------------------------------------------ */

static void test_crc64(void **state)
{
    (void)state;
    assert_true(md_crc64(0, "123456789", 9) == 0x995dc9bbdf1939faull);
    /* Continuation equals one pass. */
    assert_true(md_crc64(md_crc64(0, "1234", 4), "56789", 5) == 0x995dc9bbdf1939faull);
    assert_true(md_crc64(0, "", 0) == 0);
}

static void expect_same_checkpoint(const md_checkpoint *a, const md_checkpoint *b)
{
    assert_int_equal(a->step, b->step);
    assert_int_equal(a->last_search, b->last_search);
    assert_true(a->rc == b->rc && a->skin == b->skin && a->sys.dt == b->sys.dt);
    assert_int_equal(a->nstlist, b->nstlist);
    assert_int_equal(a->shift, b->shift);
    assert_memory_equal(&a->etot0, &b->etot0, sizeof a->etot0);
    assert_int_equal(a->sys.ntypes, b->sys.ntypes);
    assert_memory_equal(a->sys.mass, b->sys.mass, (size_t)a->sys.ntypes * sizeof(double));
    assert_memory_equal(&a->sys.box, &b->sys.box, sizeof a->sys.box);
    const md_atoms *x = &a->sys.atoms, *y = &b->sys.atoms;
    assert_int_equal(x->n, y->n);
    size_t n = (size_t)x->n;
    assert_memory_equal(x->id, y->id, n * sizeof *x->id);
    assert_memory_equal(x->type, y->type, n * sizeof *x->type);
    for (int d = 0; d < 3; d++) {
        assert_memory_equal(x->x[d], y->x[d], n * sizeof *x->x[d]);
        assert_memory_equal(x->p[d], y->p[d], n * sizeof *x->p[d]);
        assert_memory_equal(x->f[d], y->f[d], n * sizeof *x->f[d]);
        assert_memory_equal(x->img[d], y->img[d], n * sizeof *x->img[d]);
    }
}

static void test_checkpoint_round_trip(void **state)
{
    (void)state;
    md_params par;
    md_sim *s = moving_sim(&par, 10); /* step 10: a search step */
    md_checkpoint ck, back;
    md_error err;
    if (md_checkpoint_capture(s, &par, -4.25, &ck, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(ck.step, 10);
    for (int32_t i = 0; i < ck.sys.atoms.n; i++) /* images of either sign travel too */
        for (int d = 0; d < 3; d++)
            ck.sys.atoms.img[d][i] = (int32_t)((i * 5 + d) % 7) - 3;
    ck.sys.atoms.img[1][3] = 1 << 30; /* the largest image accepted */
    ck.sys.atoms.img[2][4] = -(1 << 30);
    unsigned char *buf;
    size_t len;
    md_checkpoint_encode(&ck, &buf, &len);
    const size_t natoms = (size_t)ck.sys.atoms.n;
    assert_int_equal(len, MD_CKPT_HEADER_BYTES + 8 * (size_t)ck.sys.ntypes + 96 * natoms);
    if (md_checkpoint_decode(buf, len, "buf", &back, &err) != 0)
        fail_msg("%s", err.msg);
    expect_same_checkpoint(&ck, &back);
    md_checkpoint_free(&back);
    /* Through a file, replacing an older one. */
    char path[512];
    tmp_path(path, sizeof path, "state.ckpt");
    spit(path, "old", 3);
    assert_int_equal(md_checkpoint_probe(path, &err), 0);
    if (md_checkpoint_write(path, &ck, &err) != 0)
        fail_msg("%s", err.msg);
    if (md_checkpoint_read(path, &back, &err) != 0)
        fail_msg("%s", err.msg);
    expect_same_checkpoint(&ck, &back);
    md_checkpoint_free(&back);
    size_t flen;
    char *file = slurp(path, &flen);
    assert_int_equal(flen, len);
    assert_memory_equal(file, buf, len);
    free(file);
    free(buf);
    md_checkpoint_free(&ck);
    /* Not at a search step: refused. */
    md_test_step(s, false);
    assert_int_equal(md_checkpoint_capture(s, &par, 0.0, &ck, &err), -1);
    md_test_contains(err.msg, "not a search step");
    md_sim_destroy(s);
}

static void expect_rejected(const unsigned char *b, size_t len, const char *needle)
{
    md_checkpoint ck;
    md_error err;
    err.msg[0] = '\0';
    if (md_checkpoint_decode(b, len, "ck", &ck, &err) == 0)
        fail_msg("a damaged checkpoint (%zu bytes) was accepted", len);
    if (needle)
        md_test_contains(err.msg, needle);
    assert_true(strncmp(err.msg, "ck: ", 4) == 0);
}

static void test_checkpoint_damage(void **state)
{
    (void)state;
    md_params par;
    md_sim *s = moving_sim(&par, 0);
    md_checkpoint ck;
    md_error err;
    if (md_checkpoint_capture(s, &par, NAN, &ck, &err) != 0)
        fail_msg("%s", err.msg);
    unsigned char *buf;
    size_t len;
    md_checkpoint_encode(&ck, &buf, &len);
    /* Every truncation of the header, and a spread of them in the payload. */
    for (size_t n = 0; n < len; n += n < MD_CKPT_HEADER_BYTES + 16 ? 1 : 97)
        expect_rejected(buf, n, n < 8 ? "not a shmemu-md checkpoint" : "truncated");
    /* A flipped bit anywhere: header fields are caught by the header CRC, payload by its. */
    unsigned char *bad = md_xmalloc(len + 1);
    for (size_t at = 8; at < len; at += at < MD_CKPT_HEADER_BYTES ? 1 : 211) {
        memcpy(bad, buf, len);
        bad[at] ^= 0x10;
        expect_rejected(bad, len, NULL);
    }
    memcpy(bad, buf, len);
    bad[MD_CKPT_HEADER_BYTES + 100] ^= 1;
    expect_rejected(bad, len, "payload checksum mismatch");
    memcpy(bad, buf, len);
    bad[30] ^= 1;
    expect_rejected(bad, len, "header checksum mismatch");
    memcpy(bad, buf, len);
    bad[0] = 'X';
    expect_rejected(bad, len, "not a shmemu-md checkpoint");
    memcpy(bad, buf, len);
    bad[len] = 0;
    expect_rejected(bad, len + 1, "after the end");
    /* Through the file reader too: a truncated file. */
    char path[512];
    tmp_path(path, sizeof path, "short.ckpt");
    spit(path, buf, len / 2);
    md_checkpoint back;
    assert_int_equal(md_checkpoint_read(path, &back, &err), -1);
    md_test_contains(err.msg, "truncated");
    tmp_path(path, sizeof path, "missing.ckpt");
    assert_int_equal(md_checkpoint_read(path, &back, &err), -1);
    md_test_contains(err.msg, "cannot open");
    assert_int_equal(md_checkpoint_probe("/nonexistent-dir/ck", &err), -1);
    md_test_contains(err.msg, "/nonexistent-dir/ck");
    free(bad);
    free(buf);
    md_checkpoint_free(&ck);
    md_sim_destroy(s);
}

/* ---- crafted checkpoints: CRCs recomputed, so only the range checks can refuse them ---- */

static void put_le(unsigned char *b, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        b[k] = (unsigned char)(v >> (8 * k));
}

static void put_le_f64(unsigned char *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    put_le(b, u);
}

/* Recomputes both CRCs (offsets: checkpoint.h), as an attacker would. */
static void reseal(unsigned char *b, size_t len)
{
    put_le(b + 152, md_crc64(0, b + MD_CKPT_HEADER_BYTES, len - MD_CKPT_HEADER_BYTES));
    put_le(b + 160, md_crc64(0, b, 160));
}

static void test_checkpoint_crafted(void **state)
{
    (void)state;
    md_params par;
    md_sim *s = moving_sim(&par, 0);
    md_checkpoint ck;
    md_error err;
    if (md_checkpoint_capture(s, &par, -5.5, &ck, &err) != 0)
        fail_msg("%s", err.msg);
    const int32_t n = ck.sys.atoms.n;
    const int64_t id7 = ck.sys.atoms.id[7];
    unsigned char *buf;
    size_t len;
    md_checkpoint_encode(&ck, &buf, &len);
    md_checkpoint_free(&ck);
    unsigned char *bad = md_xmalloc(len);
    /* Payload offsets: mass[ntypes], id[n], type[n], x[3][n], p[3][n], f[3][n]. */
    const size_t mass_at = MD_CKPT_HEADER_BYTES, id_at = mass_at + 8 * 1;
    const size_t x_at = id_at + 8 * (size_t)n + 4 * (size_t)n;
    const size_t p_at = x_at + 3 * 8 * (size_t)n, f_at = p_at + 3 * 8 * (size_t)n;
    struct {
        size_t at;
        bool real;
        double value;
        uint64_t bits;
        const char *needle;
    } cases[] = {
        /* momentum p_y of atom index 7: 2^62, then -2^62 */
        {p_at + 8 * ((size_t)n + 7), false, 0, UINT64_C(1) << 62, "momentum py"},
        {p_at + 8 * 7, false, 0, (uint64_t)-(INT64_C(1) << 62), "momentum px"},
        {p_at + 8 * 7, false, 0, (UINT64_C(1) << 52) + 1, "±2^52"},
        {f_at + 8 * (2 * (size_t)n + 7), false, 0, UINT64_C(1) << 63, "force fz"},
        {112 + 8, true, NAN, 0, "box origin ylo is nan"},
        {112, true, INFINITY, 0, "box origin xlo"},
        {136, true, 1e300, 0, "etot(0) 1e+300"},
        {136, true, -INFINITY, 0, "etot(0)"},
        {36, false, 0, 2, "flags"},
        {40, false, 0, UINT64_C(9223372036854775800), "beyond the largest --steps"},
        {mass_at, true, NAN, 0, "mass of type 1"},
        {64, true, NAN, 0, "skin"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        memcpy(bad, buf, len);
        if (cases[c].at == 36)
            bad[36] = (unsigned char)cases[c].bits; /* a 4-byte field */
        else if (cases[c].real)
            put_le_f64(bad + cases[c].at, cases[c].value);
        else
            put_le(bad + cases[c].at, cases[c].bits);
        if (cases[c].at == 40)
            put_le(bad + 48, cases[c].bits); /* last search == step, still a search step */
        reseal(bad, len);
        expect_rejected(bad, len, cases[c].needle);
    }
    /* The per-atom messages name the atom by id. */
    memcpy(bad, buf, len);
    put_le(bad + p_at + 8 * ((size_t)n + 7), UINT64_C(1) << 62);
    reseal(bad, len);
    char want[64];
    snprintf(want, sizeof want, "atom %lld: momentum py", (long long)id7);
    expect_rejected(bad, len, want);
    /* Still accepted: the limits themselves, and an unknown etot(0). */
    memcpy(bad, buf, len);
    put_le(bad + p_at, UINT64_C(1) << 52);
    put_le_f64(bad + 136, NAN);
    reseal(bad, len);
    if (md_checkpoint_decode(bad, len, "ck", &ck, &err) != 0)
        fail_msg("a checkpoint within every range was refused: %s", err.msg);
    assert_true(isnan(ck.etot0));
    md_checkpoint_free(&ck);
    /* Image flags (4 bytes each, after the forces): beyond ±2^30 refused naming the atom. */
    const size_t img_at = f_at + 3 * 8 * (size_t)n;
    assert_int_equal(img_at + 3 * 4 * (size_t)n, len);
    const uint32_t images[2] = {(1u << 30) + 1, (uint32_t)INT32_MIN};
    for (int k = 0; k < 2; k++) {
        memcpy(bad, buf, len);
        for (int b = 0; b < 4; b++)
            bad[img_at + 4 * ((size_t)n + 7) + (size_t)b] = (unsigned char)(images[k] >> (8 * b));
        reseal(bad, len);
        snprintf(want, sizeof want, "atom %lld: image flag iy = %d is beyond", (long long)id7,
                 (int32_t)images[k]);
        expect_rejected(bad, len, want);
    }
    free(bad);
    free(buf);
    md_sim_destroy(s);
}

/* A version-1 checkpoint (written before image flags: 84 bytes per atom, no image block) is
 * still read, with every image flag 0; an unknown version is refused. */
static void test_checkpoint_version1(void **state)
{
    (void)state;
    md_params par;
    md_sim *s = moving_sim(&par, 10);
    md_checkpoint ck, back;
    md_error err;
    if (md_checkpoint_capture(s, &par, -4.25, &ck, &err) != 0)
        fail_msg("%s", err.msg);
    for (int32_t i = 0; i < ck.sys.atoms.n; i++)
        ck.sys.atoms.img[i % 3][i] = i + 1;
    unsigned char *buf;
    size_t len;
    md_checkpoint_encode(&ck, &buf, &len);
    const size_t natoms = (size_t)ck.sys.atoms.n;
    const size_t len1 = len - 12 * natoms;
    unsigned char *v1 = md_xmalloc(len);
    memcpy(v1, buf, len1);
    v1[8] = 1; /* format version: a 4-byte field */
    put_le(v1 + 144, len1 - MD_CKPT_HEADER_BYTES);
    reseal(v1, len1);
    if (md_checkpoint_decode(v1, len1, "v1", &back, &err) != 0)
        fail_msg("version 1 refused: %s", err.msg);
    for (int d = 0; d < 3; d++) {
        assert_memory_equal(back.sys.atoms.x[d], ck.sys.atoms.x[d], natoms * 8);
        assert_memory_equal(back.sys.atoms.p[d], ck.sys.atoms.p[d], natoms * 8);
        for (size_t i = 0; i < natoms; i++)
            assert_int_equal(back.sys.atoms.img[d][i], 0);
    }
    assert_int_equal(md_checkpoint_state_checksum(&back), md_checkpoint_state_checksum(&ck));
    md_checkpoint_free(&back);
    /* version 3 is not ours */
    v1[8] = 3;
    reseal(v1, len1);
    expect_rejected(v1, len1, "version 3; this program reads versions 1 and 2");
    free(v1);
    free(buf);
    md_checkpoint_free(&ck);
    md_sim_destroy(s);
}

static void test_checkpoint_mismatch(void **state)
{
    (void)state;
    md_params par;
    md_sim *s = moving_sim(&par, 0);
    md_checkpoint ck;
    md_error err;
    if (md_checkpoint_capture(s, &par, NAN, &ck, &err) != 0)
        fail_msg("%s", err.msg);
    md_system sys;
    gather(s, &sys);
    assert_int_equal(md_checkpoint_match(&ck, &par, &sys, "ck", &err), 0);
    md_params p = par;
    p.rc = 2.6;
    assert_int_equal(md_checkpoint_match(&ck, &p, &sys, "ck", &err), -1);
    md_test_contains(err.msg, "rc differs");
    md_test_contains(err.msg, "--rc 2.5");
    p = par;
    p.dt = 0.004;
    assert_int_equal(md_checkpoint_match(&ck, &p, &sys, "ck", &err), -1);
    md_test_contains(err.msg, "dt differs");
    p = par;
    p.skin = 0.4;
    assert_int_equal(md_checkpoint_match(&ck, &p, &sys, "ck", &err), -1);
    md_test_contains(err.msg, "skin differs");
    p = par;
    p.nstlist = 5;
    assert_int_equal(md_checkpoint_match(&ck, &p, &sys, "ck", &err), -1);
    md_test_contains(err.msg, "nstlist differs");
    p = par;
    p.shift = true;
    assert_int_equal(md_checkpoint_match(&ck, &p, &sys, "ck", &err), -1);
    md_test_contains(err.msg, "shift differs");
    p = par;
    md_system other;
    md_test_fcc(&other, 5, 4, 4, 1.44, 99, 0.005);
    assert_int_equal(md_checkpoint_match(&ck, &p, &other, "ck", &err), -1);
    md_test_contains(err.msg, "atom count differs");
    md_system_free(&other);
    md_test_fcc(&other, 4, 4, 4, 1.44, 99, 0.005);
    other.box.len[1] += 1;
    assert_int_equal(md_checkpoint_match(&ck, &p, &other, "ck", &err), -1);
    md_test_contains(err.msg, "box edge y differs");
    md_system_free(&other);
    md_system_free(&sys);
    md_checkpoint_free(&ck);
    md_sim_destroy(s);
}

/* Run A: steps 0..n in one go on 1 PE. Run B: 0..n/2 on 1 PE, checkpoint through a file,
 * restart on grid g, n/2..n. Every step's checksum and thermo sums must be equal. */
static void test_restart_equality(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 6, 4, 4, 1.2, 4242, 0.005);
    md_params par;
    md_params_default(&par);
    par.nstlist = 5;
    par.shift = true;
    const int n = md_test_scaled(40, 2); /* 40 natively, 20 under valgrind */
    const int half = n / 2;              /* 20 or 10: search steps */
    assert_int_equal(half % par.nstlist, 0);
    par.steps = n;
    uint64_t *ref = md_xcalloc((size_t)n + 1, sizeof *ref);
    int64_t *ref_epot = md_xcalloc((size_t)n + 1, sizeof *ref_epot);
    md_sim *a = md_test_sim(&sys, &par, 1, 1, 1, false);
    ref[0] = md_sim_checksum(a);
    for (int k = 1; k <= n; k++) {
        md_test_step(a, true);
        md_thermo th;
        md_sim_thermo(a, &th);
        ref[k] = th.checksum;
        ref_epot[k] = th.epot_fx;
    }
    md_sim_destroy(a);

    char path[512];
    tmp_path(path, sizeof path, "restart.ckpt");
    md_sim *b = md_test_sim(&sys, &par, 1, 1, 1, false);
    for (int k = 1; k <= half; k++) {
        md_test_step(b, false);
        assert_true(md_sim_checksum(b) == ref[k]);
    }
    md_checkpoint ck;
    md_error err;
    if (md_checkpoint_capture(b, &par, -1.5, &ck, &err) != 0 ||
        md_checkpoint_write(path, &ck, &err) != 0)
        fail_msg("%s", err.msg);
    md_checkpoint_free(&ck);
    md_sim_destroy(b);

    static const int grids[][3] = {{1, 1, 1}, {2, 2, 1}, {3, 1, 1}, {1, 2, 2}};
    size_t ngrids = md_test_valgrind() ? 2 : sizeof grids / sizeof *grids;
    for (size_t g = 0; g < ngrids; g++) {
        if (md_checkpoint_read(path, &ck, &err) != 0)
            fail_msg("%s", err.msg);
        assert_true(ck.etot0 == -1.5);
        md_ddparams dd;
        md_ddparams_default(&dd);
        dd.pes = grids[g][0] * grids[g][1] * grids[g][2];
        memcpy(dd.grid, grids[g], sizeof dd.grid);
        md_sim *c = md_checkpoint_restart(&ck, &par, &dd, &err);
        if (!c)
            fail_msg("restart on %dx%dx%d: %s", grids[g][0], grids[g][1], grids[g][2],
                     err.msg);
        assert_int_equal(md_sim_steps_done(c), half);
        assert_true(md_sim_checksum(c) == ref[half]);
        assert_true(md_checkpoint_state_checksum(&ck) == ref[half]);
        md_checkpoint_free(&ck);
        for (int k = half + 1; k <= n; k++) {
            md_test_step(c, true);
            md_thermo th;
            md_sim_thermo(c, &th);
            if (th.checksum != ref[k] || th.epot_fx != ref_epot[k])
                fail_msg("restart on %dx%dx%d, step %d: checksum %016llx epot %lld, "
                         "uninterrupted %016llx epot %lld", grids[g][0], grids[g][1],
                         grids[g][2], k, (unsigned long long)th.checksum,
                         (long long)th.epot_fx, (unsigned long long)ref[k],
                         (long long)ref_epot[k]);
        }
        md_sim_destroy(c);
    }
    /* A restart that would not reproduce the forces is refused: tamper with one force. */
    if (md_checkpoint_read(path, &ck, &err) != 0)
        fail_msg("%s", err.msg);
    ck.sys.atoms.f[1][7] += 1;
    md_ddparams dd;
    md_ddparams_default(&dd);
    assert_null(md_checkpoint_restart(&ck, &par, &dd, &err));
    md_test_contains(err.msg, "the force of atom");
    md_checkpoint_free(&ck);
    free(ref);
    free(ref_epot);
    md_system_free(&sys);
}

/* ---- physics oracles ------------------------------------------------------------------- */

/* Shifted LJ (energy continuous at rc), fcc 4x4x4 (256 atoms) melting from T = 1.44 at
 * density 0.8442, dt 0.005, nstlist 10, 300 steps (1.5 τ). Measured on this code: the drift
 * etot(300) - etot(0) is -5e-5 ε per atom; etot fluctuates by up to 1e-3 on the way (the
 * O(dt²) oscillation of velocity Verlet while the lattice melts). Bounds: drift 5e-4,
 * fluctuation 3e-3 ε per atom; a force or integrator bug (a sign, a missing half kick, a
 * missing pair) gives errors of order 0.1 to 1. The unshifted potential drifts 100x more
 * through its jump at rc, which is why the test shifts. */
#define DRIFT_BOUND_PER_ATOM 5e-4
#define FLUCTUATION_BOUND_PER_ATOM 3e-3

static void test_energy_drift_and_momentum(void **state)
{
    (void)state;
    md_system sys;
    md_test_fcc(&sys, 4, 4, 4, 1.44, 12345, 0.005);
    md_params par;
    md_params_default(&par);
    par.shift = true;
    par.nstlist = 10;
    const int steps = md_test_scaled(300, 3);
    md_sim *s = md_test_sim(&sys, &par, 2, 1, 1, false);
    md_thermo th;
    md_sim_thermo(s, &th);
    assert_true(th.has_energy);
    const double e0 = th.etot;
    double worst = 0;
    for (int k = 1; k <= steps; k++) {
        bool energy = k % 10 == 0 || k == steps;
        md_test_step(s, energy);
        md_sim_thermo(s, &th);
        for (int d = 0; d < 3; d++)
            if (th.momentum[d] != 0)
                fail_msg("step %d: total momentum %c = %lld, not exactly 0", k, 'x' + d,
                         (long long)th.momentum[d]);
        if (energy && fabs(th.etot - e0) > worst)
            worst = fabs(th.etot - e0);
    }
    print_message("energy drift over %d steps: %.3e per atom (bound %.0e), largest deviation "
                  "%.3e (bound %.0e)\n", steps, th.etot - e0, DRIFT_BOUND_PER_ATOM, worst,
                  FLUCTUATION_BOUND_PER_ATOM);
    assert_true(fabs(th.etot - e0) < DRIFT_BOUND_PER_ATOM);
    assert_true(worst < FLUCTUATION_BOUND_PER_ATOM);
    md_sim_destroy(s);
    md_system_free(&sys);
}

/* ---- the schedule (io.h) --------------------------------------------------------------- */

static void test_io_schedule(void **state)
{
    (void)state;
    md_params par;
    md_sim *s = moving_sim(&par, 0);
    par.steps = 95;
    md_io_options o;
    md_io_options_default(&o);
    char ck[512], dump[512];
    tmp_path(ck, sizeof ck, "sched.ckpt");
    tmp_path(dump, sizeof dump, "sched.xyz");
    o.checkpoint = ck;
    o.checkpoint_every = 20;
    o.dump = dump;
    o.dump_every = 30;
    o.progress = 0;
    md_error err;
    assert_int_equal(md_io_options_check(&o, &par, &err), 0);
    FILE *devnull = fopen("/dev/null", "w");
    md_io io;
    if (md_io_start(&io, &o, &par, s, devnull, &err) != 0)
        fail_msg("%s", err.msg);
    char got[256] = "";
    for (long k = 0; k <= 100; k++) {
        unsigned w = md_io_wants(&io, k);
        if (w) {
            char one[32];
            snprintf(one, sizeof one, "%ld%s%s ", k, w & MD_IO_DUMP ? "d" : "",
                     w & MD_IO_CHECKPOINT ? "c" : "");
            strcat(got, one);
        }
    }
    /* Frames at multiples of 30 (step 0 was written by md_io_start); checkpoints at
     * multiples of 20 and at 90, the last search step before 95. */
    assert_string_equal(got, "0d 20c 30d 40c 60dc 80c 90dc ");
    assert_int_equal(io.dump.frames, 1);
    assert_int_equal(md_io_finish(&io, &err), 0);
    fclose(devnull);
    md_sim_destroy(s);
}

/* ---- progress -------------------------------------------------------------------------- */

static void test_progress(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "progress.txt");
    FILE *f = fopen(path, "w+");
    assert_non_null(f);
    md_progress p;
    md_progress_init(&p, 0, f, 2.0, 0, 1000, 100.0);
    assert_false(md_progress_update(&p, 500, 200.0)); /* off */
    md_progress_init(&p, -1, f, 2.0, 0, 1000, 100.0); /* a file is not a terminal */
    assert_false(p.on);
    md_progress_init(&p, 1, f, 2.0, 200, 1000, 100.0);
    assert_false(md_progress_update(&p, 210, 101.0)); /* too early */
    assert_true(md_progress_update(&p, 400, 102.0));  /* 200 steps in 2 s */
    assert_false(md_progress_update(&p, 401, 103.0));
    assert_true(md_progress_update(&p, 600, 104.0));
    assert_false(md_progress_update(&p, 1000, 200.0)); /* the end: no line */
    assert_int_equal(p.lines, 2);
    fclose(f);
    char *text = slurp(path, NULL);
    assert_string_equal(text, "shmemu-md: step 400/1000 (25.0%), 100 steps/s, ETA 6.0 s\n"
                              "shmemu-md: step 600/1000 (50.0%), 100 steps/s, ETA 4.0 s\n");
    free(text);
    char line[160];
    md_progress_format(&p, 201, 101.0, line, sizeof line); /* 1 step/s, 799 to go */
    md_test_contains(line, "ETA 13.3 min");
}

/* ---- options and input errors ---------------------------------------------------------- */

static int parse(md_options *o, md_error *err, ...)
{
    char *argv[32] = {"shmemu-md"};
    int argc = 1;
    va_list ap;
    va_start(ap, err);
    for (char *a; (a = va_arg(ap, char *)) != NULL;)
        argv[argc++] = a;
    va_end(ap);
    return md_options_parse(argc, argv, o, err);
}

static void test_options(void **state)
{
    (void)state;
    md_options o;
    md_error err;
    assert_int_equal(parse(&o, &err, "--dump", "t.xyz", "--dump-every", "5", "--checkpoint",
                           "c", "--checkpoint-every", "40", "--restart", "r", "--progress",
                           NULL), 0);
    assert_string_equal(o.io.dump, "t.xyz");
    assert_int_equal(o.io.dump_every, 5);
    assert_int_equal(o.io.checkpoint_every, 40);
    assert_string_equal(o.io.restart, "r");
    assert_int_equal(o.io.progress, 1);
    assert_int_equal(parse(&o, &err, "--no-progress", NULL), 0);
    assert_int_equal(o.io.progress, 0);
    assert_int_equal(parse(&o, &err, "--dump", "t.out", "--dump-format", "lammps", NULL), 0);
    assert_int_equal(parse(&o, &err, "--dump", "t.out", NULL), -1);
    md_test_contains(err.msg, "--dump-format");
    assert_int_equal(parse(&o, &err, "--dump", "t.xyz", "--dump-format", "pdb", NULL), -1);
    md_test_contains(err.msg, "--dump-format 'pdb'");
    assert_int_equal(parse(&o, &err, "--dump-every", "5", NULL), -1);
    md_test_contains(err.msg, "need --dump FILE");
    assert_int_equal(parse(&o, &err, "--dump", "t.xyz", "--dump-every", "0", NULL), -1);
    md_test_contains(err.msg, "--dump-every '0'");
    assert_int_equal(parse(&o, &err, "--checkpoint", "c", "--checkpoint-every", "30", NULL), -1);
    md_test_contains(err.msg, "not a multiple of --nstlist 20");
    md_test_contains(err.msg, "--checkpoint-every 40");
    assert_int_equal(parse(&o, &err, "--checkpoint-every", "40", NULL), -1);
    md_test_contains(err.msg, "needs --checkpoint FILE");
    assert_int_equal(parse(&o, &err, "--steps", "-5", NULL), -1);
    md_test_contains(err.msg, "--steps '-5'");
    assert_int_equal(parse(&o, &err, "--dump=", NULL), -1);
    md_test_contains(err.msg, "empty");
    /* dt, rc: refused when the driver is created, naming the option. */
    md_system sys;
    md_test_fcc(&sys, 4, 4, 4, 1.0, 1, 0.005);
    md_ddparams dd;
    md_ddparams_default(&dd);
    md_params par;
    md_params_default(&par);
    par.dt = 0;
    assert_null(md_sim_create(&sys, &par, &dd, &err));
    md_test_contains(err.msg, "--dt 0");
    md_params_default(&par);
    par.rc = -1;
    assert_null(md_sim_create(&sys, &par, &dd, &err));
    md_test_contains(err.msg, "--rc -1");
    /* Domains thinner than rlist/2 (two pulses are not enough): named, with the fix. */
    md_params_default(&par);
    dd.pes = 6;
    dd.grid[0] = 6;
    dd.grid[1] = dd.grid[2] = 1;
    assert_null(md_sim_create(&sys, &par, &dd, &err));
    md_test_contains(err.msg, "--dd 6x1x1");
    md_test_contains(err.msg, "domains along x");
    md_test_contains(err.msg, "use fewer domains along x");
    md_system_free(&sys);
}

/* Outputs that are inputs or other outputs: refused while parsing, before anything is
 * written, naming both options and the path; by identity, not by spelling. */
static void test_output_paths(void **state)
{
    (void)state;
    md_options o;
    md_error err;
    char same[512], dotted[512], real[512], slink[512], hard[512], ck[512], data[512],
        other[512];
    tmp_path(same, sizeof same, "same.xyz");
    snprintf(dotted, sizeof dotted, "%s/./sub/../same.xyz", tmpdir);
    tmp_path(real, sizeof real, "real.xyz");
    tmp_path(slink, sizeof slink, "link.xyz");
    tmp_path(hard, sizeof hard, "hard.lmp");
    tmp_path(ck, sizeof ck, "paths.ckpt");
    tmp_path(data, sizeof data, "paths.lmp");
    tmp_path(other, sizeof other, "other.xyz");
    char sub[512];
    tmp_path(sub, sizeof sub, "sub");
    assert_int_equal(mkdir(sub, 0755), 0);
    /* Neither exists yet: the same spelling, and ./ and .. spellings of it. */
    assert_int_equal(parse(&o, &err, "--checkpoint", same, "--dump", same, NULL), -1);
    md_test_contains(err.msg, "--checkpoint");
    md_test_contains(err.msg, "--dump");
    md_test_contains(err.msg, same);
    md_test_contains(err.msg, "same file");
    assert_int_equal(parse(&o, &err, "--checkpoint", dotted, "--dump", same, NULL), -1);
    md_test_contains(err.msg, "same file");
    /* Existing files: a symlink and a hard link are the file they name. */
    spit(real, "x", 1);
    assert_int_equal(symlink("real.xyz", slink), 0);
    assert_int_equal(parse(&o, &err, "--checkpoint", slink, "--dump", real, NULL), -1);
    md_test_contains(err.msg, slink);
    md_test_contains(err.msg, real);
    /* A dangling symlink is the file that writing through it would create. */
    char dangling[512], target[512];
    tmp_path(dangling, sizeof dangling, "dangling.xyz");
    tmp_path(target, sizeof target, "target.ckpt");
    assert_int_equal(symlink("sub/../target.ckpt", dangling), 0);
    assert_int_equal(parse(&o, &err, "--checkpoint", target, "--dump", dangling, NULL), -1);
    md_test_contains(err.msg, dangling);
    /* Inputs: the restart file and the data file are never overwritten. */
    spit(ck, "ckpt", 4);
    assert_int_equal(parse(&o, &err, "--restart", ck, "--dump", ck, "--dump-format", "xyz",
                           NULL), -1);
    md_test_contains(err.msg, "--restart");
    md_test_contains(err.msg, "overwrite the input");
    spit(data, "data", 4);
    assert_int_equal(link(data, hard), 0);
    assert_int_equal(parse(&o, &err, "--data", data, "--dump", hard, "--dump-format", "xyz",
                           NULL), -1);
    md_test_contains(err.msg, "--data");
    assert_int_equal(parse(&o, &err, "--data", data, "--checkpoint", data, NULL), -1);
    md_test_contains(err.msg, "--data");
    /* Allowed: distinct files, and a checkpoint that replaces the restart file. */
    assert_int_equal(parse(&o, &err, "--checkpoint", same, "--dump", other, NULL), 0);
    assert_int_equal(parse(&o, &err, "--restart", ck, "--checkpoint", ck, NULL), 0);
    /* Nothing was touched. */
    size_t n;
    char *t = slurp(ck, &n);
    assert_true(n == 4 && !memcmp(t, "ckpt", 4));
    free(t);
    assert_int_equal(access(same, F_OK), -1);
}

static void test_data_file_errors(void **state)
{
    (void)state;
    static const char head[] = "title\n\n2 atoms\n1 atom types\n0 4 xlo xhi\n0 4 ylo yhi\n"
                               "0 4 zlo zhi\n\nMasses\n\n1 1.0\n\nAtoms # atomic\n\n";
    char buf[512];
    md_system sys;
    md_error err;
    snprintf(buf, sizeof buf, "%s1 1 1 1 1\n2 1 1 1e30 1\n", head);
    assert_int_equal(md_lammps_parse(buf, strlen(buf), "in.lmp", 0.005, &sys, &err), -1);
    md_test_contains(err.msg, "in.lmp:16:");
    md_test_contains(err.msg, "outside the box");
    md_test_contains(err.msg, "y = 1e+30");
    snprintf(buf, sizeof buf, "%s1 1 1 1 1\n2 1 1 x2 1\n", head);
    assert_int_equal(md_lammps_parse(buf, strlen(buf), "in.lmp", 0.005, &sys, &err), -1);
    md_test_contains(err.msg, "in.lmp:16:");
    md_test_contains(err.msg, "(y)");
    snprintf(buf, sizeof buf, "%s1 1 1 1 1\n1 1 2 2 2\n", head);
    assert_int_equal(md_lammps_parse(buf, strlen(buf), "in.lmp", 0.005, &sys, &err), -1);
    md_test_contains(err.msg, "atom id 1 appears more than once (Atoms entries 1 and 2)");
    snprintf(buf, sizeof buf, "%s1 1 1 1 1\n", head);
    assert_int_equal(md_lammps_parse(buf, strlen(buf), "in.lmp", 0.005, &sys, &err), -1);
    md_test_contains(err.msg, "in.lmp");
}

/* ---- the program ----------------------------------------------------------------------- */


/* Runs the program with args (NULL-terminated), stdout and stderr to files; exit status.
 * fsize_limit > 0: the child runs under RLIMIT_FSIZE (bytes) with SIGXFSZ ignored, so a
 * write past it fails with EFBIG, as on a full disk. A child that would block (the old
 * program opening a FIFO) is killed by SIGALRM after 300 s: not an exit, so a failure. */
static int run_program_limited(const char *prog, const char *out, const char *errf,
                               const char **args, long fsize_limit)
{
    const char *argv[48];
    int k = 0;
    argv[k++] = prog;
    for (; *args; args++)
        argv[k++] = *args;
    argv[k] = NULL;
    pid_t pid = fork();
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0)
            _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        if (fsize_limit > 0) {
            struct rlimit rl = {(rlim_t)fsize_limit, (rlim_t)fsize_limit};
            signal(SIGXFSZ, SIG_IGN);
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
                _exit(125);
        }
        alarm(300);
        execv(prog, (char *const *)argv);
        _exit(127);
    }
    int st;
    assert_true(waitpid(pid, &st, 0) == pid);
    if (!WIFEXITED(st))
        fail_msg("%s ended by signal %d, not an exit", prog, WTERMSIG(st));
    return WEXITSTATUS(st);
}

static int run_program(const char *prog, const char *out, const char *errf, const char **args)
{
    return run_program_limited(prog, out, errf, args, 0);
}

/* The thermo lines (not starting with '#') with step >= from, and the last line. */
static void thermo_from(const char *text, long from, char *out, size_t size, char *last,
                        size_t lsize)
{
    out[0] = '\0';
    const char *p = text;
    const char *prev = text;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        if (p[0] != '#' && strncmp(p, "checksum", 8) != 0 && strtol(p, NULL, 10) >= from)
            strncat(out, p, n + 1 < size - strlen(out) ? n + 1 : 0);
        prev = p;
        p = eol ? eol + 1 : p + n;
    }
    snprintf(last, lsize, "%s", prev);
}

/* The program end to end: a checkpoint and a dump written by the parallel driver are the
 * same bytes as the serial driver's; restarts from it on other decompositions, variants and
 * drivers reproduce the uninterrupted run's thermo lines and checksum. */
static void run_ok(const char *prog, const char *out, const char *errf, const char **args)
{
    int st = run_program(prog, out, errf, args);
    if (st != 0) {
        char *e = slurp(errf, NULL);
        fail_msg("shmemu-md exited %d: %s", st, e);
    }
}

/* --occupancy FILE: PE 0's block records of the last step without a search, as an event
 * log (md/src/occupancy.h, docs/events.md): a header naming the step and the SM count, and
 * for each of the step's six roles as many block_start as block_end events, in time order,
 * on SMs below the emulator's limit (SHMEMU_EMU_SMS); the run's checksum is the run's
 * without it. Refused with the serial driver, where no step could be recorded, and on a
 * directory. */
static void test_occupancy(void **state)
{
    (void)state;
    char prog[600];
    if (!md_test_find_program(prog, sizeof prog))
        fail_msg("shmemu-md not found next to this test nor in bin/ (md.mk builds it first)");
    char out[512], errf[512], occ[512];
    tmp_path(out, sizeof out, "occ_out.txt");
    tmp_path(errf, sizeof errf, "occ_err.txt");
    tmp_path(occ, sizeof occ, "occ.jsonl");
    const char *plain[] = {"--pes", "2", "--cells", "4", "--steps", "6", "--nstlist", "4", NULL};
    run_ok(prog, out, errf, plain);
    char *t_plain = slurp(out, NULL);
    setenv("SHMEMU_EMU_SMS", "3", 1);
    const char *with[] = {"--pes", "2", "--cells", "4", "--steps", "6", "--nstlist", "4",
                          "--occupancy", occ, NULL};
    run_ok(prog, out, errf, with);
    unsetenv("SHMEMU_EMU_SMS");
    char *t_with = slurp(out, NULL);
    assert_string_equal(t_plain, t_with); /* records change no bit of the run */
    free(t_plain);
    free(t_with);
    char *log = slurp(occ, NULL);
    char *line = strtok(log, "\n");
    assert_non_null(line);
    assert_non_null(strstr(line, "\"shmemu_events\":1"));
    assert_non_null(strstr(line, "\"step\":6")); /* step 8 would be a search; 6 is the last */
    const char *sms = strstr(line, "\"sms\":");
    assert_non_null(sms);
    assert_true(atoi(sms + 6) >= 1 && atoi(sms + 6) <= 3);
    const char *ev = strstr(line, "\"events\":");
    assert_non_null(ev);
    const int events = atoi(ev + 9);
    static const char *roles[] = {"kick+drift", "local-nb", "halo-x", "nonlocal-nb", "halo-f",
                                  "kick"};
    int starts[6] = {0}, ends[6] = {0}, n = 0;
    long long prev_t = -1;
    while ((line = strtok(NULL, "\n")) != NULL) {
        n++;
        const char *tt = strstr(line, "\"t\":"), *sm = strstr(line, "\"sm\":");
        assert_non_null(tt);
        assert_non_null(sm);
        const long long t = atoll(tt + 4);
        assert_true(t >= prev_t); /* time order */
        prev_t = t;
        assert_true(atoi(sm + 5) >= 0 && atoi(sm + 5) < 3);
        int r = -1;
        for (int k = 0; k < 6; k++) {
            char key[64];
            snprintf(key, sizeof key, "\"kernel\":\"%s\"", roles[k]);
            if (strstr(line, key))
                r = k;
        }
        if (r < 0)
            fail_msg("a record of no step role: %s", line);
        if (strstr(line, "\"op\":\"block_start\""))
            starts[r]++;
        else if (strstr(line, "\"op\":\"block_end\""))
            ends[r]++;
        else
            fail_msg("neither block_start nor block_end: %s", line);
    }
    free(log);
    assert_int_equal(n, events);
    for (int k = 0; k < 6; k++) {
        if (starts[k] < 1 || starts[k] != ends[k])
            fail_msg("role %s: %d block starts, %d ends", roles[k], starts[k], ends[k]);
    }
    /* refusals: the serial driver; no step without a search; a directory */
    const char *serial[] = {"--halo", "serial", "--cells", "4", "--steps", "2", "--occupancy",
                            occ, NULL};
    assert_int_not_equal(run_program(prog, out, errf, serial), 0);
    char *e = slurp(errf, NULL);
    assert_non_null(strstr(e, "--occupancy"));
    free(e);
    char occ2[512];
    tmp_path(occ2, sizeof occ2, "occ_none.jsonl");
    const char *nostep[] = {"--pes", "2", "--cells", "4", "--steps", "2", "--nstlist", "1",
                            "--occupancy", occ2, NULL};
    assert_int_not_equal(run_program(prog, out, errf, nostep), 0);
    e = slurp(errf, NULL);
    assert_non_null(strstr(e, "no step without a pair search"));
    free(e);
    assert_int_equal(access(occ2, F_OK), -1); /* nothing written */
    char dir[512];
    tmp_path(dir, sizeof dir, "");
    const char *todir[] = {"--pes", "2", "--cells", "4", "--steps", "2", "--nstlist", "4",
                           "--occupancy", dir, NULL};
    assert_int_not_equal(run_program(prog, out, errf, todir), 0);
}

static void test_program(void **state)
{
    (void)state;
    char prog[600];
    if (!md_test_find_program(prog, sizeof prog))
        fail_msg("shmemu-md not found next to this test nor in bin/ (md.mk builds it first)");
    char out[512], errf[512], ck[512], dump[512], cks[512], dumps[512];
    tmp_path(out, sizeof out, "out.txt");
    tmp_path(errf, sizeof errf, "err.txt");
    tmp_path(ck, sizeof ck, "run.ckpt");
    tmp_path(dump, sizeof dump, "run.lammpstrj");
    tmp_path(cks, sizeof cks, "serial.ckpt");
    tmp_path(dumps, sizeof dumps, "serial.lammpstrj");
    /* A: 60 steps straight (parallel driver, fused halo, 4 PEs). */
    const char *a[] = {"--pes", "4", "--cells", "5", "--steps", "60", "--nstlist", "10",
                       "--thermo", "5", "--progress", NULL};
    run_ok(prog, out, errf, a);
    char *ta = slurp(out, NULL);
    /* B1: 30 steps with a checkpoint at step 30 and a dump, parallel and serial. */
    const char *b1[] = {"--pes", "4", "--cells", "5", "--steps", "30", "--nstlist", "10",
                        "--thermo", "5", "--checkpoint", ck, "--dump", dump, "--dump-every",
                        "10", NULL};
    run_ok(prog, out, errf, b1);
    const char *b1s[] = {"--halo", "serial", "--cells", "5", "--steps", "30", "--nstlist",
                         "10", "--checkpoint", cks, "--dump", dumps, "--dump-every", "10",
                         NULL};
    run_ok(prog, out, errf, b1s);
    size_t l1, l2;
    char *tdump = slurp(dump, &l1), *sdump = slurp(dumps, &l2);
    int frames = 0;
    for (const char *p = tdump; (p = strstr(p, "ITEM: TIMESTEP")); p++)
        frames++;
    assert_int_equal(frames, 4); /* steps 0, 10, 20, 30 */
    assert_true(l1 == l2 && memcmp(tdump, sdump, l1) == 0);
    free(tdump);
    free(sdump);
    char *c1 = slurp(ck, &l1), *c2 = slurp(cks, &l2);
    assert_true(l1 == l2 && memcmp(c1, c2, l1) == 0);
    free(c1);
    free(c2);
    /* B2: restarts to step 60 from the parallel driver's checkpoint: 3 PEs pulse/signal,
     * 2x2x2 fused, and the serial driver on 2 PEs. */
    static const char *variants[][6] = {
        {"--pes", "3", "--halo", "pulse", "--transport", "signal"},
        {"--dd", "2x2x2", "--halo", "fused", "--transport", "direct"},
        {"--pes", "2", "--halo", "serial", "--thermo", "5"},
    };
    static char la[8192], lb[8192], lasta[256], lastb[256];
    thermo_from(ta, 30, la, sizeof la, lasta, sizeof lasta);
    assert_true(strlen(la) > 200);
    assert_true(strncmp(lasta, "checksum ", 9) == 0 && strlen(lasta) == 9 + 16 + 1);
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++) {
        const char *b2[] = {"--cells", "5", "--steps", "60", "--nstlist", "10", "--thermo",
                            "5", "--restart", ck, variants[v][0], variants[v][1],
                            variants[v][2], variants[v][3], variants[v][4], variants[v][5],
                            NULL};
        run_ok(prog, out, errf, b2);
        char *tb = slurp(out, NULL);
        md_test_contains(tb, "# restarted from");
        thermo_from(tb, 30, lb, sizeof lb, lastb, sizeof lastb);
        assert_string_equal(la, lb); /* whole thermo lines, drift column included */
        assert_string_equal(lasta, lastb);
        free(tb);
    }
    /* Run A had --progress: nothing of it on stdout. */
    assert_null(strstr(ta, "steps/s"));
    free(ta);
    /* Errors: exit 1 and a message naming the problem. */
    const char *e1[] = {"--pes", "2", "--cells", "5", "--steps", "60", "--nstlist", "10",
                        "--rc", "2.4", "--restart", ck, NULL};
    assert_int_equal(run_program(prog, out, errf, e1), 1);
    char *t = slurp(errf, NULL);
    md_test_contains(t, "rc differs");
    free(t);
    size_t len;
    char *raw = slurp(ck, &len);
    raw[len / 2] ^= 4;
    char bad[512];
    tmp_path(bad, sizeof bad, "bad.ckpt");
    spit(bad, raw, len);
    free(raw);
    const char *e2[] = {"--cells", "5", "--nstlist", "10", "--restart", bad, NULL};
    assert_int_equal(run_program(prog, out, errf, e2), 1);
    t = slurp(errf, NULL);
    md_test_contains(t, "checksum mismatch");
    free(t);
    const char *e3[] = {"--pes", "2", "--cells", "5", "--dump", "/nonexistent-dir/t.xyz", NULL};
    assert_int_equal(run_program(prog, out, errf, e3), 1);
    t = slurp(errf, NULL);
    md_test_contains(t, "/nonexistent-dir/t.xyz: cannot create");
    free(t);
    const char *e4[] = {"--cells", "5", "--dd", "7x1x1", NULL};
    assert_int_equal(run_program(prog, out, errf, e4), 1);
    t = slurp(errf, NULL);
    md_test_contains(t, "use fewer domains along x");
    free(t);
    const char *e5[] = {"--pes", "2", "--cells", "6", "--nstlist", "10", "--restart", ck, NULL};
    assert_int_equal(run_program(prog, out, errf, e5), 1);
    t = slurp(errf, NULL);
    md_test_contains(t, "atom count differs");
    free(t);
}

static void need_program(char *prog, size_t size)
{
    if (!md_test_find_program(prog, size))
        fail_msg("shmemu-md not found next to this test nor in bin/ (md.mk builds it first)");
}

/* Runs prog with args and expects exit 1 with needle (and the path) on stderr. */
static void expect_refused(const char *prog, const char **args, const char *needle,
                           const char *path)
{
    char out[512], errf[512];
    tmp_path(out, sizeof out, "refused.out");
    tmp_path(errf, sizeof errf, "refused.err");
    int st = run_program(prog, out, errf, args);
    char *t = slurp(errf, NULL);
    if (st != 1)
        fail_msg("shmemu-md exited %d, not 1; stderr: %s", st, t);
    md_test_contains(t, needle);
    md_test_contains(t, path);
    free(t);
}

/* Reads the frames of a LAMMPS dump (as md_dump writes it: atoms in id order) into the
 * unwrapped positions x + ix·L, σ: u[(frame · n + atom) · 3 + d]; returns the frame count. */
static int read_unwrapped(const char *text, int natoms, double *u, long *steps, int max_frames,
                          int64_t *nonzero_images)
{
    const char *p = text;
    int fr = 0;
    *nonzero_images = 0;
    while (*p) {
        assert_true(fr < max_frames);
        assert_memory_equal(p, "ITEM: TIMESTEP\n", 15);
        char *end;
        steps[fr] = strtol(p + 15, &end, 10);
        p = strstr(end, "ITEM: BOX BOUNDS pp pp pp\n");
        assert_non_null(p);
        p += 26;
        double lo[3], len[3];
        for (int d = 0; d < 3; d++) {
            lo[d] = strtod(p, &end);
            len[d] = strtod(end, &end) - lo[d];
            p = end + 1;
        }
        const char *ah = "ITEM: ATOMS id type x y z ix iy iz vx vy vz\n";
        assert_memory_equal(p, ah, strlen(ah));
        p += strlen(ah);
        for (int i = 0; i < natoms; i++) {
            assert_int_equal(strtoll(p, &end, 10), i + 1);
            (void)strtoll(end, &end, 10);
            double x[3];
            for (int d = 0; d < 3; d++)
                x[d] = strtod(end, &end);
            for (int d = 0; d < 3; d++) {
                long long im = strtoll(end, &end, 10);
                *nonzero_images += im != 0;
                u[((size_t)fr * (size_t)natoms + (size_t)i) * 3 + (size_t)d] =
                    x[d] - lo[d] + (double)im * len[d];
            }
            p = strchr(end, '\n');
            assert_non_null(p);
            p++;
        }
        fr++;
    }
    return fr;
}

/* Image flags end to end (LAMMPS's convention, unwrapped = x + i·L): a hot run whose atoms
 * cross the periodic boundary many times. The dump's unwrapped positions move continuously
 * (no jump of a box length between frames, which is what wrapped positions without images
 * show); the images are the same bits on the serial driver, the fused kernels on 2x2x1 and
 * 3x1x1 and the pulse kernels (the whole dump is compared byte for byte); and a restart
 * from the checkpoint of step 200 writes the same frames, images included, as the
 * uninterrupted run. */
static void test_program_images(void **state)
{
    (void)state;
    char prog[600], out[512], errf[512], ref[512], dump[512], ck[512];
    need_program(prog, sizeof prog);
    tmp_path(out, sizeof out, "img.out");
    tmp_path(errf, sizeof errf, "img.err");
    tmp_path(ref, sizeof ref, "img-serial.lammpstrj");
    tmp_path(dump, sizeof dump, "img-par.lammpstrj");
    tmp_path(ck, sizeof ck, "img.ckpt");
#define IMG_RUN "--cells", "4", "--temperature", "3", "--nstlist", "20", "--dump-every", "20"
    const char *serial[] = {IMG_RUN, "--steps", "400", "--halo", "serial", "--dump", ref, NULL};
    run_ok(prog, out, errf, serial);
    char *text = slurp(ref, NULL);
    enum { NATOMS = 256, MAXF = 32 };
    double *u = md_xmalloc((size_t)MAXF * NATOMS * 3 * sizeof *u);
    long steps[MAXF];
    int64_t nonzero;
    int nf = read_unwrapped(text, NATOMS, u, steps, MAXF, &nonzero);
    assert_int_equal(nf, 21);
    assert_true(nonzero > 20); /* atoms crossed the boundary: the images are exercised */
    double box = 4 * cbrt(4.0 / 0.8442), worst = 0;
    for (int f = 1; f < nf; f++)
        for (size_t k = 0; k < (size_t)NATOMS * 3; k++) {
            double jump = fabs(u[(size_t)f * NATOMS * 3 + k] - u[(size_t)(f - 1) * NATOMS * 3 + k]);
            worst = jump > worst ? jump : worst;
        }
    if (!(worst < box / 4)) /* 20 steps at T 3 move an atom ~0.2 σ; the box is 6.7 σ */
        fail_msg("an unwrapped position jumped by %g σ between frames (box %g σ)", worst, box);
    free(u);
    /* The same images on every driver and decomposition: the same bytes. Under
     * ThreadSanitizer (a TSan shmemu-md runs each 400-step job about 40 times slower; this
     * test was the TSan stage's longest, 118 s) one parallel run is kept: image counting is
     * the same code on every driver, and the restart below runs a second decomposition. */
    const char *par[][10] = {
        {"--halo", "fused", "--pes", "4", "--dd", "2x2x1", NULL},
        {"--halo", "fused", "--pes", "3", "--dd", "3x1x1", NULL},
        {"--halo", "pulse", "--pes", "4", NULL},
    };
    size_t n_par = sizeof par / sizeof *par;
#if defined(__SANITIZE_THREAD__)
    n_par = 1;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
    n_par = 1;
#endif
#endif
    for (size_t v = 0; v < n_par; v++) {
        const char *args[32] = {IMG_RUN, "--steps", "400", "--dump", dump};
        size_t k = 0;
        while (args[k])
            k++;
        for (size_t j = 0; par[v][j]; j++)
            args[k++] = par[v][j];
        args[k] = NULL;
        run_ok(prog, out, errf, args);
        char *t = slurp(dump, NULL);
        if (strcmp(t, text) != 0)
            fail_msg("the dump of %s %s %s %s differs from the serial driver's", par[v][1],
                     par[v][2], par[v][3], par[v][4] ? par[v][4] : "");
        free(t);
    }
    /* Restart: the checkpoint of step 200 carries the images. */
    const char *first[] = {IMG_RUN, "--steps", "200", "--checkpoint", ck, "--dump", dump, NULL};
    run_ok(prog, out, errf, first);
    const char *again[] = {IMG_RUN,  "--steps", "400", "--restart", ck, "--dump", dump,
                           "--pes", "3", "--dd", "3x1x1", NULL};
    run_ok(prog, out, errf, again);
    char *t = slurp(dump, NULL);
    const char *from = strstr(text, "ITEM: TIMESTEP\n200\n");
    assert_non_null(from);
    if (strcmp(t, from) != 0)
        fail_msg("the restarted run's frames (steps 200-400) differ from the uninterrupted "
                 "run's");
    free(t);
    free(text);
#undef IMG_RUN
}

/* --checkpoint and --dump onto a FIFO, then onto /dev/null: refused before any write, and
 * the node is still what it was. The FIFO comes first: only once the program is shown to
 * refuse a node it made itself is /dev/null (which the old program, run as root, replaced
 * by a regular file) handed to it. */
static void test_program_output_targets(void **state)
{
    (void)state;
    char prog[600], fifo_ck[512], fifo_dump[512], ck[512];
    need_program(prog, sizeof prog);
    tmp_path(fifo_ck, sizeof fifo_ck, "fifo.ckpt");
    tmp_path(fifo_dump, sizeof fifo_dump, "fifo.xyz");
    tmp_path(ck, sizeof ck, "targets.ckpt");
    assert_int_equal(mkfifo(fifo_ck, 0600), 0);
    assert_int_equal(mkfifo(fifo_dump, 0600), 0);
    struct stat st;
    const char *a1[] = {"--halo", "serial", "--cells", "4", "--steps", "10", "--nstlist",
                        "10", "--checkpoint", fifo_ck, NULL};
    expect_refused(prog, a1, "--checkpoint", fifo_ck);
    assert_int_equal(stat(fifo_ck, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    const char *a2[] = {"--pes", "2", "--cells", "4", "--steps", "10", "--dump", fifo_dump,
                        NULL};
    expect_refused(prog, a2, "not a regular file (a FIFO)", fifo_dump);
    assert_int_equal(stat(fifo_dump, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    struct stat before, after;
    assert_int_equal(stat("/dev/null", &before), 0);
    assert_true(S_ISCHR(before.st_mode));
    const char *a3[] = {"--halo", "serial", "--cells", "4", "--steps", "10", "--nstlist",
                        "10", "--checkpoint", "/dev/null", NULL};
    expect_refused(prog, a3, "not a regular file (a character device)", "/dev/null");
    const char *a4[] = {"--cells", "4", "--steps", "10", "--dump", "/dev/null",
                        "--dump-format", "xyz", NULL};
    expect_refused(prog, a4, "--dump /dev/null", "/dev/null");
    assert_int_equal(stat("/dev/null", &after), 0);
    assert_true(S_ISCHR(after.st_mode) && after.st_rdev == before.st_rdev &&
                after.st_ino == before.st_ino);
    /* --restart r --dump r: the checkpoint is not truncated. */
    char out[512], errf[512];
    tmp_path(out, sizeof out, "targets.out");
    tmp_path(errf, sizeof errf, "targets.err");
    const char *w[] = {"--halo", "serial", "--cells", "4", "--steps", "10", "--nstlist",
                       "10", "--checkpoint", ck, NULL};
    run_ok(prog, out, errf, w);
    size_t l1, l2;
    char *c1 = slurp(ck, &l1);
    const char *a5[] = {"--cells", "4", "--steps", "20", "--nstlist", "10", "--restart", ck,
                        "--dump", ck, "--dump-format", "xyz", NULL};
    expect_refused(prog, a5, "--restart", ck);
    char *c2 = slurp(ck, &l2);
    assert_true(l1 == l2 && l1 > 0 && memcmp(c1, c2, l1) == 0);
    free(c1);
    free(c2);
    /* --data in --dump in, --data in --checkpoint ./in: the data file is not overwritten. */
    char data[512], dotted[600];
    tmp_path(data, sizeof data, "in.data");
    c1 = slurp(MD_TEST_DATA_DIR "/lammps_fcc256.data", &l1);
    spit(data, c1, l1);
    snprintf(dotted, sizeof dotted, "%s/./in.data", tmpdir);
    const char *a6[] = {"--data", data, "--steps", "10", "--dump", data, "--dump-format",
                        "lammps", NULL};
    expect_refused(prog, a6, "--data", data);
    const char *a7[] = {"--data", data, "--halo", "serial", "--steps", "10", "--nstlist", "10",
                        "--checkpoint", dotted, NULL};
    expect_refused(prog, a7, "overwrite the input", dotted);
    c2 = slurp(data, &l2);
    assert_true(l1 == l2 && memcmp(c1, c2, l1) == 0);
    free(c1);
    free(c2);
}

/* A checkpoint that cannot be written whole (EFBIG under RLIMIT_FSIZE, like a full disk):
 * exit 1 naming the file and the reason, nothing counted as written, no temporary file. */
static void test_program_checkpoint_write_fails(void **state)
{
    (void)state;
    char prog[600], ck[512], out[512], errf[512];
    need_program(prog, sizeof prog);
    tmp_path(out, sizeof out, "full.out");
    tmp_path(errf, sizeof errf, "full.err");
    static const char *drivers[][2] = {{"--halo", "serial"}, {"--pes", "2"}};
    for (int k = 0; k < 2; k++) {
        tmp_path(ck, sizeof ck, k ? "full2.ckpt" : "full1.ckpt");
        /* 256 atoms: a 21.7 kB checkpoint; stdout stays far below the 16 kB limit. */
        const char *a[] = {drivers[k][0], drivers[k][1], "--cells", "4", "--steps", "20",
                           "--nstlist", "10", "--thermo", "0", "--checkpoint", ck,
                           "--checkpoint-every", "10", NULL};
        int st = run_program_limited(prog, out, errf, a, 16384);
        char *t = slurp(errf, NULL);
        if (st != 1)
            fail_msg("%s: exited %d with a failing checkpoint write; stderr: %s",
                     drivers[k][1], st, t);
        md_test_contains(t, ck);
        md_test_contains(t, strerror(EFBIG));
        if (strstr(t, "checkpoints written"))
            fail_msg("a failed checkpoint was counted: %s", t);
        free(t);
        assert_int_equal(access(ck, F_OK), -1);
        char cmd[700];
        snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '^full[12].ckpt.tmp'", tmpdir);
        assert_int_not_equal(system(cmd), 0); /* no temporary file left */
    }
}

/* Temporary files of killed runs: removed at start when their process is gone; files of
 * live processes, of other paths and of other name patterns are left alone. */
static void test_program_stale_temps(void **state)
{
    (void)state;
    char prog[600], ck[512], out[512], errf[512];
    need_program(prog, sizeof prog);
    tmp_path(ck, sizeof ck, "stale.ckpt");
    tmp_path(out, sizeof out, "stale.out");
    tmp_path(errf, sizeof errf, "stale.err");
    /* A pid no process can have: pids are below pid_max (a reaped child's pid could be
     * reused on a busy machine). */
    long dead = 0;
    FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
    if (!f || fscanf(f, "%ld", &dead) != 1)
        fail_msg("cannot read /proc/sys/kernel/pid_max");
    fclose(f);
    assert_true(kill((pid_t)dead, 0) == -1 && errno == ESRCH);
    char gone[600], alive[600], zero[600], suffix[600], other[600];
    snprintf(gone, sizeof gone, "%s.tmp.%ld", ck, dead);
    snprintf(alive, sizeof alive, "%s.tmp.%ld", ck, (long)getpid());
    snprintf(zero, sizeof zero, "%s.tmp.0%ld", ck, dead);
    snprintf(suffix, sizeof suffix, "%s.tmp.%ldx", ck, dead);
    snprintf(other, sizeof other, "%s/other.ckpt.tmp.%ld", tmpdir, dead);
    const char *files[] = {gone, alive, zero, suffix, other};
    for (int k = 0; k < 5; k++)
        spit(files[k], "partial", 7);
    const char *a[] = {"--halo", "serial", "--cells", "4", "--steps", "10", "--nstlist", "10",
                       "--checkpoint", ck, NULL};
    run_ok(prog, out, errf, a);
    assert_int_equal(access(gone, F_OK), -1);
    for (int k = 1; k < 5; k++)
        if (access(files[k], F_OK) != 0)
            fail_msg("%s was removed, but it is not a stale temporary file of %s", files[k],
                     ck);
    char *t = slurp(out, NULL);
    md_test_contains(t, "removed");
    md_test_contains(t, gone);
    free(t);
    for (int k = 1; k < 5; k++)
        unlink(files[k]);
}

/* The extended XYZ dump as ASE reads it (python3-ase is a test dependency: a missing ASE
 * fails this test): atom count, element symbols, LAMMPS types and exact positions. */
static void test_dump_read_by_ase(void **state)
{
    (void)state;
    md_params par;
    md_sim *s = moving_sim(&par, 7);
    md_system snap;
    gather(s, &snap);
    /* Two atom types, and an origin away from 0. */
    snap.ntypes = 2;
    snap.mass = md_xrealloc(snap.mass, 2 * sizeof *snap.mass);
    snap.mass[1] = 2.5;
    for (int32_t i = 0; i < snap.atoms.n; i += 3)
        snap.atoms.type[i] = 1;
    for (int d = 0; d < 3; d++)
        snap.box.lo[d] = -1.75 * (d + 1);
    char path[512], out[512], errf[512], script[512];
    tmp_path(path, sizeof path, "ase.xyz");
    tmp_path(out, sizeof out, "ase.out");
    tmp_path(errf, sizeof errf, "ase.err");
    tmp_path(script, sizeof script, "read_dump.py");
    md_dump d;
    md_error err;
    assert_int_equal(md_dump_open(&d, path, MD_DUMP_XYZ, &err), 0);
    assert_int_equal(md_dump_frame(&d, &snap, 0, &err), 0);
    assert_int_equal(md_dump_frame(&d, &snap, 10, &err), 0);
    assert_int_equal(md_dump_close(&d, &err), 0);
    static const char py[] =
        "import sys\n"
        "import ase.io\n"
        "frames = ase.io.read(sys.argv[1], index=':', format='extxyz')\n"
        "print(len(frames))\n"
        "a = frames[-1]\n"
        "print(len(a))\n"
        "for s, t, p in zip(a.get_chemical_symbols(), a.arrays['type'], a.positions):\n"
        "    print(s, t, *(repr(float(x)) for x in p))\n";
    spit(script, py, sizeof py - 1);
    const char *args[] = {script, path, NULL};
    int st = run_program("/usr/bin/python3", out, errf, args);
    if (st != 0) {
        char *e = slurp(errf, NULL);
        fail_msg("ASE could not read the dump (exit %d; install python3-ase: "
                 "scripts/ensure-deps.sh test): %s", st, e);
    }
    char *text = slurp(out, NULL);
    char *p = text, *end;
    assert_int_equal(strtol(p, &end, 10), 2);
    assert_int_equal(strtol(end, &end, 10), snap.atoms.n);
    for (int32_t i = 0; i < snap.atoms.n; i++) {
        while (*end == '\n' || *end == ' ')
            end++;
        char *sp = strchr(end, ' ');
        assert_non_null(sp);
        char symbol[8];
        snprintf(symbol, sizeof symbol, "%.*s", (int)(sp - end), end);
        assert_string_equal(symbol, snap.atoms.type[i] ? "Ne" : "Ar");
        assert_int_equal(strtol(sp, &end, 10), snap.atoms.type[i] + 1);
        for (int dim = 0; dim < 3; dim++) {
            double x = strtod(end, &end);
            double want = snap.box.lo[dim] +
                          md_pos_to_double(md_wrap(snap.atoms.x[dim][i], snap.box.len[dim]));
            if (x != want)
                fail_msg("atom %d %c: ASE read %.17g, the state is %.17g", i, 'x' + dim, x,
                         want);
        }
    }
    free(text);
    md_system_free(&snap);
    md_sim_destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dump_xyz_round_trip),
        cmocka_unit_test(test_dump_lammps_round_trip),
        cmocka_unit_test(test_dump_errors),
        cmocka_unit_test(test_crc64),
        cmocka_unit_test(test_checkpoint_round_trip),
        cmocka_unit_test(test_checkpoint_damage),
        cmocka_unit_test(test_checkpoint_crafted),
        cmocka_unit_test(test_checkpoint_version1),
        cmocka_unit_test(test_checkpoint_mismatch),
        cmocka_unit_test(test_restart_equality),
        cmocka_unit_test(test_energy_drift_and_momentum),
        cmocka_unit_test(test_io_schedule),
        cmocka_unit_test(test_progress),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_output_paths),
        cmocka_unit_test(test_data_file_errors),
        cmocka_unit_test(test_program),
        cmocka_unit_test(test_occupancy),
        cmocka_unit_test(test_program_images),
        cmocka_unit_test(test_program_output_targets),
        cmocka_unit_test(test_program_checkpoint_write_fails),
        cmocka_unit_test(test_program_stale_temps),
        cmocka_unit_test(test_dump_read_by_ase),
    };
    return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
