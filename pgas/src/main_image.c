/*
 * main_image.c: the main() of programs that bin/shmemu-cc builds with per-PE copies (its
 * default; libshmemu_image.a).
 *
 * shmemu-cc links the user's code into a shared object and carries it inside the executable
 * between the symbols shmemu_image_start and shmemu_image_end (an assembler .incbin it
 * generates). This main loads one copy of it per PE, SHMEMU_NPES of them (bin/shmemu-run -n N
 * sets it), and runs copy p's main on PE p's thread, so every global and static variable of
 * the program is per PE and symmetric (image.h, docs/pgas.md "Per-PE data"). The process
 * exits with the first non-zero status in PE order, or 0.
 */
#include <stddef.h>

#include "shmemu/pgas.h"

extern const unsigned char shmemu_image_start[];
extern const unsigned char shmemu_image_end[];

int main(int argc, char **argv, char **envp);

int main(int argc, char **argv, char **envp)
{
    return shmemu_launch_image(shmemu_npes_from_env(), shmemu_image_start,
                               (size_t)(shmemu_image_end - shmemu_image_start), argc, argv, envp);
}

/* The copies' files go when the process ends, and not before: a destructor of the
 * executable runs after every exit handler, the sanitizers' leak and race reports among them
 * (they read the copies' debug information from those files). A job that dies by a signal
 * leaves them; the next job removes them (pgas_image_clean_stale). */
__attribute__((destructor)) static void remove_copies(void) { shmemu_image_remove_files(); }
