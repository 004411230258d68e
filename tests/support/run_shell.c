/* run_shell.c: run_shell.h. */
#include "run_shell.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/wait.h>

#include <cmocka.h>

int run_shell(const char *cmd, char *out, size_t len)
{
    char full[4096];
    if ((size_t)snprintf(full, sizeof full, "{ %s; } 2>&1", cmd) >= sizeof full)
        fail_msg("run_shell: the command is longer than %zu bytes: %s", sizeof full - 10, cmd);
    FILE *p = popen(full, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
