/*
 * cudafe.c: shmemu-cudafe IN.ii OUT.ii, the source rewriter that bin/shmemu-nvcc runs
 * between the host compiler's preprocessing and its compilation (cudafe.h says what it
 * rewrites). OUT is written whole (a temporary file beside it, then a rename) and never
 * over IN. Exit status: 0 rewritten; 1 the input is malformed or calls a device-only
 * NVSHMEM function from host code (a message naming the .cu file and line); 2 usage or I/O
 * error.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cudafe.h"

static int read_all(const char *path, char **buf, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0;
    char *p = malloc(cap);
    while (p) {
        size_t k = fread(p + n, 1, cap - n, f);
        n += k;
        if (n < cap)
            break;
        char *np = cap <= SIZE_MAX / 2 ? realloc(p, cap * 2) : NULL;
        if (!np) {
            free(p);
            p = NULL;
            errno = ENOMEM;
            break;
        }
        p = np;
        cap *= 2;
    }
    int bad = !p || ferror(f);
    fclose(f);
    if (bad) {
        free(p);
        return -1;
    }
    *buf = p;
    *len = n;
    return 0;
}

static int write_all(const char *path, const char *buf, size_t len)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 16);
    if (!tmp)
        return -1;
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", 12);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(tmp);
        return -1;
    }
    FILE *f = fdopen(fd, "wb");
    int bad = !f || fwrite(buf, 1, len, f) != len;
    if (f)
        bad |= fclose(f) != 0;
    else
        close(fd);
    if (!bad)
        bad = rename(tmp, path) != 0;
    int saved = errno;
    if (bad)
        unlink(tmp);
    free(tmp);
    errno = saved;
    return bad ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: shmemu-cudafe IN.ii OUT.ii\n"
                        "  rewrites preprocessed CUDA C++ (g++ -E output) for the host "
                        "compiler; bin/shmemu-nvcc runs it\n");
        return 2;
    }
    const char *in = argv[1], *out = argv[2];
    struct stat si, so;
    if (strcmp(in, out) == 0 ||
        (stat(in, &si) == 0 && stat(out, &so) == 0 && si.st_dev == so.st_dev &&
         si.st_ino == so.st_ino)) {
        fprintf(stderr, "shmemu-cudafe: %s: the output would overwrite the input; name "
                        "another output file\n", out);
        return 2;
    }
    char *src;
    size_t n;
    if (read_all(in, &src, &n) != 0) {
        fprintf(stderr, "shmemu-cudafe: %s: cannot read: %s\n", in, strerror(errno));
        return 2;
    }
    char *res;
    size_t rlen;
    char err[4096];
    if (cudafe_rewrite(src, n, in, CUDAFE_CHECK_DEVICE_ONLY, &res, &rlen, err, sizeof err) !=
        0) {
        fprintf(stderr, "%s\n", err);
        free(src);
        return 1;
    }
    free(src);
    if (write_all(out, res, rlen) != 0) {
        fprintf(stderr, "shmemu-cudafe: %s: cannot write: %s\n", out, strerror(errno));
        free(res);
        return 2;
    }
    free(res);
    return 0;
}
