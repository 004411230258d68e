/*
 * run_shell.h: running a command line from a cmocka test (the tests that drive the
 * programs a user runs: shmemu-explore, shmemu-md, replay commands).
 */
#ifndef SHMEMU_TESTS_RUN_SHELL_H
#define SHMEMU_TESTS_RUN_SHELL_H

#include <stddef.h>

/* Runs cmd with sh, its standard output and error (`{ cmd; } 2>&1`) into out (at most
 * len - 1 bytes, NUL-terminated); returns the exit status, or 128 + the signal that ended
 * it. Fails the calling test when sh cannot be started (call it on the test's thread). */
int run_shell(const char *cmd, char *out, size_t len);

#endif
