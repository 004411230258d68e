# pgas/sched.mk: the deterministic scheduler's program and tests (docs/sched.md). Included
# by the top Makefile:
#   $(EXPLORE_BIN)          bin/shmemu-explore (plain build) or $(BUILD)/bin/shmemu-explore
#   test_sched*             cmocka suites; test_sched_md links the MD library and replays
#                           the traces checked in under tests/traces/
#   make sched-traces       records those traces again (after a deliberate change of the
#                           sync points: a replay reports the first decision that differs)
#   make bench-sched        schedules explored per second (bench/sched_explore.sh)
#   make bench-weak-sound   the weak-memory mode on correct programs (bench/weak_sound.sh)

EXPLORE_BIN := $(PROG_DIR)/shmemu-explore
SCHED_TRACE_DIR := $(ROOT)/tests/traces

.PHONY: sched-traces bench-sched

all: $(EXPLORE_BIN)

# explore_args.o: the command line, also linked by the fuzzer of its arguments (fuzz/)
EXPLORE_OBJ := $(BUILD)/pgas/tools/shmemu_explore.o $(BUILD)/pgas/tools/explore_args.o \
               $(BUILD)/pgas/tools/explore_search.o

$(EXPLORE_BIN): $(EXPLORE_OBJ) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(EXPLORE_OBJ) $(LIB_A) $(LDLIBS)

# The suites find the explorer and the traces by absolute path.
$(BUILD)/tests/test_sched.o $(BUILD)/tests/test_sched_md.o $(BUILD)/tests/test_sched_search.o: CPPFLAGS += -Imd/src -DSCHED_TRACE_DIR='"$(SCHED_TRACE_DIR)"' \
    -DSCHED_EXPLORE_BIN='"$(ROOT)/$(EXPLORE_BIN)"'
$(BUILD)/tests/test_sched $(BUILD)/tests/test_sched_search: | $(EXPLORE_BIN)

# test_sched_fast runs the explorer on shmemu-md (schedules kept by the fast paths)
$(BUILD)/tests/test_sched_fast.o: CPPFLAGS += -DSCHED_EXPLORE_BIN='"$(ROOT)/$(EXPLORE_BIN)"' \
    -DSCHED_MD_BIN='"$(ROOT)/$(PROG_DIR)/shmemu-md"'
$(BUILD)/tests/test_sched_fast: | $(EXPLORE_BIN) $(PROG_DIR)/shmemu-md

# test_weak_md explores shmemu-md in the weak-memory mode (docs/sched.md, "Weak memory")
$(BUILD)/tests/test_weak_md.o: CPPFLAGS += -DSCHED_EXPLORE_BIN='"$(ROOT)/$(EXPLORE_BIN)"' \
    -DSCHED_MD_BIN='"$(ROOT)/$(PROG_DIR)/shmemu-md"'
$(BUILD)/tests/test_weak_md: | $(EXPLORE_BIN) $(PROG_DIR)/shmemu-md

# (md/md.mk is included after this file: its names are spelled out in prerequisites)
$(BUILD)/tests/test_sched_md: $(BUILD)/tests/test_sched_md.o $(TEST_HOBJ) $(BUILD)/lib/libshmemu_md.a $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(TEST_HOBJ) $(MD_LIB) $(LIB_A) -lcmocka $(LDLIBS)

# The in-process explorer benchmark (bench/sched_explore.sh runs it with the explorer).
$(BUILD)/bench/sched_explore.o: CPPFLAGS += -Imd/src
$(BUILD)/bench/sched_explore: $(BUILD)/bench/sched_explore.o $(BUILD)/lib/libshmemu_md.a $(LIB_A)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/lib/libshmemu_md.a $(LIB_A) $(LDLIBS)

sched-traces: $(BUILD)/tests/test_sched_md
	SCHED_RECORD=1 $(BUILD)/tests/test_sched_md

bench-sched: $(EXPLORE_BIN) $(PROG_DIR)/shmemu-md $(BUILD)/bench/sched_explore
	BUILD=$(BUILD) EXPLORE_BIN=$(EXPLORE_BIN) MD_BIN=$(MD_BIN) bench/sched_explore.sh

# The weak-memory mode on correct programs: every catalogue configuration without its bug,
# and the suites that run under the scheduler, in weak mode (bench/weak_sound.sh; minutes).
.PHONY: bench-weak-sound
bench-weak-sound: $(PROG_DIR)/shmemu-md $(TEST_BIN) $(BUILD)/lib/libshmemu_cuda.a \
                  $(PROG_DIR)/shmemu-cudafe
	BUILD=$(BUILD) bench/weak_sound.sh

-include $(BUILD)/pgas/tools/shmemu_explore.d $(BUILD)/pgas/tools/explore_args.d \
         $(BUILD)/pgas/tools/explore_search.d
