/*
 * fuzz_args.h: an input as a command line, for the harnesses of option parsers (header-only).
 *
 *   fuzz_argv     splits an input into an argv: arguments are separated by '\n', argv[0] is
 *                 the program's name; a corpus file is one argument per line.
 */
#ifndef FUZZ_ARGS_H
#define FUZZ_ARGS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_ARGS 64

typedef struct fuzz_args {
    char *text;                      /* the input, NUL-terminated, '\n' -> '\0' */
    char *argv[FUZZ_MAX_ARGS + 2];   /* NULL-terminated */
    int argc;
} fuzz_args;

/* At most FUZZ_MAX_ARGS arguments after argv[0]; the rest of the input is dropped. A
 * trailing '\n' does not make an empty last argument (so corpus files may end in one). */
static inline void fuzz_argv(fuzz_args *a, const char *prog, const uint8_t *data, size_t size)
{
    a->text = malloc(size + 1);
    if (a->text == NULL)
        abort();
    memcpy(a->text, data, size);
    a->text[size] = '\0';
    a->argc = 0;
    a->argv[a->argc++] = (char *)prog;
    char *s = a->text, *end = a->text + size;
    while (s < end && a->argc <= FUZZ_MAX_ARGS) {
        char *nl = memchr(s, '\n', (size_t)(end - s));
        if (nl == NULL)
            nl = end;
        *nl = '\0';
        a->argv[a->argc++] = s;
        s = nl + 1;
    }
    a->argv[a->argc] = NULL;
}

static inline void fuzz_args_free(fuzz_args *a) { free(a->text); }

#endif
