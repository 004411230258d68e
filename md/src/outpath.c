/*
 * outpath.c: refuses output paths that are not regular files or that name an input or
 * another output (rules: outpath.h). Only stat() and realpath(): nothing is opened or
 * created, so a refused path is never touched.
 */
#include "outpath.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* Who a path is: the file it names when it exists, and its resolved spelling always. */
typedef struct path_id {
    bool exists;
    dev_t dev;
    ino_t ino;
    char *canon; /* malloc'ed */
} path_id;

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = md_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

/* The directory part of path ("." when it has none); malloc'ed. */
static char *dir_part(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return dup_str(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *dir = md_xmalloc(n + 1);
    memcpy(dir, path, n);
    dir[n] = '\0';
    return dir;
}

/* A dangling symlink names the file that writing through it would create: follows the
 * chain (at most 40 links, as the kernel does) to the first name that is not a link. */
static char *follow_links(const char *path)
{
    char *cur = dup_str(path);
    for (int hop = 0; hop < 40; hop++) {
        struct stat st;
        char target[PATH_MAX];
        ssize_t n;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode) ||
            (n = readlink(cur, target, sizeof target - 1)) < 0)
            break;
        target[n] = '\0';
        char *dir = dir_part(cur);
        size_t len = strlen(dir) + (size_t)n + 2;
        char *next = md_xmalloc(len);
        if (target[0] == '/')
            snprintf(next, len, "%s", target);
        else
            snprintf(next, len, "%s/%s", dir, target);
        free(dir);
        free(cur);
        cur = next;
    }
    return cur;
}

/* realpath of the directory part (when it exists) joined with the last component; the path
 * as given when the directory cannot be resolved (then it cannot be created either). */
static char *resolve_missing(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *dir = dir_part(path);
    char *rdir = realpath(dir, NULL);
    free(dir);
    if (!rdir || !strcmp(base, ".") || !strcmp(base, "..") || base[0] == '\0') {
        free(rdir);
        return dup_str(path);
    }
    size_t n = strlen(rdir) + strlen(base) + 2;
    char *out = md_xmalloc(n);
    snprintf(out, n, "%s/%s", strcmp(rdir, "/") ? rdir : "", base);
    free(rdir);
    return out;
}

static void identify(const char *path, path_id *id)
{
    struct stat st;
    memset(id, 0, sizeof *id);
    if (stat(path, &st) == 0) {
        id->exists = true;
        id->dev = st.st_dev;
        id->ino = st.st_ino;
        id->canon = realpath(path, NULL);
    }
    if (!id->canon) {
        char *end = follow_links(path);
        id->canon = resolve_missing(end);
        free(end);
    }
}

static bool same_file(const path_id *a, const path_id *b)
{
    if (a->exists && b->exists)
        return a->dev == b->dev && a->ino == b->ino;
    return strcmp(a->canon, b->canon) == 0;
}

int md_outpath_check_target(const char *option, const char *path, md_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0; /* to be created: the open or rename reports what is wrong */
    if (S_ISDIR(st.st_mode))
        return md_fail(err, "%s %s is a directory; give a file name", option, path);
    if (!S_ISREG(st.st_mode))
        return md_fail(err, "%s %s is not a regular file (a %s); shmemu-md replaces or "
                       "truncates its output files, so it writes only regular files: give "
                       "the path of a new or regular file", option, path,
                       S_ISFIFO(st.st_mode)  ? "FIFO"
                       : S_ISCHR(st.st_mode) ? "character device"
                       : S_ISBLK(st.st_mode) ? "block device"
                       : S_ISSOCK(st.st_mode) ? "socket"
                                              : "special file");
    return 0;
}

int md_outpath_check(const md_path_use *use, int n, md_error *err)
{
    for (int i = 0; i < n; i++)
        if (use[i].path && use[i].output &&
            md_outpath_check_target(use[i].option, use[i].path, err) != 0)
            return -1;
    path_id *ids = md_xcalloc((size_t)n, sizeof *ids);
    for (int i = 0; i < n; i++)
        if (use[i].path)
            identify(use[i].path, &ids[i]);
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (!use[i].path || !use[i].output)
            continue;
        for (int j = 0; j < n && rc == 0; j++) {
            if (j == i || !use[j].path || !same_file(&ids[i], &ids[j]))
                continue;
            if (use[j].output && j < i)
                continue; /* the pair was reported from the other side */
            if (!use[j].output && use[i].may_replace &&
                !strcmp(use[i].may_replace, use[j].option))
                continue;
            rc = md_fail(err, "%s %s and %s %s are the same file: writing %s would %s; give "
                         "%s another path", use[i].option, use[i].path, use[j].option,
                         use[j].path, use[i].option,
                         use[j].output ? "destroy the other output" : "overwrite the input",
                         use[i].option);
        }
    }
    for (int i = 0; i < n; i++)
        free(ids[i].canon);
    free(ids);
    return rc;
}
