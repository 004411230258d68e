/*
 * shmem_internal.h: what the OpenSHMEM entry points (shmem_*.c) share: the translation of
 * OpenSHMEM's constants and team handles to the core's (NVSHMEM's) ones.
 *
 * The two APIs number their constants differently (docs/design.md D2; the table is in shmem.h), so
 * every shmem_ call that takes a comparison, a signal op or a team translates it here before
 * it calls the nvshmem_ routine. A value that is no OpenSHMEM constant is misuse: the message
 * names the shmem_ call and lists the valid constants, and says so when the value is an
 * NVSHMEM constant (the likely mix-up), then the process aborts.
 */
#ifndef PGAS_SHMEM_INTERNAL_H
#define PGAS_SHMEM_INTERNAL_H

#include <stdint.h>

#include "core_types.h"
#include "internal.h"
#include "nvshmem.h"
#include "shmem.h"

_Noreturn void pgas_shmem_bad_cmp(const char *call, int cmp);
_Noreturn void pgas_shmem_bad_sig_op(const char *call, int sig_op);
_Noreturn void pgas_shmem_bad_team(const char *call, shmem_team_t team);

/* SHMEM_CMP_* to NVSHMEM_CMP_*. */
static inline int pgas_shmem_cmp(int cmp, const char *call)
{
    switch (cmp) {
    case SHMEM_CMP_EQ: return NVSHMEM_CMP_EQ;
    case SHMEM_CMP_NE: return NVSHMEM_CMP_NE;
    case SHMEM_CMP_GT: return NVSHMEM_CMP_GT;
    case SHMEM_CMP_GE: return NVSHMEM_CMP_GE;
    case SHMEM_CMP_LT: return NVSHMEM_CMP_LT;
    case SHMEM_CMP_LE: return NVSHMEM_CMP_LE;
    default: pgas_shmem_bad_cmp(call, cmp);
    }
}

/* SHMEM_SIGNAL_* to NVSHMEM_SIGNAL_*. */
static inline int pgas_shmem_sig_op(int sig_op, const char *call)
{
    switch (sig_op) {
    case SHMEM_SIGNAL_SET: return NVSHMEM_SIGNAL_SET;
    case SHMEM_SIGNAL_ADD: return NVSHMEM_SIGNAL_ADD;
    default: pgas_shmem_bad_sig_op(call, sig_op);
    }
}

/* A team handle carries the core's team id plus two (shmem.h): SHMEM_TEAM_INVALID (1) is
 * NVSHMEM_TEAM_INVALID (-1), and the null pointer is no team at all. */
#define PGAS_SHMEM_TEAM_BIAS 2

static inline nvshmem_team_t pgas_shmem_team_id(shmem_team_t team, const char *call)
{
    uintptr_t handle = (uintptr_t)team;
    if (handle == 0 || handle > (uintptr_t)INT32_MAX)
        pgas_shmem_bad_team(call, team);
    return (nvshmem_team_t)((intptr_t)handle - PGAS_SHMEM_TEAM_BIAS);
}

static inline shmem_team_t pgas_shmem_team_handle(nvshmem_team_t id)
{
    if (id < 0)
        return SHMEM_TEAM_INVALID;
    return (shmem_team_t)(uintptr_t)((intptr_t)id + PGAS_SHMEM_TEAM_BIAS);
}

#endif
