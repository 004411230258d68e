/*
 * main_wrap.c: the main() of programs built with bin/shmemu-cc (libshmemu_main.a).
 *
 * The program is linked with -Wl,--wrap=main: the C runtime's call to main() lands here,
 * and __real_main is the program's own main. It runs once per PE thread, SHMEMU_NPES of
 * them (bin/shmemu-run -n N sets it). The process exits with the first non-zero status in
 * PE order, or 0.
 */
#include "shmemu/pgas.h"

int __real_main(int argc, char **argv, char **envp);
int __wrap_main(int argc, char **argv, char **envp);

int __wrap_main(int argc, char **argv, char **envp)
{
    return shmemu_launch_main(shmemu_npes_from_env(), __real_main, argc, argv, envp);
}
