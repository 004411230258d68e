/*
 * device_only_names.h: which NVSHMEM names are device-only (NVSHMEM declares them __device__
 * and nvcc refuses a call of one in host code). One list, read by two checks:
 *   - pgas/src/device_only.c, at run time (SHMEMU_STRICT_DEVICE): it asserts that every call
 *     it is asked to flag is named here;
 *   - cuda/tools/cudafe_rw.c, at compile time: a call of one of these names in host code of
 *     a .cu file is an error, as with nvcc.
 * Header-only C (no runtime dependency), so that the rewriter and its fuzz harness build
 * without the runtime.
 *
 * The names, TYPE any of NVSHMEM's type names (int, uint64, float, ...):
 *   nvshmem_signal_fetch, nvshmem_signal_wait_until
 *   nvshmem_TYPE_put_signal[_nbi], nvshmem_putmem_signal[_nbi], nvshmem_putBITS_signal[_nbi]
 *   nvshmem_TYPE_wait_until[S], nvshmem_TYPE_test[S], S one of _all _any _some _all_vector
 *   _any_vector _some_vector
 * TYPE is matched as a non-empty run of [a-z0-9_], not against the type list: a name of this
 * shape that is not NVSHMEM's does not exist for the program to call. The nvshmemx_ names
 * (_block/_warp group forms, *_on_stream) are not here: the runtime does not flag them either.
 */
#ifndef SHMEMU_DEVICE_ONLY_NAMES_H
#define SHMEMU_DEVICE_ONLY_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

static inline bool shmemu_don_is(const char *s, size_t n, const char *w)
{
    return n == strlen(w) && memcmp(s, w, n) == 0;
}

static inline bool shmemu_don_ends(const char *s, size_t n, const char *w)
{
    size_t k = strlen(w);
    return n >= k && memcmp(s + n - k, w, k) == 0;
}

/* A TYPE of the names above: non-empty, [a-z0-9_]. */
static inline bool shmemu_don_type(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    return true;
}

/* Whether s[0..n) (no NUL needed) is a device-only NVSHMEM name. */
static inline bool shmemu_device_only_name(const char *s, size_t n)
{
    static const char prefix[] = "nvshmem_";
    const size_t pn = sizeof prefix - 1;
    if (n <= pn || memcmp(s, prefix, pn) != 0)
        return false;
    const char *r = s + pn;
    size_t rn = n - pn;
    if (shmemu_don_is(r, rn, "signal_fetch") || shmemu_don_is(r, rn, "signal_wait_until"))
        return true;
    /* TYPE_wait_until[S], TYPE_test[S] */
    static const char *const sets[] = { "", "_all", "_any", "_some", "_all_vector",
                                        "_any_vector", "_some_vector" };
    static const char *const waits[] = { "_wait_until", "_test" };
    for (size_t w = 0; w < 2; w++) {
        for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
            size_t wl = strlen(waits[w]), sl = strlen(sets[k]);
            if (rn > wl + sl && shmemu_don_ends(r, rn, sets[k]) &&
                memcmp(r + rn - sl - wl, waits[w], wl) == 0 && shmemu_don_type(r, rn - sl - wl))
                return true;
        }
    }
    /* put-with-signal: STEM_signal[_nbi], STEM = TYPE_put, putmem, putBITS */
    if (shmemu_don_ends(r, rn, "_nbi"))
        rn -= 4;
    if (!shmemu_don_ends(r, rn, "_signal"))
        return false;
    rn -= 7;
    if (shmemu_don_is(r, rn, "putmem"))
        return true;
    if (rn > 3 && memcmp(r, "put", 3) == 0) {
        size_t i = 3;
        while (i < rn && r[i] >= '0' && r[i] <= '9')
            i++;
        if (i == rn)
            return true;
    }
    return rn > 4 && shmemu_don_ends(r, rn, "_put") && shmemu_don_type(r, rn - 4);
}

#endif
