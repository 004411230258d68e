/*
 * fuzz_md_checkpoint.c: libFuzzer harness for the checkpoint decoder of md/
 * (md_checkpoint_decode, a function over a buffer; the format is in md/src/checkpoint.h).
 *
 *   srcs=$(ls md/src/[a-z]*.c | grep -v -e /main -e '/par[._]' -e '/check\.c')
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -std=c17 \
 *       -ffp-contract=off -D_GNU_SOURCE -pthread -Ipgas/include -Iemu/include -Imd/include \
 *       -Imd/src fuzz/fuzz_md_checkpoint.c $srcs -lm -o fuzz_md_checkpoint
 *   mkdir -p work && ./fuzz_md_checkpoint -max_len=8192 work fuzz/corpus/fuzz_md_checkpoint
 *
 * Both CRCs would stop almost every mutation at the first check, so each input is decoded
 * twice: as it is (the checks of magic, sizes and CRCs), and with both CRCs recomputed (what
 * a crafted file looks like: every decoded field's range check is reached). Each decode must
 * accept or reject with a message that names the input. An accepted checkpoint must hold what
 * the decoder promises (ids increasing, types in range, positions in the box, momenta,
 * forces, image flags and etot(0) in range, finite parameters and origin), encode back to
 * the very same bytes (nothing read and then ignored), and decode again to the same state
 * checksum and images. A version-1 checkpoint (no image flags; still read, every image 0)
 * encodes as the current version: its bytes are compared with the version-1 layout, i.e.
 * the current encoding less the image block, with the old version, sizes and CRCs.
 */
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void put_u64(unsigned char *b, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        b[k] = (unsigned char)(v >> (8 * k));
}

/* The decoder's ranges (md/src/checkpoint.c): what the integrator keeps exact. */
#define MAX_MOMENTUM (INT64_C(1) << 52)
#define MAX_FORCE (INT64_C(1) << 62)
#define MAX_ENERGY 2147483648.0
#define MAX_IMAGE (1 << 30)

static uint32_t get_u32(const unsigned char *b)
{
    uint32_t v = 0;
    for (int k = 0; k < 4; k++)
        v |= (uint32_t)b[k] << (8 * k);
    return v;
}
static void put_u32(unsigned char *b, uint32_t v)
{
    for (int k = 0; k < 4; k++)
        b[k] = (unsigned char)(v >> (8 * k));
}

/* The version-1 bytes of an encoding: without the trailing image block (4 bytes per atom
 * and dimension), version 1, the payload size and both CRCs recomputed. */
static void as_version1(unsigned char *buf, size_t *blen, int32_t natoms)
{
    *blen -= (size_t)natoms * 12;
    put_u32(buf + 8, 1);
    put_u64(buf + 144, *blen - MD_CKPT_HEADER_BYTES);
    put_u64(buf + 152, md_crc64(0, buf + MD_CKPT_HEADER_BYTES, *blen - MD_CKPT_HEADER_BYTES));
    put_u64(buf + 160, md_crc64(0, buf, 160));
}

static void check_accepted(const md_checkpoint *ck, const unsigned char *b, size_t len)
{
    const md_system *s = &ck->sys;
    const md_atoms *a = &s->atoms;
    if (a->n < 1 || s->ntypes < 1 || ck->nstlist < 1 || ck->step < 0 ||
        ck->step % ck->nstlist != 0 || ck->step > LONG_MAX / 2)
        abort();
    if (!isnan(ck->etot0) && !(fabs(ck->etot0) <= MAX_ENERGY))
        abort();
    for (int d = 0; d < 3; d++)
        if (!isfinite(s->box.lo[d]))
            abort();
    if (!(ck->rc > 0) || !isfinite(ck->rc) || !(ck->skin >= 0) || !isfinite(ck->skin) ||
        !(s->dt > 0) || !isfinite(s->dt))
        abort();
    for (int t = 0; t < s->ntypes; t++)
        if (!(s->mass[t] > 0) || !isfinite(s->mass[t]))
            abort();
    for (int32_t i = 0; i < a->n; i++) {
        if (a->id[i] < 1 || (i > 0 && a->id[i] <= a->id[i - 1]))
            abort();
        if (a->type[i] < 0 || a->type[i] >= s->ntypes)
            abort();
        for (int d = 0; d < 3; d++)
            if (a->x[d][i] < 0 || a->x[d][i] >= s->box.len[d] || a->p[d][i] > MAX_MOMENTUM ||
                a->p[d][i] < -MAX_MOMENTUM || a->f[d][i] > MAX_FORCE ||
                a->f[d][i] < -MAX_FORCE || a->img[d][i] > MAX_IMAGE || a->img[d][i] < -MAX_IMAGE)
                abort();
    }
    const bool v1 = get_u32(b + 8) == 1;
    /* round trip: what was accepted encodes to the same bytes (no field or bit is read and
     * then ignored) and decodes to the same state */
    unsigned char *buf;
    size_t blen;
    md_checkpoint_encode(ck, &buf, &blen);
    if (get_u32(buf + 8) != MD_CKPT_VERSION)
        abort();
    md_checkpoint again;
    md_error err;
    err.msg[0] = '\0';
    if (md_checkpoint_decode(buf, blen, "fuzz-again", &again, &err) != 0)
        abort();
    if (md_checkpoint_state_checksum(&again) != md_checkpoint_state_checksum(ck) ||
        again.step != ck->step || again.sys.atoms.n != a->n)
        abort();
    for (int d = 0; d < 3; d++)
        for (int32_t i = 0; i < a->n; i++)
            if (again.sys.atoms.img[d][i] != a->img[d][i] || (v1 && a->img[d][i] != 0))
                abort();
    if (v1)
        as_version1(buf, &blen, a->n);
    if (blen != len || memcmp(buf, b, len) != 0)
        abort();
    md_checkpoint_free(&again);
    free(buf);
}

static void decode_one(const unsigned char *b, size_t len)
{
    md_checkpoint ck;
    md_error err;
    err.msg[0] = '\0';
    if (md_checkpoint_decode(b, len, "fuzz", &ck, &err) == 0) {
        check_accepted(&ck, b, len);
        md_checkpoint_free(&ck);
    } else if (strncmp(err.msg, "fuzz", 4) != 0) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decode_one(data, size);
    if (size < MD_CKPT_HEADER_BYTES)
        return 0;
    unsigned char *b = malloc(size);
    if (b == NULL)
        abort();
    memcpy(b, data, size);
    put_u64(b + 152, md_crc64(0, b + MD_CKPT_HEADER_BYTES, size - MD_CKPT_HEADER_BYTES));
    put_u64(b + 160, md_crc64(0, b, 160));
    decode_one(b, size);
    free(b);
    return 0;
}
