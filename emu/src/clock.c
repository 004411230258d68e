/*
 * clock.c: the dialect's globaltimer() (shmemu/kernel.h): the device clock that kernels
 * read for their own timestamps. A GPU's %globaltimer is one nanosecond clock for every SM;
 * the emulator's blocks are pthreads of one process, so CLOCK_MONOTONIC (the clock the
 * block records of trace.c use too) is the same thing: one clock for every block, stream
 * and PE, never going backwards. No checker annotation: reading a clock is not a memory
 * access, and a kernel's results must never depend on it.
 */
#include "internal.h"
#include "shmemu/kernel.h"

uint64_t emu_globaltimer(void) { return emu_now_ns(); }
