/*
 * image.h: one loaded copy of the user's program per PE, so that its globals are per PE
 * (docs/pgas.md, "Per-PE data").
 *
 * PEs are threads of one process, so a program's global and static variables would be shared
 * by every PE. OpenSHMEM makes them symmetric (`static long flag;` is a valid target of
 * shmem_put), CUDA makes `__device__` variables one copy per GPU, and programs keep per-PE
 * state in globals (a pointer from shmem_malloc, the PE count). shmemu-cc therefore links the
 * user's code into a shared object, carried inside the executable, and the executable's
 * main loads one copy of it per PE: each copy has its own data and bss, the runtime (linked
 * into the executable) is one, and every PE thread runs its own copy's main. The copies are
 * files in a private temporary folder (valgrind and the sanitizers' symbolizers read debug
 * information from the path of each loaded object), removed when the job ends; folders left
 * by a job that died are removed by the next one.
 *
 * A global's address in PE p's copy is copy p's data start plus the same offset in every
 * copy, which is how a put to `&flag` reaches the target PE's flag (pgas_image_owner,
 * pgas_image_ptr).
 */
#ifndef PGAS_IMAGE_H
#define PGAS_IMAGE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

typedef int (*pgas_main_fn)(int argc, char **argv, char **envp);

typedef struct pgas_image_copy {
    void *handle;        /* dlopen's */
    pgas_main_fn main_fn; /* the copy's main */
    char *data;          /* the first byte of the copy's writable data (after RELRO) */
} pgas_image_copy;

typedef struct pgas_image {
    int n_copies;
    /* The PE of copy 0: 0, or on a ranks backend (MPI: one copy per process, its PE's) the
     * process's PE. Copy i is PE first_pe + i's. */
    int first_pe;
    size_t data_bytes; /* the writable data span's length, the same in every copy */
    pgas_image_copy *copies;
    char dir[PATH_MAX]; /* the private folder holding the copies' files */
    bool shared;        /* pgas_image_share_data has run */
} pgas_image;

/* Writes n copies of the shared object `elf` (elf_bytes long) into a new private folder
 * under $TMPDIR (or /tmp), named after `prog`, loads each, and finds its main and its
 * writable data. Removes the folders of earlier jobs whose process is gone first. Returns 0,
 * or -1 with what is wrong and what to do in err (then nothing stays loaded or on disk). */
int pgas_image_load(pgas_image *img, const unsigned char *elf, size_t elf_bytes, int n,
                    const char *prog, char *err, size_t err_len);

/* Removes the copies' files and folder (the copies stay loaded). Safe to call twice. */
void pgas_image_remove_files(pgas_image *img);

/* For the process backend, before its PEs fork: puts every copy's writable data (its
 * globals) in shared memory at the same address, so that a PE process's copy is the one the
 * others read and write, as on the threads backend; then removes the copies' files. Returns
 * 0, or -1 with what failed in err. */
int pgas_image_share_data(pgas_image *img, char *err, size_t err_len);

/* The copy whose writable data holds addr, with *offset its offset there; -1 (and *offset
 * untouched) when addr is in no copy's data. */
int pgas_image_owner(const pgas_image *img, const volatile void *addr, size_t *offset);

/* The address of byte `offset` of copy pe's data (offset <= data_bytes). */
static inline char *pgas_image_ptr(const pgas_image *img, int pe, size_t offset)
{
    return img->copies[pe - img->first_pe].data + offset;
}

/* Whether PE pe's copy is loaded in this process (every PE's, but on a ranks backend). */
static inline bool pgas_image_reachable(const pgas_image *img, int pe)
{
    return pe >= img->first_pe && pe - img->first_pe < img->n_copies;
}

/* Removes $TMPDIR's image folders whose process no longer runs; returns how many. */
int pgas_image_clean_stale(void);

#endif
