# fuzz/fuzz.mk: libFuzzer harnesses for every parser (docs/fuzzing.md). Included by the
# top Makefile:
#   make fuzz-replay             builds every harness and runs it over its checked-in corpus
#                                (fuzz/corpus/<harness>/) once, with -runs=0: fails on any
#                                crash, leak or sanitizer report (part of the default suite);
#                                first, fuzz/canary.c's planted bugs must all be caught
#   make fuzz [FUZZ_SECONDS=N]   fuzzes each harness for N CPU seconds (default 60) into a work
#                                corpus ($(FUZZ_BUILD)/corpus/<harness>/), crashes into
#                                $(FUZZ_BUILD)/crashes/<harness>/, a summary into
#                                $(FUZZ_BUILD)/fuzz-summary.txt
#   make fuzz-crashes            replays the recorded reproducers (fuzz/crashes/<harness>/):
#                                says which still crash (not part of the suite)
#   make fuzz-build              the harnesses alone, in $(FUZZ_BUILD)/
#
# Every harness is fuzz/fuzz_*.c, built with clang, -fsanitize=fuzzer,address,undefined and
# -fno-sanitize-recover=all (so UBSan findings stop the run, as ASan's do). The sources it
# tests are compiled once into archives (pgas, the MD app's serial part, the CG app) with
# -fsanitize=fuzzer-no-link (coverage for the fuzzer) and linked with each harness.

FUZZ_CC      ?= clang
FUZZ_BUILD   ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS  := -g -O1 -std=c17 -D_GNU_SOURCE -ffp-contract=off -pthread -Wall -Wextra -Werror
FUZZ_CPPFLAGS := -Ipgas/include -Iemu/include -Imd/include -Icg/include

FUZZ_HARNESSES := $(patsubst fuzz/%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_BINS      := $(FUZZ_HARNESSES:%=$(FUZZ_BUILD)/%)

# Only what the parsers link: the runtime's pgas/ (the trace and guide readers, the env
# parser, explore's arguments; none of emu/), and md/ without its parallel driver and
# kernels (the parsers and the serial driver that a checkpoint restarts). A harness that
# comes to need more fails to link, naming the symbol: add its source here.
FUZZ_RT_SRC := $(filter-out pgas/src/main_wrap.c,$(wildcard pgas/src/*.c)) \
               $(wildcard pgas/tools/*_args.c)
FUZZ_MD_SRC := $(filter-out md/src/main.c md/src/main_par.c md/src/check.c \
                            $(wildcard md/src/par.c md/src/par_*.c),$(wildcard md/src/*.c))
FUZZ_RT_LIB := $(FUZZ_BUILD)/lib/libshmemu_fuzz.a
FUZZ_MD_LIB := $(FUZZ_BUILD)/lib/libshmemu_md_fuzz.a
# The CG app (cg/) without its parallel driver (par.c, kernels/): it links nothing of the
# runtime (its reader, the plan and the serial solver that fuzz_cg_mtx runs on what it
# accepts).
FUZZ_CG_SRC := $(filter-out cg/src/main.c cg/src/par.c,$(wildcard cg/src/*.c))
FUZZ_CG_LIB := $(FUZZ_BUILD)/lib/libshmemu_cg_fuzz.a

.PHONY: fuzz fuzz-build fuzz-replay fuzz-crashes

$(FUZZ_BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CPPFLAGS) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
	    -MMD -MP -c $< -o $@

# The harnesses also see md's internal headers (as md's tests do). pgas/src is not on the
# path: its sched.h would shadow the system's <sched.h>; they include it by relative path.
$(FUZZ_BUILD)/obj/fuzz/%.o: FUZZ_CPPFLAGS += -Imd/src

$(FUZZ_RT_LIB): $(FUZZ_RT_SRC:%.c=$(FUZZ_BUILD)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_MD_LIB): $(FUZZ_MD_SRC:%.c=$(FUZZ_BUILD)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(FUZZ_CG_LIB): $(FUZZ_CG_SRC:%.c=$(FUZZ_BUILD)/obj/%.o)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

# fuzz_md_*: the MD app's parsers, linked with its archive first (its objects call into the
# runtime's); the others need the runtime alone. (Make takes the rule with the shorter stem.)
$(FUZZ_BUILD)/fuzz_md_%: $(FUZZ_BUILD)/obj/fuzz/fuzz_md_%.o $(FUZZ_MD_LIB) $(FUZZ_RT_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_MD_LIB) \
	    $(FUZZ_RT_LIB) -lm

# fuzz_cg_*: the CG app's parsers, with its archive alone.
$(FUZZ_BUILD)/fuzz_cg_%: $(FUZZ_BUILD)/obj/fuzz/fuzz_cg_%.o $(FUZZ_CG_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_CG_LIB) -lm

$(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/obj/fuzz/fuzz_%.o $(FUZZ_RT_LIB)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_RT_LIB) -lm

# fuzz_cudafe: shmemu-nvcc's source rewriter (cuda/tools/), which links nothing of the runtime.
FUZZ_CUDAFE_OBJ := $(FUZZ_BUILD)/obj/cuda/tools/cudafe_rw.o $(FUZZ_BUILD)/obj/cuda/tools/cudafe_lex.o
$(FUZZ_BUILD)/fuzz_cudafe: $(FUZZ_BUILD)/obj/fuzz/fuzz_cudafe.o $(FUZZ_CUDAFE_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_CUDAFE_OBJ)

# fuzz_view_*: shmemu-view's readers (viewer/), which link nothing of the runtime.
FUZZ_VIEW_OBJ := $(patsubst %,$(FUZZ_BUILD)/obj/viewer/%.o,view_json view_log view_report)
$(FUZZ_BUILD)/fuzz_view_%: $(FUZZ_BUILD)/obj/fuzz/fuzz_view_%.o $(FUZZ_VIEW_OBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $< $(FUZZ_VIEW_OBJ)

fuzz-build: $(FUZZ_BINS)

# fuzz/canary.c: planted bugs that the replay must catch before it may pass (run.sh).
$(FUZZ_BUILD)/canary: $(FUZZ_BUILD)/obj/fuzz/canary.o
	$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $<

fuzz-replay: $(FUZZ_BINS) $(FUZZ_BUILD)/canary
	@fuzz/run.sh replay $(FUZZ_BUILD) $(FUZZ_HARNESSES)

fuzz: $(FUZZ_BINS)
	@FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run.sh fuzz $(FUZZ_BUILD) $(FUZZ_HARNESSES)

fuzz-crashes: $(FUZZ_BINS)
	@fuzz/run.sh crashes $(FUZZ_BUILD) $(FUZZ_HARNESSES)

-include $(wildcard $(FUZZ_BUILD)/obj/*/*.d $(FUZZ_BUILD)/obj/*/*/*.d $(FUZZ_BUILD)/obj/*/*/*/*.d)
