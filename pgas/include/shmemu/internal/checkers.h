/*
 * shmemu/internal/checkers.h: which checker the code is built for or runs under (not
 * installed; pgas/src, emu/src and the test support include it).
 *
 * Build time: SHMEMU_TSAN / SHMEMU_ASAN are defined to 1 when this translation unit is built
 * with ThreadSanitizer / AddressSanitizer. gcc defines __SANITIZE_*__; clang (the sanitizer
 * builds' compiler) answers __has_feature instead, so both are asked.
 * Run time: shmemu_under_valgrind() is true under any valgrind tool (helgrind, DRD,
 * memcheck); outside valgrind it is a few register moves.
 */
#ifndef SHMEMU_INTERNAL_CHECKERS_H
#define SHMEMU_INTERNAL_CHECKERS_H

#include <stdbool.h>
#include <valgrind/valgrind.h>

#if defined(__SANITIZE_THREAD__)
#define SHMEMU_TSAN 1
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SHMEMU_ASAN 1
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) && !defined(SHMEMU_TSAN)
#define SHMEMU_TSAN 1
#endif
#if __has_feature(address_sanitizer) && !defined(SHMEMU_ASAN)
#define SHMEMU_ASAN 1
#endif
#endif

static inline bool shmemu_under_valgrind(void) { return RUNNING_ON_VALGRIND != 0; }

#endif
