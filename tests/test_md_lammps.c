/*
 * test_md_lammps.c: the LAMMPS data file reader: a good file with every feature, an exact
 * round trip of a lattice state (same checksums when run), every error path (each message
 * names the file, the line and what to do), a buffer without a terminating NUL, a small
 * mutation fuzz (every mutant is either accepted or rejected with a message), and a state
 * written by LAMMPS that must follow LAMMPS's own thermo output.
 */
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lammps_data.h"
#include "test_md_util.h"

static const char good[] =
    "LAMMPS data file: two types, unsorted ids\n"
    "\n"
    "4 atoms   # count\n"
    "2 atom types\n"
    "0 bonds\n"
    "-1.0 9.0 xlo xhi\n"
    "0.0 10.0 ylo yhi\n"
    "2.0 12.0 zlo zhi\n"
    "\n"
    "Masses\n"
    "\n"
    "1 1.0\n"
    "2 2.5  # heavy\n"
    "\n"
    "Pair Coeffs # lj/cut\n"
    "\n"
    "1 1.0 1.0\n"
    "2 1 1\n"
    "\n"
    "Atoms # atomic\n"
    "\n"
    "10 1 0.5 1.0 3.0 0 0 0\n"
    "3 2 2.5 5.0 7.0\n"
    "7 1 9.0 2.0 2.0 1 -1 0\n"
    "4 2 4.0 9.5 11.5\n"
    "\n"
    "Velocities\n"
    "\n"
    "3 0.5 -0.25 1.0\n"
    "10 1 2 3\n"
    "4 0 0 0\n"
    "7 -1 -2 -3\n";

static void test_parse_good(void **state)
{
    (void)state;
    md_system sys;
    md_error err;
    int rc = md_lammps_parse(good, sizeof good - 1, "good.data", 0.005, &sys, &err);
    if (rc != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(sys.atoms.n, 4);
    assert_int_equal(sys.ntypes, 2);
    assert_true(sys.mass[0] == 1.0 && sys.mass[1] == 2.5);
    assert_int_equal(sys.box.len[0], 10LL << 32);
    assert_true(sys.box.lo[0] == -1.0 && sys.box.lo[2] == 2.0);
    /* ordered by id */
    int64_t ids[4] = {3, 4, 7, 10};
    for (int i = 0; i < 4; i++)
        assert_int_equal(sys.atoms.id[i], ids[i]);
    /* atom 3: type 2, x = 2.5 - (-1) = 3.5, y 5, z 5 */
    assert_int_equal(sys.atoms.type[0], 1);
    assert_int_equal(sys.atoms.x[0][0], md_pos_from_double(3.5));
    assert_int_equal(sys.atoms.x[2][0], md_pos_from_double(5.0));
    /* atom 7 sits at xhi: wrapped to 0; z at zlo is 0 */
    assert_int_equal(sys.atoms.x[0][2], 0);
    assert_int_equal(sys.atoms.x[2][2], 0);
    /* momentum = m v / unit */
    double u = md_momentum_unit(0.005);
    assert_int_equal(sys.atoms.p[0][0], md_round_i64(2.5 * 0.5 / u));
    assert_int_equal(sys.atoms.p[1][0], md_round_i64(2.5 * -0.25 / u));
    assert_int_equal(sys.atoms.p[2][3], md_round_i64(3.0 / u));
    assert_int_equal(sys.atoms.p[0][1], 0);
    md_system_free(&sys);
}

static void test_no_velocities_means_zero(void **state)
{
    (void)state;
    const char text[] = "title\n1 atoms\n1 atom types\n0 5 xlo xhi\n0 5 ylo yhi\n"
                        "0 5 zlo zhi\nMasses\n\n1 1\n\nAtoms\n\n1 1 1 1 1\n";
    md_system sys;
    md_error err;
    assert_int_equal(md_lammps_parse(text, sizeof text - 1, "t", 0.005, &sys, &err), 0);
    assert_int_equal(sys.atoms.p[0][0], 0);
    md_system_free(&sys);
}

/* Writes sys in LAMMPS data format (what write_data would give), %.17g for exact doubles. */
static char *write_data(const md_system *sys, size_t *len)
{
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    fprintf(f, "written by test_md_lammps\n\n%d atoms\n%d atom types\n\n", sys->atoms.n,
            sys->ntypes);
    for (int d = 0; d < 3; d++)
        fprintf(f, "0 %.17g %clo %chi\n", md_pos_to_double(sys->box.len[d]), 'x' + d, 'x' + d);
    fprintf(f, "\nMasses\n\n");
    for (int t = 0; t < sys->ntypes; t++)
        fprintf(f, "%d %.17g\n", t + 1, sys->mass[t]);
    fprintf(f, "\nAtoms # atomic\n\n");
    for (int32_t i = 0; i < sys->atoms.n; i++)
        fprintf(f, "%lld %d %.17g %.17g %.17g 0 0 0\n", (long long)sys->atoms.id[i],
                sys->atoms.type[i] + 1, md_pos_to_double(sys->atoms.x[0][i]),
                md_pos_to_double(sys->atoms.x[1][i]), md_pos_to_double(sys->atoms.x[2][i]));
    fprintf(f, "\nVelocities\n\n");
    double u = md_momentum_unit(sys->dt);
    for (int32_t i = 0; i < sys->atoms.n; i++) {
        double m = sys->mass[sys->atoms.type[i]];
        fprintf(f, "%lld %.17g %.17g %.17g\n", (long long)sys->atoms.id[i],
                (double)sys->atoms.p[0][i] * u / m, (double)sys->atoms.p[1][i] * u / m,
                (double)sys->atoms.p[2][i] * u / m);
    }
    fclose(f);
    *len = size;
    return buf;
}

static void test_round_trip_runs_identically(void **state)
{
    (void)state;
    md_system lat, back;
    md_test_fcc(&lat, 4, 4, 5, 1.44, 31, 0.005);
    size_t len;
    char *text = write_data(&lat, &len);
    md_error err;
    if (md_lammps_parse(text, len, "roundtrip", 0.005, &back, &err) != 0)
        fail_msg("%s", err.msg);
    free(text);
    assert_int_equal(back.atoms.n, lat.atoms.n);
    for (int d = 0; d < 3; d++) {
        assert_int_equal(back.box.len[d], lat.box.len[d]);
        assert_memory_equal(back.atoms.x[d], lat.atoms.x[d], (size_t)lat.atoms.n * 8);
        assert_memory_equal(back.atoms.p[d], lat.atoms.p[d], (size_t)lat.atoms.n * 8);
    }
    md_params par;
    md_params_default(&par);
    par.nstlist = 5;
    md_sim *a = md_test_sim(&lat, &par, 1, 1, 1, false);
    md_sim *b = md_test_sim(&back, &par, 2, 1, 2, false);
    for (int k = 0; k < md_test_scaled(12, 3); k++) {
        md_test_step(a, false);
        md_test_step(b, false);
        assert_int_equal(md_sim_checksum(a), md_sim_checksum(b));
    }
    md_sim_destroy(a);
    md_sim_destroy(b);
    md_system_free(&lat);
    md_system_free(&back);
}

/* ---- errors ------------------------------------------------------------------------------ */

static const char head[] = "title\n2 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n"
                           "0 10 zlo zhi\n\nMasses\n\n1 1.0\n\n";

typedef struct bad_case {
    const char *name;
    const char *text;  /* complete file */
    const char *want1; /* substrings the message must hold */
    const char *want2;
} bad_case;

static const bad_case bad[] = {
    {"empty", "", "empty", "header"},
    {"unknown header line",
     "t\n2 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n7 widgets\n",
     "bad.data:7:", "unknown line"},
    {"bad atom count", "t\n-2 atoms\n", "bad.data:2:", "count"},
    {"count larger than the file", "t\n244444444 atoms\n1 atom types\n0 1 xlo xhi\n"
                                   "0 1 ylo yhi\n0 1 zlo zhi\nMasses\n\n1 1\n",
     "cannot fit", "fix the 'atoms' count"},
    {"no atoms line",
     "t\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\nMasses\n\n1 1\n",
     "no 'N atoms' line", "add one"},
    {"missing zlo", "t\n2 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\nMasses\n\n1 1\n",
     "zlo zhi", "give the box"},
    {"xhi below xlo", "t\n2 atoms\n1 atom types\n5 1 xlo xhi\n", "bad.data:4:",
     "must be larger"},
    {"triclinic",
     "t\n2 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n0 0.5 0 xy xz yz\n",
     "bad.data:7:", "triclinic boxes are not supported"},
    {"general triclinic",
     "t\n2 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n1 0 0 avec\n",
     "bad.data:7:", "triclinic"},
    {"bonds", "t\n2 atoms\n3 bonds\n", "bad.data:3:", "atom_style atomic"},
    {"missing Atoms section", "t\n2 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n"
                              "0 10 zlo zhi\n\nMasses\n\n1 1.0\n",
     "no Atoms section", "2 atoms"},
    {"missing Masses section", "t\n1 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n"
                               "0 10 zlo zhi\n\nAtoms\n\n1 1 1 1 1\n",
     "no Masses section", "add one"},
    {"too few atoms", NULL, "has 1 entries", "header says 2 atoms"},
    {"too many atoms", NULL, "more than the 2 entries", "fix the header"},
    {"non-numeric field", NULL, "bad.data:15:", "field 4 (y) is not a number: '1.2.3'"},
    {"non-integer type", NULL, "bad.data:14:", "field 2 (type) is not an integer"},
    {"wrong field count", NULL, "bad.data:14:", "6 fields"},
    {"duplicate id", NULL, "atom id 5 appears more than once", "unique"},
    {"type out of range", NULL, "bad.data:15:", "type 2, outside 1..1"},
    {"far outside the box", NULL, "bad.data:14:", "atom 1: x = 1e+30"},
    {"velocity of unknown atom", NULL, "bad.data:20:", "atom id 9 is not in the Atoms"},
    {"velocities before atoms", NULL, "bad.data:12:", "put the Atoms section first"},
    {"unsupported section", NULL, "bad.data:12:", "section 'Bonds' is not supported"},
    {"other atom style", NULL, "bad.data:12:", "atom_style full"},
    {"pair coeffs not reduced", NULL, "bad.data:14:", "epsilon = sigma = 1"},
    {"negative mass", "t\n1 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n"
                      "Masses\n\n1 -2\n",
     "bad.data:9:", "masses must be positive"},
    {"NaN coordinate", NULL, "bad.data:14:", "field 3 (x) is not a number"},
    {"section twice", NULL, "bad.data:16:", "appears twice"},
};

/* The cases with NULL text are `head` followed by this body (lines from 12 on). */
static const char *body_of(const char *name)
{
    static const struct {
        const char *name, *body;
    } b[] = {
        {"too few atoms", "Atoms\n\n1 1 1 1 1\n"},
        {"too many atoms", "Atoms\n\n1 1 1 1 1\n2 1 2 2 2\n3 1 3 3 3\n"},
        {"non-numeric field", "Atoms\n\n1 1 1 1 1\n2 1 1 1.2.3 1\n"},
        {"non-integer type", "Atoms\n\n1 x 1 1 1\n2 1 1 1 1\n"},
        {"wrong field count", "Atoms\n\n1 1 1 1 1 1\n2 1 1 1 1\n"},
        {"duplicate id", "Atoms\n\n5 1 1 1 1\n5 1 2 2 2\n"},
        {"type out of range", "Atoms\n\n1 1 1 1 1\n2 2 2 2 2\n"},
        {"far outside the box", "Atoms\n\n1 1 1e30 1 1\n2 1 2 2 2\n"},
        {"velocity of unknown atom", "Atoms\n\n1 1 1 1 1\n2 1 2 2 2\n\nVelocities\n\n"
                                     "1 0 0 0\n9 0 0 0\n"},
        {"velocities before atoms", "Velocities\n\n1 0 0 0\n2 0 0 0\n"},
        {"unsupported section", "Bonds\n\n1 1 1 2\n"},
        {"other atom style", "Atoms # full\n\n1 1 1 0 1 1 1\n"},
        {"pair coeffs not reduced", "Pair Coeffs\n\n1 0.5 1.0\n"},
        {"NaN coordinate", "Atoms\n\n1 1 nan 1 1\n2 1 2 2 2\n"},
        {"section twice", "Atoms\n\n1 1 1 1 1\n2 1 2 2 2\nMasses\n\n1 1\n"},
    };
    for (size_t k = 0; k < sizeof b / sizeof *b; k++)
        if (!strcmp(b[k].name, name))
            return b[k].body;
    return NULL;
}

static void test_errors(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        char text[2048];
        if (bad[k].text) {
            snprintf(text, sizeof text, "%s", bad[k].text);
        } else {
            const char *body = body_of(bad[k].name);
            assert_non_null(body);
            snprintf(text, sizeof text, "%s%s", head, body);
        }
        md_system sys;
        md_error err;
        err.msg[0] = '\0';
        int rc = md_lammps_parse(text, strlen(text), "bad.data", 0.005, &sys, &err);
        if (rc == 0)
            fail_msg("case '%s' was accepted", bad[k].name);
        if (!strstr(err.msg, bad[k].want1) || !strstr(err.msg, bad[k].want2))
            fail_msg("case '%s': message '%s' lacks '%s' or '%s'", bad[k].name, err.msg,
                     bad[k].want1, bad[k].want2);
        if (strncmp(err.msg, "bad.data", 8) != 0)
            fail_msg("case '%s': message does not start with the file name: %s", bad[k].name,
                     err.msg);
    }
}

static void test_nul_byte_and_missing_file(void **state)
{
    (void)state;
    char text[] = "t\n1 atoms\n1 atom types\n0 10 xlo\0xhi\n";
    md_system sys;
    md_error err;
    assert_int_equal(md_lammps_parse(text, sizeof text - 1, "nul.data", 0.005, &sys, &err), -1);
    md_test_contains(err.msg, "nul.data:4:");
    md_test_contains(err.msg, "NUL");
    assert_int_equal(md_lammps_read("/nonexistent/dir/x.data", 0.005, &sys, &err), -1);
    md_test_contains(err.msg, "/nonexistent/dir/x.data");
    md_test_contains(err.msg, "--data");
}

static void test_buffer_without_terminator(void **state)
{
    (void)state;
    /* An exact-size heap copy: reading past the end shows up under ASan and memcheck. */
    size_t len = sizeof good - 1;
    char *buf = md_xmalloc(len);
    memcpy(buf, good, len);
    md_system sys;
    md_error err;
    assert_int_equal(md_lammps_parse(buf, len, "exact", 0.005, &sys, &err), 0);
    md_system_free(&sys);
    /* Every prefix: accepted or rejected with a message, never a crash or an overread. */
    for (size_t cut = 0; cut < len; cut++) {
        char *p = md_xmalloc(cut ? cut : 1);
        memcpy(p, good, cut);
        err.msg[0] = '\0';
        int rc = md_lammps_parse(p, cut, "prefix", 0.005, &sys, &err);
        if (rc == 0)
            md_system_free(&sys);
        else
            assert_true(strlen(err.msg) > 10);
        free(p);
    }
    free(buf);
}

static void test_mutation_fuzz(void **state)
{
    (void)state;
    size_t len = sizeof good - 1;
    int rounds = md_test_scaled(4000, 20), accepted = 0;
    static const char alphabet[] = "0123456789 .-+eE#\n\tAtomsVelocitiesMasses xlohi";
    for (int k = 0; k < rounds; k++) {
        char *p = md_xmalloc(len);
        memcpy(p, good, len);
        uint64_t h = md_mix64((uint64_t)k * 31 + 1);
        int edits = 1 + (int)(h % 4);
        for (int e = 0; e < edits; e++) {
            h = md_mix64(h);
            p[h % len] = alphabet[(h >> 32) % (sizeof alphabet - 1)];
        }
        md_system sys;
        md_error err;
        err.msg[0] = '\0';
        if (md_lammps_parse(p, len, "mutant", 0.005, &sys, &err) == 0) {
            accepted++;
            assert_true(sys.atoms.n == 4 && sys.ntypes == 2);
            md_system_free(&sys);
        } else {
            assert_true(strncmp(err.msg, "mutant", 6) == 0);
        }
        free(p);
    }
    /* Some mutants (inside comments, a digit for a digit) stay valid: the fuzz reaches
     * both outcomes. */
    assert_true(accepted > 0 && accepted < rounds);
}

/* A state LAMMPS produced (lattice fcc 0.8442, 4x4x4 cells, velocity create 1.44 87287
 * loop geom, write_data), run here and in LAMMPS (lj/cut 2.5, neighbor 0.3 bin, every 20
 * check no, fix nve, dt 0.005). LAMMPS's thermo (Debian 12 package, 20220106):
 * step temp pe etotal. Our run must follow it to ~1e-9: the reader, the units, the force
 * field and the integrator all agree with LAMMPS. */
static void test_matches_lammps_reference(void **state)
{
    (void)state;
    static const struct {
        int step;
        double temp, pe, etot;
    } ref[] = {
        {0, 1.4400000000, -6.7733680533, -4.6218055533},
        {10, 1.1298532213, -6.3095501866, -4.6213905884},
        {20, 0.6239062977, -5.5576440290, -4.6254402835},
        {30, 0.7415607412, -5.7359639652, -4.6279679360},
        {40, 0.7504730873, -5.7494875395, -4.6281752118},
        {50, 0.7030384870, -5.6796163799, -4.6291780155},
        {60, 0.7773349938, -5.7903250410, -4.6288772476},
    };
    md_system sys;
    md_error err;
    if (md_lammps_read(MD_TEST_DATA_DIR "/lammps_fcc256.data", 0.005, &sys, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(sys.atoms.n, 256);
    md_params par;
    md_params_default(&par);
    md_sim *a = md_test_sim(&sys, &par, 1, 1, 1, false);
    md_sim *b = md_test_sim(&sys, &par, 2, 1, 1, false);
    int k = 0;
    for (int step = 0; step <= 60; step++) {
        if (step > 0) {
            md_test_step(a, step % 10 == 0);
            md_test_step(b, step % 10 == 0);
            assert_int_equal(md_sim_checksum(a), md_sim_checksum(b));
        }
        if (step != ref[k].step)
            continue;
        md_thermo th;
        md_sim_thermo(a, &th);
        if (fabs(th.temp - ref[k].temp) > 2e-8 || fabs(th.epot - ref[k].pe) > 2e-8 ||
            fabs(th.etot - ref[k].etot) > 2e-8)
            fail_msg("step %d: T %.10f pe %.10f etot %.10f; LAMMPS %.10f %.10f %.10f", step,
                     th.temp, th.epot, th.etot, ref[k].temp, ref[k].pe, ref[k].etot);
        k++;
    }
    assert_int_equal(k, 7);
    md_sim_destroy(a);
    md_sim_destroy(b);
    md_system_free(&sys);
}

/* ---- what the fixed-point state can hold ------------------------------------------------- */

/* A one-type file of two atoms with the given mass and atom 2's velocity line. */
static int parse_mv(const char *mass, const char *vel2, md_system *sys, md_error *err)
{
    char text[1024];
    snprintf(text, sizeof text,
             "t\n2 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n0 10 zlo zhi\n\n"
             "Masses\n\n1 %s\n\nAtoms\n\n1 1 1 1 1\n2 1 5 5 5\n\nVelocities\n\n"
             "1 0 0 0\n%s\n", mass, vel2);
    err->msg[0] = '\0';
    return md_lammps_parse(text, strlen(text), "fx.data", 0.005, sys, err);
}

static void test_fixed_point_limits(void **state)
{
    (void)state;
    md_system sys;
    md_error err;
    /* Velocities that overflowed the int64 momentum silently: refused, naming the atom, its
     * line, the field and the limit. */
    static const char *fast[] = {"2 1e12 0 0", "2 0 0 1e30", "2 0 -3e7 0"};
    static const char *field[] = {"vx = 1e+12", "vz = 1e+30", "vy = -3e+07"};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(parse_mv("1", fast[k], &sys, &err), -1);
        md_test_contains(err.msg, "fx.data:20:");
        md_test_contains(err.msg, "atom 2:");
        md_test_contains(err.msg, field[k]);
        md_test_contains(err.msg, "limit");
    }
    /* The limit itself: P_MAX u / m with P_MAX = min(2^52, 2^63/sqrt(6)) = 2^52 for 2 atoms
     * (the limit every input shares: fixed.h), in σ/τ. */
    double vmax = (double)MD_MOMENTUM_MAX * md_momentum_unit(0.005);
    char line[128];
    snprintf(line, sizeof line, "2 %.17g 0 0", vmax * 0.999);
    if (parse_mv("1", line, &sys, &err) != 0)
        fail_msg("a velocity just inside the limit was refused: %s", err.msg);
    assert_true(sys.atoms.p[0][1] > 0 && sys.atoms.p[0][1] <= MD_MOMENTUM_MAX);
    md_system_free(&sys);
    snprintf(line, sizeof line, "2 %.17g 0 0", vmax * 1.001);
    assert_int_equal(parse_mv("1", line, &sys, &err), -1);
    /* Masses that zeroed or exploded the temperature. */
    assert_int_equal(parse_mv("1e300", "2 1 0 0", &sys, &err), -1);
    md_test_contains(err.msg, "fx.data:10:");
    md_test_contains(err.msg, "type 1 has mass 1e+300, above the limit");
    assert_int_equal(parse_mv("1e-300", "2 1 0 0", &sys, &err), -1);
    md_test_contains(err.msg, "fx.data:10:");
    md_test_contains(err.msg, "type 1 has mass 1e-300, below the limit 1.25e-05");
    /* Heavy but holdable masses keep working (a slow one). */
    if (parse_mv("1e6", "2 1e-3 0 0", &sys, &err) != 0)
        fail_msg("%s", err.msg);
    md_system_free(&sys);
    /* One step may not cross the largest box: |v| dt < 2^19 σ (an atom as light as the
     * drift allows, dt²/2 = 1.25e-5, so that p stays below 2^52). */
    assert_int_equal(parse_mv("1.26e-5", "2 2e8 0 0", &sys, &err), -1);
    md_test_contains(err.msg, "atom 2: vx = 2e+08");
    md_test_contains(err.msg, "2^19");
    /* The total momentum must fit the int64 momentum sum: many atoms near the per-atom
     * limit. 1100 atoms at 0.99 · 2^52 each: the total is about 2^62.1. */
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    fprintf(f, "t\n1100 atoms\n1 atom types\n0 40 xlo xhi\n0 40 ylo yhi\n0 40 zlo zhi\n\n"
               "Masses\n\n1 1\n\nAtoms\n\n");
    for (int i = 0; i < 1100; i++)
        fprintf(f, "%d 1 %g %g %g\n", i + 1, 3.6 * (i % 11), 3.6 * (i / 11 % 10),
                3.6 * (i / 110));
    fprintf(f, "\nVelocities\n\n");
    double v_big = 0.99 * (double)MD_MOMENTUM_MAX * md_momentum_unit(0.005);
    for (int i = 0; i < 1100; i++)
        fprintf(f, "%d %.17g 0 0\n", i + 1, v_big);
    fclose(f);
    assert_int_equal(md_lammps_parse(text, size, "sum.data", 0.005, &sys, &err), -1);
    md_test_contains(err.msg, "sum.data: Velocities: the total momentum along x");
    md_test_contains(err.msg, "2^62");
    free(text);
}

/* ---- reading the file -------------------------------------------------------------------- */

static const char small_file[] = "t\n1 atoms\n1 atom types\n0 5 xlo xhi\n0 5 ylo yhi\n"
                                 "0 5 zlo zhi\nMasses\n\n1 1\n\nAtoms\n\n1 1 1 1 1\n";

/* A pipe holding `len` bytes of text (written now: below the pipe buffer), write end closed;
 * returns the read end, readable by name as /proc/self/fd/N. */
static int pipe_with(const char *text, size_t len)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    assert_true(write(fds[1], text, len) == (ssize_t)len);
    close(fds[1]);
    return fds[0];
}

static void test_input_files(void **state)
{
    (void)state;
    md_system sys;
    md_error err;
    /* An empty name is said to be one. */
    assert_int_equal(md_lammps_read("", 0.005, &sys, &err), -1);
    md_test_contains(err.msg, "empty file name");
    /* A device that never ends is refused before reading (was: read until out of memory). */
    assert_int_equal(md_lammps_read("/dev/zero", 0.005, &sys, &err), -1);
    md_test_contains(err.msg, "/dev/zero: is not a regular file or a pipe");
    /* A directory is said to be one (was: "read error"). */
    assert_int_equal(md_lammps_read(MD_TEST_DATA_DIR, 0.005, &sys, &err), -1);
    md_test_contains(err.msg, "is a directory");
    /* A pipe is read, up to the bound. */
    char path[64];
    int fd = pipe_with(small_file, sizeof small_file - 1);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    if (md_lammps_read(path, 0.005, &sys, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(sys.atoms.n, 1);
    md_system_free(&sys);
    close(fd);
    fd = pipe_with(small_file, sizeof small_file - 1);
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    assert_int_equal(md_lammps_read_bounded(path, 0.005, 0, 40, &sys, &err), -1);
    md_test_contains(err.msg, "more than 40 bytes");
    close(fd);
    /* A regular file larger than the bound is refused before reading. */
    char tmp[] = "/tmp/test_md_lammps_XXXXXX";
    fd = mkstemp(tmp);
    assert_true(fd >= 0);
    assert_true(write(fd, small_file, sizeof small_file - 1) == (ssize_t)(sizeof small_file - 1));
    close(fd);
    assert_int_equal(md_lammps_read_bounded(tmp, 0.005, 0, 40, &sys, &err), -1);
    md_test_contains(err.msg, "larger than the largest data file");
    assert_int_equal(md_lammps_read_bounded(tmp, 0.005, 0, 4096, &sys, &err), 0);
    md_system_free(&sys);
    unlink(tmp);
}

/* CRLF and CR-only line ends read as LF ones (CR-only said "ends inside the header"). */
static void test_line_endings(void **state)
{
    (void)state;
    size_t len = sizeof good - 1;
    md_system ref, sys;
    md_error err;
    assert_int_equal(md_lammps_parse(good, len, "lf", 0.005, &ref, &err), 0);
    for (int mode = 0; mode < 2; mode++) {
        char *text = md_xmalloc(2 * len);
        size_t n = 0;
        for (size_t i = 0; i < len; i++) {
            if (good[i] == '\n') {
                text[n++] = '\r';
                if (mode == 0)
                    text[n++] = '\n';
            } else {
                text[n++] = good[i];
            }
        }
        if (md_lammps_parse(text, n, mode ? "cr" : "crlf", 0.005, &sys, &err) != 0)
            fail_msg("%s", err.msg);
        assert_int_equal(sys.atoms.n, ref.atoms.n);
        for (int d = 0; d < 3; d++) {
            assert_memory_equal(sys.atoms.x[d], ref.atoms.x[d], (size_t)ref.atoms.n * 8);
            assert_memory_equal(sys.atoms.p[d], ref.atoms.p[d], (size_t)ref.atoms.n * 8);
        }
        md_system_free(&sys);
        /* line numbers still count lines: break the last velocity line (line 32) */
        text[n - (mode == 0 ? 3 : 2)] = 'x';
        assert_int_equal(md_lammps_parse(text, n, "cr", 0.005, &sys, &err), -1);
        md_test_contains(err.msg, "cr:32:");
        free(text);
    }
    md_system_free(&ref);
}

/* ---- what LAMMPS accepts ----------------------------------------------------------------- */

static void test_atoms_outside_the_box_are_wrapped(void **state)
{
    (void)state;
    /* The same atoms, inside the box and at other periodic images (box -1..9 along x). */
    static const char in[] = "t\n3 atoms\n1 atom types\n-1 9 xlo xhi\n0 10 ylo yhi\n"
                             "0 10 zlo zhi\n\nMasses\n\n1 1\n\nAtoms\n\n"
                             "1 1 0.5 1.25 3\n2 1 8.75 9.5 0\n3 1 -1 5 5\n";
    static const char out[] = "t\n3 atoms\n1 atom types\n-1 9 xlo xhi\n0 10 ylo yhi\n"
                              "0 10 zlo zhi\n\nMasses\n\n1 1\n\nAtoms\n\n"
                              "1 1 10.5 -8.75 23 0 0 0\n2 1 -11.25 -0.5 -30 1 1 1\n"
                              "3 1 19 5 15\n";
    md_system a, b;
    md_error err;
    assert_int_equal(md_lammps_parse(in, sizeof in - 1, "in", 0.005, &a, &err), 0);
    if (md_lammps_parse(out, sizeof out - 1, "out", 0.005, &b, &err) != 0)
        fail_msg("%s", err.msg);
    for (int d = 0; d < 3; d++)
        assert_memory_equal(a.atoms.x[d], b.atoms.x[d], 3 * 8);
    md_system_free(&a);
    md_system_free(&b);
}

/* Image flags as LAMMPS keeps them: an atom outside the box is wrapped, and its image flag
 * is the file's (0 without the columns) plus the box lengths the wrap moved it, so that
 * x + img·L is the file's x + ix·L exactly, in fixed point. */
static void test_image_flags_read(void **state)
{
    (void)state;
    static const struct {
        double x[3];
        int ix[3];
    } at[] = {
        {{0.5, 1.25, 3}, {0, 0, 0}},       {{10.5, -8.75, 23}, {2, -1, 0}},
        {{-11.25, -0.5, -30}, {1, 1, 1}},  {{19, 5, 15}, {-3, 7, -2}},
        {{9, 10, 0}, {0, 0, 0}},           {{-1, 0, -1e-9}, {5, -5, 1}},
    };
    const int na = (int)(sizeof at / sizeof *at);
    const double lo[3] = {-1, 0, 0};
    for (int cols = 0; cols < 2; cols++) { /* without and with the image columns */
        char text[2048];
        int k = snprintf(text, sizeof text, "t\n%d atoms\n1 atom types\n-1 9 xlo xhi\n"
                         "0 10 ylo yhi\n0 10 zlo zhi\n\nMasses\n\n1 1\n\nAtoms # atomic\n\n",
                         na);
        for (int i = 0; i < na; i++) {
            k += snprintf(text + k, sizeof text - (size_t)k, "%d 1 %.17g %.17g %.17g", i + 1,
                          at[i].x[0], at[i].x[1], at[i].x[2]);
            if (cols)
                k += snprintf(text + k, sizeof text - (size_t)k, " %d %d %d", at[i].ix[0],
                              at[i].ix[1], at[i].ix[2]);
            k += snprintf(text + k, sizeof text - (size_t)k, "\n");
        }
        md_system sys;
        md_error err;
        if (md_lammps_parse(text, (size_t)k, "img.data", 0.005, &sys, &err) != 0)
            fail_msg("%s", err.msg);
        for (int i = 0; i < na; i++)
            for (int d = 0; d < 3; d++) {
                const int64_t len = sys.box.len[d], x = sys.atoms.x[d][i];
                const int64_t file = md_pos_from_double(at[i].x[d] - lo[d]) +
                                     (cols ? at[i].ix[d] : 0) * len;
                assert_true(x >= 0 && x < len);
                if (x + (int64_t)sys.atoms.img[d][i] * len != file)
                    fail_msg("atom %d %c: x %lld + image %d · L %lld is not the file's %lld",
                             i + 1, 'x' + d, (long long)x, sys.atoms.img[d][i],
                             (long long)len, (long long)file);
            }
        /* x 10.5 is 11.5 above xlo: wrapped one box down; z -30: three boxes up */
        assert_int_equal(sys.atoms.img[0][1], 1 + (cols ? 2 : 0));
        assert_int_equal(sys.atoms.img[2][2], -3 + (cols ? 1 : 0));
        md_system_free(&sys);
    }
    /* Images beyond ±2^30 (given, or after the wrap) are refused, naming the field. */
    static const struct {
        const char *atom, *want;
    } refused[] = {
        {"1 1 0.5 1 1 1073741825 0 0", "img.data:14: Atoms: field 6 (ix)"},
        {"1 1 0.5 1 1 0 -1073741825 0", "field 7 (iy)"},
        {"1 1 0.5 1 25 0 0 1073741823", "image flag iz 1073741823 plus the 2 box lengths"},
    };
    for (size_t c = 0; c < sizeof refused / sizeof *refused; c++) {
        char text[512];
        int k = snprintf(text, sizeof text, "t\n1 atoms\n1 atom types\n-1 9 xlo xhi\n"
                         "0 10 ylo yhi\n0 10 zlo zhi\n\nMasses\n\n1 1\n\nAtoms\n\n%s\n",
                         refused[c].atom);
        md_system sys;
        md_error err;
        assert_int_equal(md_lammps_parse(text, (size_t)k, "img.data", 0.005, &sys, &err), -1);
        md_test_contains(err.msg, refused[c].want);
    }
}

static void test_zero_tilt_and_pairij(void **state)
{
    (void)state;
    static const char text[] = "t\n2 atoms\n2 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n"
                               "0 10 zlo zhi\n0.0 0 -0.0 xy xz yz\n\nMasses\n\n1 1\n2 2\n\n"
                               "PairIJ Coeffs # lj/cut\n\n1 1 1 1\n1 2 1.0 1.0\n2 2 1 1\n\n"
                               "Atoms # atomic\n\n1 1 1 1 1\n2 2 5 5 5\n";
    md_system sys;
    md_error err;
    if (md_lammps_parse(text, sizeof text - 1, "ij.data", 0.005, &sys, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(sys.atoms.n, 2);
    md_system_free(&sys);
    /* PairIJ errors: a pair twice, i > j, too few lines, epsilon not 1 */
    static const struct {
        const char *pairs, *want;
    } bad_ij[] = {
        {"1 1 1 1\n1 1 1 1\n2 2 1 1\n", "ij.data:15: PairIJ Coeffs: the pair 1 1 is given twice"},
        {"1 1 1 1\n2 1 1 1\n2 2 1 1\n", "ij.data:15: PairIJ Coeffs: types 2 1: give each pair"},
        {"1 1 1 1\n2 2 1 1\n", "has 2 entries, but the header says 3"},
        {"1 1 1 1\n1 2 0.5 1\n2 2 1 1\n", "ij.data:15: PairIJ Coeffs: types 1 2 has epsilon 0.5"},
    };
    for (size_t k = 0; k < sizeof bad_ij / sizeof *bad_ij; k++) {
        char t[1024];
        snprintf(t, sizeof t, "t\n2 atoms\n2 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n"
                              "0 10 zlo zhi\n\nMasses\n\n1 1\n2 2\n\nPairIJ Coeffs\n%s\n"
                              "Atoms\n\n1 1 1 1 1\n2 2 5 5 5\n", bad_ij[k].pairs);
        assert_int_equal(md_lammps_parse(t, strlen(t), "ij.data", 0.005, &sys, &err), -1);
        md_test_contains(err.msg, bad_ij[k].want);
    }
}

static void test_long_numbers(void **state)
{
    (void)state;
    /* 40-digit mantissas, a 300-digit one, and a long integer id with leading zeros. */
    char pad[301];
    memset(pad, '0', 300);
    pad[300] = '\0';
    char text[2048];
    snprintf(text, sizeof text,
             "t\n2 atoms\n1 atom types\n0 10.000000000000000000000000000000000000000 xlo xhi\n"
             "0 1%s0e-300 ylo yhi\n0 10 zlo zhi\n\nMasses\n\n"
             "1 1.0000000000000000000000000000000000000\n\nAtoms\n\n"
             "%s1 1 1.2345678901234567890123456789012345678901 1 1\n2 1 5 5 5\n\n"
             "Velocities\n\n1 0.1234567890123456789012345678901234567890e-1 0 0\n2 0 0 0\n",
             pad, pad);
    md_system sys;
    md_error err;
    if (md_lammps_parse(text, strlen(text), "long.data", 0.005, &sys, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(sys.box.len[1], md_pos_from_double(10.0));
    assert_int_equal(sys.atoms.x[0][0], md_pos_from_double(1.2345678901234567890));
    assert_int_equal(sys.atoms.p[0][0],
                     md_round_i64(0.01234567890123456789 / md_momentum_unit(0.005)));
    md_system_free(&sys);
}

/* A per-type cut-off is honoured when it is the run's, refused otherwise (it was ignored). */
static void test_pair_coeff_cutoff(void **state)
{
    (void)state;
    static const char text[] = "t\n2 atoms\n1 atom types\n0 10 xlo xhi\n0 10 ylo yhi\n"
                               "0 10 zlo zhi\n\nMasses\n\n1 1\n\nPair Coeffs # lj/cut\n\n"
                               "1 1.0 1.0 2.5\n\nAtoms\n\n1 1 1 1 1\n2 1 5 5 5\n";
    md_params par;
    md_params_default(&par);
    md_system sys;
    md_error err;
    par.rc = 2.5;
    if (md_lammps_parse_run(text, sizeof text - 1, "rc.data", &par, &sys, &err) != 0)
        fail_msg("%s", err.msg);
    md_system_free(&sys);
    par.rc = 3.0;
    assert_int_equal(md_lammps_parse_run(text, sizeof text - 1, "rc.data", &par, &sys, &err),
                     -1);
    md_test_contains(err.msg, "rc.data:14: Pair Coeffs: type 1 has cut-off 2.5");
    md_test_contains(err.msg, "--rc is 3");
    /* without the run's cut-off the column cannot be honoured: refused, not ignored */
    assert_int_equal(md_lammps_parse(text, sizeof text - 1, "rc.data", 0.005, &sys, &err), -1);
    md_test_contains(err.msg, "rc.data:14:");
    md_test_contains(err.msg, "cut-off");
    /* the same through the file reader */
    char tmp[] = "/tmp/test_md_lammps_rc_XXXXXX";
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    assert_true(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
    close(fd);
    par.rc = 2.5;
    if (md_lammps_read_run(tmp, &par, &sys, &err) != 0)
        fail_msg("%s", err.msg);
    md_system_free(&sys);
    par.rc = 2.0;
    assert_int_equal(md_lammps_read_run(tmp, &par, &sys, &err), -1);
    md_test_contains(err.msg, "has cut-off 2.5");
    unlink(tmp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_good),
        cmocka_unit_test(test_no_velocities_means_zero),
        cmocka_unit_test(test_round_trip_runs_identically),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_nul_byte_and_missing_file),
        cmocka_unit_test(test_buffer_without_terminator),
        cmocka_unit_test(test_mutation_fuzz),
        cmocka_unit_test(test_matches_lammps_reference),
        cmocka_unit_test(test_fixed_point_limits),
        cmocka_unit_test(test_input_files),
        cmocka_unit_test(test_line_endings),
        cmocka_unit_test(test_atoms_outside_the_box_are_wrapped),
        cmocka_unit_test(test_image_flags_read),
        cmocka_unit_test(test_zero_tilt_and_pairij),
        cmocka_unit_test(test_long_numbers),
        cmocka_unit_test(test_pair_coeff_cutoff),
    };
    return cmocka_run_group_tests_name("md_lammps", tests, NULL, NULL);
}
