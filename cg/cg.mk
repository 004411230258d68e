# cg/cg.mk: the conjugate-gradient app (paper 002; docs/cg.md). Included by the top Makefile
# (after its generic rules), as md/md.mk is:
#   $(CG_LIB)   $(BUILD)/lib/libshmemu_cg.a  every cg/src/*.c except main.c, and the
#               kernels cg/src/kernels/*.c (kernel dialect, shmemu/kernel.h)
#   $(CG_BIN)   bin/shmemu-cg (plain build) or $(BUILD)/bin/shmemu-cg
#   cg tests    $(BUILD)/tests/test_cg_*: linked with libshmemu_cg.a
#   make cg        the library, the program and the cg tests
#   make cg-test   builds and runs the cg suites alone
#
# The parallel solvers (par.c, kernels/) run on pgas and emu: the program and the tests link
# libshmemu.a after the cg library. Rule choice as in md/md.mk: for
# $(BUILD)/tests/test_cg_foo this file's pattern has the shorter stem, so make takes it.

CG_SRC      := $(filter-out cg/src/main.c,$(wildcard cg/src/*.c)) $(wildcard cg/src/kernels/*.c)
CG_OBJ      := $(CG_SRC:%.c=$(BUILD)/%.o)
CG_MAIN_OBJ := $(BUILD)/cg/src/main.o
CG_LIB      := $(BUILD)/lib/libshmemu_cg.a
CG_BIN      := $(PROG_DIR)/shmemu-cg
CG_TEST_SRC := $(wildcard tests/test_cg_*.c)
CG_TEST_BIN := $(CG_TEST_SRC:tests/%.c=$(BUILD)/tests/%)

.PHONY: cg cg-test cg-clean

all: $(CG_BIN)
cg: $(CG_BIN) $(CG_TEST_BIN)

# cg's sources see its public headers (cg/include/cg/*.h) and its internal ones.
$(BUILD)/cg/%.o: CPPFLAGS += -Icg/include -Icg/src

# METIS (--partition metis, cg/partition.h) when its header is there (Debian's libmetis-dev,
# installed by scripts/ensure-deps.sh test): partition_metis.c is built with it and the
# program and tests link -lmetis; without it, --partition metis is refused with a message
# (and test_cg_partition fails: the test level must have it). CG_METIS_DIR names another
# prefix (DIR/include/metis.h, DIR/lib/libmetis.so), e.g. a copy of the library on a machine
# without the package (the GPU machines; -Xlinker, not -Wl: nvcc links cuda-cg with the same
# flags); `CG_METIS=` builds without METIS.
CG_METIS_DIR ?=
CG_METIS   := $(wildcard $(or $(CG_METIS_DIR),/usr)/include/metis.h)
CG_LDLIBS  := $(if $(CG_METIS),$(if $(CG_METIS_DIR),-L$(CG_METIS_DIR)/lib \
                -Xlinker -rpath=$(abspath $(CG_METIS_DIR)/lib)) -lmetis)
$(BUILD)/cg/src/partition_metis.o: CPPFLAGS += $(if $(CG_METIS),-DCG_HAVE_METIS \
                                   $(if $(CG_METIS_DIR),-I$(CG_METIS_DIR)/include))
# A stamp holding the choice, rewritten (at parse time) only when it changes: installing or
# removing METIS rebuilds partition_metis.o. (Not a rule-made stamp: the Makefile's
# .SECONDARY would let a missing one go unbuilt.)
CG_METIS_STAMP := $(BUILD)/cg/metis.stamp
CG_METIS_WANT  := $(if $(CG_METIS),yes,no)
$(shell mkdir -p $(BUILD)/cg && { [ "$$(cat $(CG_METIS_STAMP) 2>/dev/null)" = $(CG_METIS_WANT) ] \
    || echo $(CG_METIS_WANT) > $(CG_METIS_STAMP); })
$(BUILD)/cg/src/partition_metis.o: $(CG_METIS_STAMP)

$(CG_LIB): $(CG_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(CG_BIN): $(CG_MAIN_OBJ) $(CG_LIB) $(LIB_A) | $(MPI_PLUGIN)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(CG_LIB) $(LIB_A) $(CG_LDLIBS) $(LDLIBS)

# Tests see cg's internal headers too, and find their data files (tests/cg_data) and the
# plain build's bin/ by absolute path, wherever they are run from.
$(BUILD)/tests/test_cg_%.o: CPPFLAGS += -Icg/include -Icg/src \
    -DCG_TEST_DATA_DIR='"$(ROOT)/tests/cg_data"' -DCG_TEST_ROOT='"$(ROOT)"'

$(BUILD)/tests/test_cg_%: $(BUILD)/tests/test_cg_%.o $(CG_LIB) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(CG_LIB) $(LIB_A) -lcmocka $(CG_LDLIBS) $(LDLIBS)

# test_cg_partition counts the halo's put-with-signal calls (its own wrapper of them): the
# direct transport must make none. private: not passed on to the prerequisites.
$(BUILD)/tests/test_cg_partition: private LDFLAGS += \
    -Wl,--wrap=nvshmemx_double_put_signal_nbi_block

# test_cg_cli runs the program (its own build's, or bin/'s in the plain build).
$(BUILD)/tests/test_cg_cli: | $(CG_BIN)

cg-test: $(CG_TEST_BIN)
	@set -e; for t in $(CG_TEST_BIN); do echo "== $$t"; $$t; done

# `make clean` removes build/ (and with it the library and tests); the program lives in bin/.
clean: cg-clean
cg-clean:
	rm -f $(CG_BIN)

-include $(CG_OBJ:.o=.d) $(CG_MAIN_OBJ:.o=.d)
