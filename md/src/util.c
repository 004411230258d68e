/*
 * util.c: error formatting, allocation that cannot return NULL, and the md_atoms arrays.
 */
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int md_fail(md_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static void out_of_memory(size_t bytes)
{
    fprintf(stderr, "shmemu-md: out of memory allocating %zu bytes; run a smaller system\n",
            bytes);
    exit(2);
}

void *md_xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p)
        out_of_memory(bytes);
    return p;
}

void *md_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory(n * size);
    return p;
}

char *md_temp_name(const char *path)
{
    size_t n = strlen(path) + 32;
    char *t = md_xmalloc(n);
    snprintf(t, n, "%s.tmp.%ld", path, (long)getpid());
    return t;
}

void *md_xrealloc(void *old, size_t bytes)
{
    void *p = realloc(old, bytes ? bytes : 1);
    if (!p)
        out_of_memory(bytes);
    return p;
}

void md_atoms_reserve(md_atoms *a, int32_t cap)
{
    if (cap <= a->cap)
        return;
    int32_t c = a->cap ? a->cap : 16;
    while (c < cap)
        c = (c > INT32_MAX / 2) ? INT32_MAX : 2 * c;
    size_t n = (size_t)c;
    a->id = md_xrealloc(a->id, n * sizeof *a->id);
    a->type = md_xrealloc(a->type, n * sizeof *a->type);
    a->zone = md_xrealloc(a->zone, n * sizeof *a->zone);
    for (int d = 0; d < 3; d++) {
        a->x[d] = md_xrealloc(a->x[d], n * sizeof *a->x[d]);
        a->p[d] = md_xrealloc(a->p[d], n * sizeof *a->p[d]);
        a->f[d] = md_xrealloc(a->f[d], n * sizeof *a->f[d]);
        a->img[d] = md_xrealloc(a->img[d], n * sizeof *a->img[d]);
        /* New slots start at image 0, so atoms set up without images are at image 0. */
        memset(a->img[d] + a->cap, 0, (n - (size_t)a->cap) * sizeof *a->img[d]);
    }
    a->cap = c;
}

void md_atoms_free(md_atoms *a)
{
    free(a->id);
    free(a->type);
    free(a->zone);
    for (int d = 0; d < 3; d++) {
        free(a->x[d]);
        free(a->p[d]);
        free(a->f[d]);
        free(a->img[d]);
    }
    memset(a, 0, sizeof *a);
}

void md_atoms_copy1(md_atoms *dst, int32_t di, const md_atoms *src, int32_t si)
{
    dst->id[di] = src->id[si];
    dst->type[di] = src->type[si];
    dst->zone[di] = src->zone[si];
    for (int d = 0; d < 3; d++) {
        dst->x[d][di] = src->x[d][si];
        dst->p[d][di] = src->p[d][si];
        dst->f[d][di] = src->f[d][si];
        dst->img[d][di] = src->img[d][si];
    }
}

void md_atoms_push(md_atoms *dst, const md_atoms *src, int32_t si)
{
    if (dst->n == dst->cap)
        md_atoms_reserve(dst, dst->n + 1);
    md_atoms_copy1(dst, dst->n, src, si);
    dst->n++;
}

#define PERMUTE(arr, T)                                                                       \
    do {                                                                                      \
        T *tmp_ = md_xmalloc((size_t)n * sizeof(T));                                          \
        for (int32_t k = 0; k < n; k++)                                                       \
            tmp_[k] = (arr)[perm[k]];                                                         \
        memcpy((arr), tmp_, (size_t)n * sizeof(T));                                           \
        free(tmp_);                                                                           \
    } while (0)

void md_atoms_permute(md_atoms *a, const int32_t *perm, int32_t n)
{
    PERMUTE(a->id, int64_t);
    PERMUTE(a->type, int32_t);
    PERMUTE(a->zone, uint8_t);
    for (int d = 0; d < 3; d++) {
        PERMUTE(a->x[d], int64_t);
        PERMUTE(a->p[d], int64_t);
        PERMUTE(a->f[d], int64_t);
        PERMUTE(a->img[d], int32_t);
    }
}

static int cmp_by_id(const void *a, const void *b, void *ctx)
{
    const int64_t *id = ctx;
    int64_t x = id[*(const int32_t *)a], y = id[*(const int32_t *)b];
    return (x > y) - (x < y);
}

void md_atoms_sort_by_id(md_atoms *a)
{
    int32_t n = a->n;
    int32_t *perm = md_xmalloc((size_t)(n ? n : 1) * sizeof *perm);
    for (int32_t i = 0; i < n; i++)
        perm[i] = i;
    qsort_r(perm, (size_t)n, sizeof *perm, cmp_by_id, a->id);
    md_atoms_permute(a, perm, n);
    free(perm);
}

void md_atoms_clone(md_atoms *dst, const md_atoms *src)
{
    memset(dst, 0, sizeof *dst);
    md_atoms_reserve(dst, src->n > 0 ? src->n : 1);
    size_t n = (size_t)src->n;
    if (n) {
        memcpy(dst->id, src->id, n * sizeof *src->id);
        memcpy(dst->type, src->type, n * sizeof *src->type);
        memcpy(dst->zone, src->zone, n * sizeof *src->zone);
        for (int d = 0; d < 3; d++) {
            memcpy(dst->x[d], src->x[d], n * sizeof *src->x[d]);
            memcpy(dst->p[d], src->p[d], n * sizeof *src->p[d]);
            memcpy(dst->f[d], src->f[d], n * sizeof *src->f[d]);
            memcpy(dst->img[d], src->img[d], n * sizeof *src->img[d]);
        }
    }
    dst->n = src->n;
}
