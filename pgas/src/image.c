/*
 * image.c: one loaded copy of the user's program per PE (image.h says why and how).
 */
#include "image.h"

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Folder names: PREFIX<pid>-XXXXXX, so that the next job can tell whose folder it is. */
#define IMAGE_DIR_PREFIX "shmemu-image-"

static const char *tmp_root(void)
{
    const char *t = getenv("TMPDIR");
    return t != NULL && t[0] == '/' ? t : "/tmp";
}

/* Removes the regular files of folder `dir` and the folder itself. */
static void remove_folder(const char *dir)
{
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        char path[PATH_MAX];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            if (snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < (int)sizeof path)
                unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

int pgas_image_clean_stale(void)
{
    const char *root = tmp_root();
    DIR *d = opendir(root);
    if (d == NULL)
        return 0;
    int removed = 0;
    struct dirent *e;
    uid_t me = getuid();
    while ((e = readdir(d)) != NULL) {
        const char *name = e->d_name;
        size_t plen = strlen(IMAGE_DIR_PREFIX);
        if (strncmp(name, IMAGE_DIR_PREFIX, plen) != 0)
            continue;
        char *end;
        errno = 0;
        long pid = strtol(name + plen, &end, 10);
        if (errno != 0 || end == name + plen || *end != '-' || pid <= 0)
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* its job still runs (or is another user's) */
        char path[PATH_MAX];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", root, name) >= (int)sizeof path ||
            lstat(path, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != me)
            continue;
        remove_folder(path);
        removed++;
    }
    closedir(d);
    return removed;
}

/* Writes all of buf to a new file path (mode 0700: dlopen maps it executable). */
static int write_copy(const char *path, const unsigned char *buf, size_t bytes, char *err,
                      size_t err_len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    if (fd < 0) {
        snprintf(err, err_len, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    size_t done = 0;
    while (done < bytes) {
        ssize_t w = write(fd, buf + done, bytes - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            snprintf(err, err_len, "cannot write %s: %s; free space in %s or set TMPDIR to a "
                     "folder with room for one copy of the program per PE",
                     path, w < 0 ? strerror(errno) : "short write", tmp_root());
            close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    if (close(fd) != 0) {
        snprintf(err, err_len, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* The writable data of the loaded object whose load bias is `bias`: from the end of its
 * RELRO part (read-only once relocated) to the end of its last writable segment. */
typedef struct {
    ElfW(Addr) bias;
    int found;
    uintptr_t lo, hi;
} data_span;

static int find_span(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    data_span *s = arg;
    if (info->dlpi_addr != s->bias)
        return 0;
    uintptr_t lo = UINTPTR_MAX, hi = 0, relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W)) {
            if (start < lo)
                lo = start;
            if (end > hi)
                hi = end;
        } else if (ph->p_type == PT_GNU_RELRO) {
            relro_end = end;
        }
    }
    if (hi == 0)
        return 0;
    s->lo = relro_end > lo && relro_end < hi ? relro_end : lo;
    s->hi = hi;
    s->found = 1;
    return 1;
}

static void unload(pgas_image *img, int loaded)
{
    for (int i = 0; i < loaded; i++)
        dlclose(img->copies[i].handle);
    free(img->copies);
    img->copies = NULL;
    img->n_copies = 0;
}

static int load_copy(pgas_image *img, int pe, const char *path, char *err, size_t err_len)
{
    pgas_image_copy *c = &img->copies[pe];
    c->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (c->handle == NULL) {
        snprintf(err, err_len, "cannot load the program's copy for PE %d: %s", pe, dlerror());
        return -1;
    }
    c->main_fn = (pgas_main_fn)(uintptr_t)dlsym(c->handle, "main");
    if (c->main_fn == NULL) {
        snprintf(err, err_len, "the program has no main (PE %d's copy, %s)", pe, path);
        dlclose(c->handle);
        return -1;
    }
    struct link_map *map = NULL;
    data_span span = {0};
    if (dlinfo(c->handle, RTLD_DI_LINKMAP, &map) == 0 && map != NULL) {
        span.bias = map->l_addr;
        dl_iterate_phdr(find_span, &span);
    }
    if (!span.found) {
        /* A program with no writable data at all: nothing of it is symmetric. */
        span.lo = span.hi = (uintptr_t)c->main_fn;
    }
    c->data = (char *)span.lo;
    size_t bytes = span.hi - span.lo;
    if (pe > 0 && bytes != img->data_bytes) {
        snprintf(err, err_len, "PE %d's copy of the program has %zu bytes of data, PE 0's "
                 "%zu: the copies differ (report this as a shmemu bug)", pe, bytes,
                 img->data_bytes);
        dlclose(c->handle);
        return -1;
    }
    img->data_bytes = bytes;
    return 0;
}

int pgas_image_load(pgas_image *img, const unsigned char *elf, size_t elf_bytes, int n,
                    const char *prog, char *err, size_t err_len)
{
    memset(img, 0, sizeof *img);
    if (elf_bytes < SELFMAG || memcmp(elf, ELFMAG, SELFMAG) != 0) {
        snprintf(err, err_len, "the program carries no loadable copy of itself (not an ELF "
                 "object); rebuild it with shmemu-cc");
        return -1;
    }
    pgas_image_clean_stale();
    const char *base = strrchr(prog, '/');
    base = base != NULL ? base + 1 : prog;
    if (snprintf(img->dir, sizeof img->dir, "%s/" IMAGE_DIR_PREFIX "%ld-XXXXXX", tmp_root(),
                 (long)getpid()) >= (int)sizeof img->dir ||
        mkdtemp(img->dir) == NULL) {
        snprintf(err, err_len, "cannot create a folder for the program's per-PE copies in "
                 "%s: %s; set TMPDIR to a writable folder", tmp_root(), strerror(errno));
        img->dir[0] = '\0';
        return -1;
    }
    img->copies = calloc((size_t)n, sizeof *img->copies);
    if (img->copies == NULL) {
        snprintf(err, err_len, "out of memory for %d program copies", n);
        pgas_image_remove_files(img);
        return -1;
    }
    for (int pe = 0; pe < n; pe++) {
        char path[PATH_MAX];
        /* The copy's name says whose it is in reports: "ring.pe3.so". */
        if (snprintf(path, sizeof path, "%s/%.64s.pe%d.so", img->dir, base, pe) >=
            (int)sizeof path) {
            snprintf(err, err_len, "TMPDIR %s is too long a path", tmp_root());
            unload(img, pe);
            pgas_image_remove_files(img);
            return -1;
        }
        if (write_copy(path, elf, elf_bytes, err, err_len) != 0 ||
            load_copy(img, pe, path, err, err_len) != 0) {
            unload(img, pe);
            pgas_image_remove_files(img);
            return -1;
        }
    }
    img->n_copies = n;
    return 0;
}

void pgas_image_remove_files(pgas_image *img)
{
    if (img->dir[0] == '\0')
        return;
    remove_folder(img->dir);
    img->dir[0] = '\0';
}

int pgas_image_share_data(pgas_image *img, char *err, size_t err_len)
{
    if (img->shared)
        return 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (int pe = 0; pe < img->n_copies && img->data_bytes > 0; pe++) {
        /* Whole pages: the first may hold the end of RELRO, which stays writable because the
         * loader protects RELRO in whole pages, rounding its end down; the last holds the end
         * of bss and nothing of any other object. */
        uintptr_t lo = (uintptr_t)img->copies[pe].data & ~(uintptr_t)(page - 1);
        uintptr_t hi = ((uintptr_t)img->copies[pe].data + img->data_bytes + page - 1) &
                       ~(uintptr_t)(page - 1);
        size_t bytes = hi - lo;
        void *shared = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                            -1, 0);
        if (shared == MAP_FAILED) {
            snprintf(err, err_len, "cannot map %zu bytes of shared memory for PE %d's globals: "
                     "%s", bytes, pe, strerror(errno));
            return -1;
        }
        memcpy(shared, (void *)lo, bytes);
        /* Moves the shared pages over the copy's own, in one step: nothing runs in between
         * (the launching thread is the process's only one). */
        if (mremap(shared, bytes, bytes, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) ==
            MAP_FAILED) {
            snprintf(err, err_len, "cannot put PE %d's globals in shared memory: mremap: %s",
                     pe, strerror(errno));
            munmap(shared, bytes);
            return -1;
        }
    }
    img->shared = true;
    /* Nothing on disk while the PE processes run: a job killed at any point leaves no file
     * (the copies stay loaded; a debugger or symbolizer then sees them as deleted files). */
    pgas_image_remove_files(img);
    return 0;
}

int pgas_image_owner(const pgas_image *img, const volatile void *addr, size_t *offset)
{
    uintptr_t a = (uintptr_t)addr;
    for (int pe = 0; pe < img->n_copies; pe++) {
        uintptr_t lo = (uintptr_t)img->copies[pe].data;
        if (a >= lo && a - lo < img->data_bytes) {
            *offset = a - lo;
            return img->first_pe + pe;
        }
    }
    return -1;
}
