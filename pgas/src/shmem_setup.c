/*
 * shmem_setup.c: OpenSHMEM setup, queries, the symmetric heap and teams; and the misuse
 * messages of the shmem_ layer (declared in shmem_internal.h).
 *
 * Every routine is a thin entry point into the core through the nvshmem_ API. What differs
 * from NVSHMEM is spelled out where it happens: OpenSHMEM's zero-size allocations and
 * shmem_free(NULL) do nothing, its version and name are its own, and its team handles are
 * translated (shmem_internal.h).
 */
#include <stdint.h>
#include <stdio.h>

#include "shmem_internal.h"

/* ---- misuse -------------------------------------------------------------------------- */

_Noreturn void pgas_shmem_bad_cmp(const char *call, int cmp)
{
    const char *hint = "";
    if (cmp == NVSHMEM_CMP_EQ)
        hint = " (0 is NVSHMEM_CMP_EQ: shmem_ calls take the SHMEM_CMP_* constants, whose "
               "values differ)";
    pgas_fail(call, "unknown comparison %d; use SHMEM_CMP_EQ (%d), SHMEM_CMP_NE (%d), "
                    "SHMEM_CMP_GT (%d), SHMEM_CMP_GE (%d), SHMEM_CMP_LT (%d) or SHMEM_CMP_LE "
                    "(%d)%s",
              cmp, SHMEM_CMP_EQ, SHMEM_CMP_NE, SHMEM_CMP_GT, SHMEM_CMP_GE, SHMEM_CMP_LT,
              SHMEM_CMP_LE, hint);
}

_Noreturn void pgas_shmem_bad_sig_op(const char *call, int sig_op)
{
    const char *hint = "";
    if (sig_op == NVSHMEM_SIGNAL_SET)
        hint = " (that is NVSHMEM_SIGNAL_SET: shmem_ calls take the SHMEM_SIGNAL_* constants)";
    else if (sig_op == NVSHMEM_SIGNAL_ADD)
        hint = " (that is NVSHMEM_SIGNAL_ADD: shmem_ calls take the SHMEM_SIGNAL_* constants)";
    pgas_fail(call, "unknown signal op %d; use SHMEM_SIGNAL_SET (%d) or SHMEM_SIGNAL_ADD (%d)%s",
              sig_op, SHMEM_SIGNAL_SET, SHMEM_SIGNAL_ADD, hint);
}

_Noreturn void pgas_shmem_bad_team(const char *call, shmem_team_t team)
{
    if (team == NULL)
        pgas_fail(call, "team is a null pointer, which is no OpenSHMEM team (NVSHMEM_TEAM_WORLD "
                        "is 0 and converts to one); use SHMEM_TEAM_WORLD, SHMEM_TEAM_SHARED or "
                        "a team from shmem_team_split_strided");
    pgas_fail(call, "team %p is not an OpenSHMEM team handle; use SHMEM_TEAM_WORLD, "
                    "SHMEM_TEAM_SHARED or a team from shmem_team_split_strided",
              (void *)team);
}

/* ---- setup, query, exit -------------------------------------------------------------- */

void shmem_init(void)
{
    nvshmem_init();
    pgas_use_openshmem_names();
}

/* Every level is supported (the runtime is thread-safe because a PE may be many threads), so
 * the library provides SHMEM_THREAD_MULTIPLE; OpenSHMEM lets it provide more than asked. */
int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE) {
        pgas_complain("shmem_init_thread",
                      "unknown thread level %d; use SHMEM_THREAD_SINGLE (%d), "
                      "SHMEM_THREAD_FUNNELED (%d), SHMEM_THREAD_SERIALIZED (%d) or "
                      "SHMEM_THREAD_MULTIPLE (%d)",
                      requested, SHMEM_THREAD_SINGLE, SHMEM_THREAD_FUNNELED,
                      SHMEM_THREAD_SERIALIZED, SHMEM_THREAD_MULTIPLE);
        return 1;
    }
    nvshmem_init();
    pgas_use_openshmem_names();
    if (provided != NULL)
        *provided = SHMEM_THREAD_MULTIPLE;
    return 0;
}

void shmem_query_thread(int *provided)
{
    if (provided != NULL)
        *provided = SHMEM_THREAD_MULTIPLE;
}

void shmem_finalize(void) { nvshmem_finalize(); }

void shmem_global_exit(int status) { nvshmem_global_exit(status); }

int shmem_my_pe(void) { return nvshmem_my_pe(); }

int shmem_n_pes(void) { return nvshmem_n_pes(); }

int shmem_pe_accessible(int pe) { return pe >= 0 && pe < nvshmem_n_pes(); }

int shmem_addr_accessible(const void *addr, int pe)
{
    pgas_thread *t = pgas_require("shmem_addr_accessible");
    if (pe < 0 || pe >= t->world->n_pes)
        return 0;
    return pgas_symmetric_local(t, addr);
}

void *shmem_ptr(const void *dest, int pe) { return nvshmem_ptr(dest, pe); }

/* pe is a PE number of team: translated to the world's, then shmem_ptr. SHMEM_TEAM_INVALID
 * gives NULL (a PE outside a split gets it, and may pass it on); a pe outside the team, or
 * a dest that is not symmetric, is misuse. */
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    const char *call = "shmem_team_ptr";
    nvshmem_team_t id = pgas_shmem_team_id(team, call);
    pgas_thread *t = pgas_require(call);
    if (id == NVSHMEM_TEAM_INVALID)
        return NULL;
    pgas_team *members = pgas_team_get(t, call, id);
    if (pe < 0 || pe >= members->size)
        pgas_fail(call, "PE %d is out of range; the team has PEs 0 to %d (pe is a PE number "
                        "of the team, not of SHMEM_TEAM_WORLD)", pe, members->size - 1);
    pgas_heap_check_local(t, call, "dest", dest, 1);
    return nvshmem_ptr(dest, pgas_team_world_pe(members, pe));
}

/* Profiling control: no profiling library is attached, so every level is accepted and
 * nothing changes, as OpenSHMEM asks of a library without one (before shmem_init too). */
void shmem_pcontrol(const int level, ...) { (void)level; }

void shmem_info_get_version(int *major, int *minor)
{
    if (major != NULL)
        *major = SHMEM_MAJOR_VERSION;
    if (minor != NULL)
        *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (name != NULL)
        snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

/* ---- symmetric heap ------------------------------------------------------------------ */
/* OpenSHMEM: a zero size "performs no action and returns a null pointer"; every PE passes
 * the same size, so every PE skips the collective alike. */

void *shmem_malloc(size_t size) { return size == 0 ? NULL : nvshmem_malloc(size); }

void *shmem_malloc_with_hints(size_t size, long hints)
{
    (void)hints; /* placement hints change nothing when every PE is a thread */
    return shmem_malloc(size);
}

void *shmem_calloc(size_t count, size_t size)
{
    return count == 0 || size == 0 ? NULL : nvshmem_calloc(count, size);
}

void *shmem_align(size_t alignment, size_t size)
{
    return size == 0 ? NULL : nvshmem_align(alignment, size);
}

void shmem_free(void *ptr)
{
    if (ptr != NULL)
        nvshmem_free(ptr);
}

/* OpenSHMEM 1.5: collective like shmem_malloc; a NULL ptr allocates (a size of zero then does
 * nothing), a size of zero frees, and otherwise the object keeps its contents up to the
 * smaller size, in place or moved (the alignment of a shmem_align object is not kept when it
 * moves); no room leaves ptr unchanged and returns NULL. */
void *shmem_realloc(void *ptr, size_t size)
{
    if (ptr == NULL && size == 0)
        return NULL;
    return pgas_heap_realloc("shmem_realloc", ptr, size);
}

/* ---- teams --------------------------------------------------------------------------- */

int shmem_team_my_pe(shmem_team_t team)
{
    nvshmem_team_t id = pgas_shmem_team_id(team, "shmem_team_my_pe");
    return id == NVSHMEM_TEAM_INVALID ? -1 : nvshmem_team_my_pe(id);
}

int shmem_team_n_pes(shmem_team_t team)
{
    nvshmem_team_t id = pgas_shmem_team_id(team, "shmem_team_n_pes");
    return id == NVSHMEM_TEAM_INVALID ? -1 : nvshmem_team_n_pes(id);
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    const char *call = "shmem_team_translate_pe";
    nvshmem_team_t src = pgas_shmem_team_id(src_team, call);
    nvshmem_team_t dest = pgas_shmem_team_id(dest_team, call);
    if (src == NVSHMEM_TEAM_INVALID || dest == NVSHMEM_TEAM_INVALID)
        return -1;
    return nvshmem_team_translate_pe(src, src_pe, dest);
}

/* A split's configuration in the core's type (the two structs have the same field). */
static nvshmem_team_config_t core_team_config(const shmem_team_config_t *config)
{
    return (nvshmem_team_config_t){.num_contexts = config != NULL ? config->num_contexts : 0};
}

/* SHMEM_TEAM_NUM_CONTEXTS is bit 0 of the core's mask too (team.c). */
static long core_team_config_mask(long config_mask)
{
    return (config_mask & SHMEM_TEAM_NUM_CONTEXTS) != 0 ? 1L : 0L;
}

int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    const char *call = "shmem_team_split_strided";
    if (new_team == NULL)
        pgas_fail(call, "new_team is NULL; pass the address of a shmem_team_t");
    nvshmem_team_t parent = pgas_shmem_team_id(parent_team, call);
    *new_team = SHMEM_TEAM_INVALID;
    if (parent == NVSHMEM_TEAM_INVALID)
        return 1; /* OpenSHMEM: no team is created from SHMEM_TEAM_INVALID */
    nvshmem_team_t created = NVSHMEM_TEAM_INVALID;
    nvshmem_team_config_t core_config = core_team_config(config);
    int rc = nvshmem_team_split_strided(parent, start, stride, size,
                                        config != NULL ? &core_config : NULL,
                                        core_team_config_mask(config_mask), &created);
    *new_team = rc == 0 ? pgas_shmem_team_handle(created) : SHMEM_TEAM_INVALID;
    return rc;
}

int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    const char *call = "shmem_team_split_2d";
    if (xaxis_team == NULL || yaxis_team == NULL)
        pgas_fail(call, "xaxis_team and yaxis_team must not be NULL; pass the addresses of two "
                        "shmem_team_t");
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    nvshmem_team_t parent = pgas_shmem_team_id(parent_team, call);
    if (parent == NVSHMEM_TEAM_INVALID)
        return 1;
    nvshmem_team_t x = NVSHMEM_TEAM_INVALID, y = NVSHMEM_TEAM_INVALID;
    nvshmem_team_config_t x_config = core_team_config(xaxis_config);
    nvshmem_team_config_t y_config = core_team_config(yaxis_config);
    int rc = nvshmem_team_split_2d(parent, xrange, xaxis_config != NULL ? &x_config : NULL,
                                   core_team_config_mask(xaxis_mask), &x,
                                   yaxis_config != NULL ? &y_config : NULL,
                                   core_team_config_mask(yaxis_mask), &y);
    if (rc == 0) {
        *xaxis_team = pgas_shmem_team_handle(x);
        *yaxis_team = pgas_shmem_team_handle(y);
    }
    return rc;
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    const char *call = "shmem_team_get_config";
    nvshmem_team_t id = pgas_shmem_team_id(team, call);
    if (id == NVSHMEM_TEAM_INVALID)
        return 1;
    if (config == NULL)
        pgas_fail(call, "config is NULL; pass the address of a shmem_team_config_t");
    const pgas_team *core = pgas_team_get(pgas_require(call), call, id);
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = core->num_contexts;
    return 0;
}

void shmem_team_destroy(shmem_team_t team)
{
    nvshmem_team_t id = pgas_shmem_team_id(team, "shmem_team_destroy");
    if (id != NVSHMEM_TEAM_INVALID)
        nvshmem_team_destroy(id);
}
