/*
 * util.h: small shared helpers of md/: error values, allocation, the atom arrays.
 */
#ifndef MD_UTIL_H
#define MD_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "shmemu/md.h"

/* Formats err->msg (when err is not NULL) and returns -1. */
int md_fail(md_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* malloc/calloc/realloc that print and exit(2) when memory is exhausted: the one place md
 * gives up instead of returning an error, since nothing sensible can follow. */
void *md_xmalloc(size_t bytes);
void *md_xcalloc(size_t n, size_t size);
void *md_xrealloc(void *p, size_t bytes);

/* "<path>.tmp.<pid>" (malloc'ed): where a file is written whole before it is renamed over
 * path (the same directory, so rename() is atomic; the pid makes the name unique per process
 * and tells md_checkpoint_clean_stale whose file it is). */
char *md_temp_name(const char *path);

/* ---- md_atoms -------------------------------------------------------------------------- */

/* Grows every array to hold at least cap atoms (keeps the contents). */
void md_atoms_reserve(md_atoms *a, int32_t cap);
void md_atoms_free(md_atoms *a);
/* Appends atom si of src (all fields) to dst. */
void md_atoms_push(md_atoms *dst, const md_atoms *src, int32_t si);
/* Copies atom si of src over atom di of dst. */
void md_atoms_copy1(md_atoms *dst, int32_t di, const md_atoms *src, int32_t si);
/* Reorders atoms [0, n) so that new position k holds old atom perm[k]. */
void md_atoms_permute(md_atoms *a, const int32_t *perm, int32_t n);
/* Sorts atoms [0, a->n) by global id (ids are unique). */
void md_atoms_sort_by_id(md_atoms *a);
/* Deep copy. */
void md_atoms_clone(md_atoms *dst, const md_atoms *src);

#endif
