/*
 * embed.c: a build tool of shmemu-view (viewer/view.mk). Writes a C source that holds each
 * given file as a NUL-terminated array, so that the page's HTML, CSS and JavaScript
 * (viewer/page/) are part of the program and the page it writes needs no other file:
 *
 *   embed OUT.c NAME=FILE...     const char NAME[] = {...};  (the bytes of FILE, then 0)
 *
 * A page file must not hold "</script" or "</style" (it would end its element early in the
 * page) nor a NUL byte: embed refuses it, naming the file, so the build stops.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int embed(FILE *out, const char *name, const char *path)
{
    FILE *in = fopen(path, "rb");
    if (in == NULL) {
        perror(path);
        return -1;
    }
    char *data = NULL;
    size_t len = 0, cap = 0, n;
    char chunk[65536];
    while ((n = fread(chunk, 1, sizeof chunk, in)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            char *p = realloc(data, cap);
            if (p == NULL) {
                free(data);
                fclose(in);
                fprintf(stderr, "embed: out of memory\n");
                return -1;
            }
            data = p;
        }
        memcpy(data + len, chunk, n);
        len += n;
    }
    fclose(in);
    if (data == NULL) {
        fprintf(stderr, "embed: %s is empty\n", path);
        return -1;
    }
    data[len] = '\0';
    if (strlen(data) != len || strcasestr(data, "</script") || strcasestr(data, "</style")) {
        fprintf(stderr, "embed: %s holds a NUL byte, \"</script\" or \"</style\": it would break "
                "the page it is embedded in (write \"<\\/script\" in JavaScript)\n", path);
        free(data);
        return -1;
    }
    fprintf(out, "const char %s[] = {", name);
    for (size_t i = 0; i <= len; i++)
        fprintf(out, "%s%d,", i % 24 ? "" : "\n", (unsigned char)data[i]);
    fprintf(out, "\n};\n");
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: embed OUT.c NAME=FILE...\n");
        return 2;
    }
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", argv[1]);
    FILE *out = fopen(tmp, "w");
    if (out == NULL) {
        perror(tmp);
        return 1;
    }
    fprintf(out, "/* Written by viewer/embed.c from viewer/page/: do not edit. */\n");
    int rc = 0;
    for (int i = 2; i < argc && rc == 0; i++) {
        char *eq = strchr(argv[i], '=');
        if (eq == NULL) {
            fprintf(stderr, "embed: %s is not NAME=FILE\n", argv[i]);
            rc = -1;
            break;
        }
        *eq = '\0';
        fprintf(out, "extern const char %s[];\n", argv[i]);
        rc = embed(out, argv[i], eq + 1);
    }
    if (fclose(out) != 0 || rc != 0 || rename(tmp, argv[1]) != 0) {
        remove(tmp);
        return 1;
    }
    return 0;
}
