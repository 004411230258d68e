# md/md.mk: the MD app. Included by the top Makefile (after its generic rules):
#   $(MD_LIB)   $(BUILD)/lib/libshmemu_md.a  every md/src/*.c except main.c and par_mpi.c
#               (--halo mpi, linked into the program alone), and the kernels
#               md/src/kernels/*.c (kernel dialect; they also compile as CUDA)
#   $(MD_BIN)   bin/shmemu-md (plain build) or $(BUILD)/bin/shmemu-md
#   md tests    $(BUILD)/tests/test_md_*: linked with libshmemu_md.a, not libshmemu.a
#   make md        the library, the program and the md tests
#   make md-test   builds and runs the md suites alone
#   make check-halo-mpi  --halo mpi: refusals, and on MPI ranks the bits of --halo fused
#
# Rule choice: for $(BUILD)/tests/test_md_foo both this file's pattern and the top
# Makefile's $(BUILD)/tests/% match; GNU make (>= 3.82) takes the one with the shorter stem,
# this one, so the generic rule never links an md test.

MD_SRC      := $(filter-out md/src/main.c md/src/par_mpi.c,$(wildcard md/src/*.c)) \
               $(wildcard md/src/kernels/*.c)
MD_OBJ      := $(MD_SRC:%.c=$(BUILD)/%.o)
MD_MAIN_OBJ := $(BUILD)/md/src/main.o
# --halo mpi: linked into the program only (par.c refers to it weakly), so that only a
# program that can run it links MPI, as the runtime keeps MPI in its plugin.
MD_MPI_OBJ  := $(BUILD)/md/src/par_mpi.o
MD_LIB      := $(BUILD)/lib/libshmemu_md.a
MD_BIN      := $(PROG_DIR)/shmemu-md
MD_TEST_SRC := $(wildcard tests/test_md_*.c)
MD_TEST_BIN := $(MD_TEST_SRC:tests/%.c=$(BUILD)/tests/%)

.PHONY: md md-test md-clean

all: $(MD_BIN)
md: $(MD_BIN) $(MD_TEST_BIN)

$(MD_LIB): $(MD_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# --halo mpi (md/src/par_mpi.c) speaks MPI beside the runtime's MPI backend (shmemu/mpi.h),
# with the top Makefile's MPI_CFLAGS and MPI_LIBS (mpicc's, where it is found): there it is
# compiled with SHMEMU_HAVE_MPI=1 and the program links MPI; elsewhere par_mpi.c compiles
# without MPI and shmemu-md refuses --halo mpi, naming libopenmpi-dev.
MD_MPI_ON := $(and $(MPI_LIBS),$(wildcard pgas/include/shmemu/mpi.h))
ifneq ($(MD_MPI_ON),)
$(MD_MPI_OBJ): CPPFLAGS += $(MPI_CFLAGS) -DSHMEMU_HAVE_MPI=1
MD_MPI_LIBS := $(MPI_LIBS)
endif

# md's parallel driver runs its PEs on pgas and its kernels on emu: libshmemu.a after it.
# Started by mpirun it runs on the MPI backend, a plugin loaded at run time: built with it
# (order-only: the program does not link it), so that `make bin/shmemu-md` (or a target
# that needs only the program, bench-halo-mpi) followed by mpirun works.
$(MD_BIN): $(MD_MAIN_OBJ) $(MD_MPI_OBJ) $(MD_LIB) $(LIB_A) | $(MPI_PLUGIN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(MD_MPI_OBJ) $(MD_LIB) $(LIB_A) $(LDLIBS) $(MD_MPI_LIBS)

# Tests see md's internal headers (md/src) as well as the public one, and find their data
# files (tests/md_data) by absolute path, wherever they are run from.
$(BUILD)/tests/test_md_%.o: CPPFLAGS += -Imd/src -DMD_TEST_DATA_DIR='"$(ROOT)/tests/md_data"'

$(BUILD)/tests/test_md_%: $(BUILD)/tests/test_md_%.o $(MD_LIB) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(MD_LIB) $(LIB_A) -lcmocka $(LDLIBS)

# test_md_stats counts the runtime calls that carry halo traffic (its own wrappers of them)
# against md's accounting (par_stats.h). private: not passed on to the prerequisites.
$(BUILD)/tests/test_md_stats: private LDFLAGS += -Wl,--wrap=nvshmem_putmem \
    -Wl,--wrap=nvshmem_putmem_nbi -Wl,--wrap=nvshmem_putmem_signal_nbi \
    -Wl,--wrap=nvshmemx_signal_op

# test_md_io, test_md_options and test_md_asserts run the program (its own build's, or
# bin/'s in the plain build).
$(BUILD)/tests/test_md_io $(BUILD)/tests/test_md_options $(BUILD)/tests/test_md_asserts: | $(MD_BIN)

md-test: $(MD_TEST_BIN)
	@set -e; for t in $(MD_TEST_BIN); do echo "== $$t"; $$t; done

# --halo mpi (tests/check-halo-mpi.sh): refused where it cannot run; where mpirun works, on
# 2, 4 and 8 MPI ranks byte-identical to --halo fused on threads (seconds).
.PHONY: check-halo-mpi
check-halo-mpi: $(MD_BIN)
	@BUILD=$(BUILD) MD_BIN=$(MD_BIN) tests/check-halo-mpi.sh

# `make clean` removes build/ (and with it the library and tests); the program lives in bin/.
clean: md-clean
md-clean:
	rm -f $(MD_BIN)

-include $(MD_OBJ:.o=.d) $(MD_MAIN_OBJ:.o=.d) $(MD_MPI_OBJ:.o=.d)
