# bench/bench.mk: the benchmarks (included by the top-level Makefile).
#
#   make bench                 build everything below, run bench/run.sh, write bench/RESULTS.md
#   make bench-build           only build the benchmark programs into $(BUILD)/bench/
#   make bench-md              the LJ benchmark beside LAMMPS (bench/md_lammps.sh)
#   make bench-halo-variants   staged (fused) against direct26 on the CPU emulator: messages,
#                              bytes and time per step at 2-8 PEs (bench/halo_variants.sh)
#
# The shmemu programs and the raw floor build with $(CC) and the project's $(CFLAGS); the
# Open MPI baselines with its wrapper compilers (mpicc, oshcc) and the same flags, so every
# program is held to -std=c17 -Wall -Wextra -Werror.

MPICC ?= mpicc
OSHCC ?= oshcc

BENCH_DIR := $(BUILD)/bench
BENCH_BIN := $(BENCH_DIR)/pingpong_raw $(BENCH_DIR)/pingpong_shmemu \
             $(BENCH_DIR)/put_bw_shmemu $(BENCH_DIR)/pingpong_mpi $(BENCH_DIR)/pingpong_oshmem \
             $(BENCH_DIR)/emu_costs

.PHONY: bench bench-build bench-md bench-halo-variants

# The MD benchmark against LAMMPS (minutes; its own section of bench/RESULTS.md).
bench-md: all
	BUILD=$(BUILD) MD_BIN=$(MD_BIN) bench/md_lammps.sh

# The halo variants side by side (minutes; its own section of bench/RESULTS.md).
bench-halo-variants: $(MD_BIN)
	BUILD=$(BUILD) MD_BIN=$(MD_BIN) bench/halo_variants.sh

bench: bench-build
	BENCH_CMD="make BUILD=$(BUILD) bench" BUILD=$(BUILD) bench/run.sh --no-build

bench-build: $(BENCH_BIN)

$(BENCH_DIR)/pingpong_raw: $(BENCH_DIR)/pingpong_raw.o
	$(CC) $(LDFLAGS) -o $@ $< $(LDLIBS)

$(BENCH_DIR)/pingpong_shmemu $(BENCH_DIR)/put_bw_shmemu $(BENCH_DIR)/emu_costs: %: %.o $(LIB_A)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS)

$(BENCH_DIR)/pingpong_mpi: bench/pingpong_mpi.c
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) $(LDFLAGS) -MMD -MP -o $@ $<

$(BENCH_DIR)/pingpong_oshmem: bench/pingpong_oshmem.c
	@mkdir -p $(dir $@)
	$(OSHCC) $(CFLAGS) $(LDFLAGS) -MMD -MP -o $@ $<

-include $(wildcard $(BENCH_DIR)/*.d)
