/*
 * shmemu/env.h: the one parser of shmemu's environment variables (runtime, emulator, MD app).
 *
 * Every variable is read through it, so every variable accepts the same spellings and every
 * bad value gets the same kind of message: the variable, the value, and what is accepted.
 *
 *   booleans  on/off, yes/no, 1/0, true/false, any case (SHMEMU_EMU_HAZARDS=off)
 *   integers  decimal, optional sign, no trailing text, range-checked without overflow
 *   numbers   strtod's forms (1e9, 0.5), finite, range-checked
 *   sizes     a byte count with an optional binary suffix K, M, G or T (optional B)
 *   enums     one of a list of names, exactly
 * A variable that is unset or set to the empty string keeps its default.
 *
 * Two layers, so that the parsing can be tested and fuzzed without exiting:
 *   shmemu_env_parse_*  parse a text; 0 on success, else -1 with the message in msg
 *                       ("NAME=\"VALUE\" is not valid; expected ...");
 *   shmemu_env_*        read the variable, parse it, and on a bad value print
 *                       "shmemu: environment: <message>" and exit with status 2.
 */
#ifndef SHMEMU_ENV_H
#define SHMEMU_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int shmemu_env_parse_bool(const char *name, const char *text, bool *out, char *msg,
                          size_t msg_len);
/* An integer in [lo, hi]. */
int shmemu_env_parse_int(const char *name, const char *text, int64_t lo, int64_t hi,
                         int64_t *out, char *msg, size_t msg_len);
/* A finite number in [lo, hi]; `what` names the unit in the message ("seconds"). */
int shmemu_env_parse_double(const char *name, const char *text, double lo, double hi,
                            const char *what, double *out, char *msg, size_t msg_len);
/* Bytes in [lo, hi], with an optional suffix K, M, G or T. */
int shmemu_env_parse_size(const char *name, const char *text, uint64_t lo, uint64_t hi,
                          uint64_t *out, char *msg, size_t msg_len);
/* The index in names (n_names entries) of the name text equals. */
int shmemu_env_parse_enum(const char *name, const char *text, const char *const *names,
                          int n_names, int *out, char *msg, size_t msg_len);

/* The variable's value, or NULL when it is unset or empty. */
const char *shmemu_env_get(const char *name);
bool shmemu_env_bool(const char *name, bool fallback);
int64_t shmemu_env_int(const char *name, int64_t lo, int64_t hi, int64_t fallback);
double shmemu_env_double(const char *name, double lo, double hi, const char *what,
                         double fallback);
uint64_t shmemu_env_size(const char *name, uint64_t lo, uint64_t hi, uint64_t fallback);
int shmemu_env_enum(const char *name, const char *const *names, int n_names, int fallback);
/* The value as a path of at most max_len - 1 bytes, or NULL when unset or empty. */
const char *shmemu_env_path(const char *name, size_t max_len);

#ifdef __cplusplus
}
#endif

#endif
