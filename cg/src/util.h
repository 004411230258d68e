/*
 * util.h: small shared helpers of cg/: error values and allocation that cannot fail.
 */
#ifndef CG_UTIL_H
#define CG_UTIL_H

#include <stddef.h>

#include "cg/matrix.h"

/* Formats err->msg (when err is not NULL) and returns -1. */
int cg_fail(cg_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* malloc/calloc that print and exit(2) when memory is exhausted: the one place cg gives up
 * instead of returning an error, since nothing sensible can follow. */
void *cg_xmalloc(size_t bytes);
void *cg_xcalloc(size_t n, size_t size);

#endif
