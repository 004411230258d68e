# tests/races.mk: race checking of the protocol (included by the top Makefile). Not part of
# `make test` or `make check`: these runs take minutes (docs/checking.md gives the times).
#
#   make check-races        correct code must be clean: the MD halo variants over a matrix
#                           of configurations (2-8 PEs; 1D, 2D, 3D; pulse and fused; direct
#                           and put-with-signal; immediate and delayed delivery), cg's solvers
#                           (cg-mono, cg-host, the halo-only loop at 2-8 PEs) and the pgas
#                           and emu suites, under helgrind, DRD and a ThreadSanitizer build
#                           (scripts/check-races.sh)
#   make bench-races        each checker's slowdown and memory (bench/races.sh)
#   make detection-matrix   every planted bug (shmemu/bugs.h) under every checker, written to
#                           docs/detection-matrix.md (scripts/detection-matrix.sh)
#
# Both use their own build folders, so they never touch the default suite's:
#   RACES_BUILD (default build-races), RACES_TSAN_BUILD (default build-races-tsan).

RACES_BUILD      ?= build-races
RACES_TSAN_BUILD ?= build-races-tsan

.PHONY: check-races detection-matrix races-build

# The programs and suites both scripts run: a plain build (-O2 -g, for valgrind) and a TSan
# build with clang.
races-build:
	$(MAKE) BUILD=$(RACES_BUILD) libs $(RACES_BUILD)/bin/shmemu-md $(RACES_BUILD)/bin/shmemu-cg \
	        $(patsubst $(BUILD)/%,$(RACES_BUILD)/%,$(TEST_BIN))
	$(MAKE) BUILD=$(RACES_TSAN_BUILD) SANITIZE=thread CC=clang libs \
	        $(RACES_TSAN_BUILD)/bin/shmemu-md $(RACES_TSAN_BUILD)/bin/shmemu-cg \
	        $(patsubst $(BUILD)/%,$(RACES_TSAN_BUILD)/%,$(TEST_BIN))

check-races: races-build
	scripts/check-races.sh $(RACES_BUILD) $(RACES_TSAN_BUILD)

detection-matrix: races-build
	scripts/detection-matrix.sh $(RACES_BUILD) $(RACES_TSAN_BUILD)

# Each checker's slowdown and memory on one fixed configuration (8 PEs, 2D, fused, 10 steps,
# 4 000 atoms): its own section of bench/RESULTS.md (bench/races.sh).
.PHONY: bench-races
bench-races: races-build
	RACES_BUILD=$(RACES_BUILD) RACES_TSAN_BUILD=$(RACES_TSAN_BUILD) bench/races.sh
