# course/exercises/lab.mk: the graded exercises (bin/shmemu-lab, docs/course/exercises.md).
# Included by the top Makefile.
#   make check-lab   tests/check-lab.sh: for every exercise folder, the reference solution
#                    passes `shmemu-lab check` and the starting program fails it at the
#                    checker its check.conf names; plus the learner's path and usage errors.
#                    Builds what it needs in $(BUILD) (the libraries, the CUDA layer,
#                    shmemu-cudafe, shmemu-explore) and in $(BUILD)-tsan (the runtime and
#                    CUDA layer with ThreadSanitizer, by clang). LAB_SEEDS caps the seeds
#                    (default 4), LAB_JOBS the checks run at once (default 2).
.PHONY: check-lab lab-tsan-build

LAB_TSAN := $(BUILD)-tsan

lab-tsan-build:
	@$(MAKE) -s BUILD=$(LAB_TSAN) SANITIZE=thread CC=clang CXX=clang++ libs \
	    $(LAB_TSAN)/lib/libshmemu_cuda.a $(LAB_TSAN)/bin/shmemu-cudafe

check-lab: libs $(CUDA_LIB) $(CUDAFE_BIN) $(EXPLORE_BIN) lab-tsan-build
	@BUILD=$(BUILD) TSAN_BUILD=$(LAB_TSAN) tests/check-lab.sh

# Installed: bin/shmemu-lab beside shmemu-cc, shmemu-nvcc and shmemu-check, and the exercises
# in $(PREFIX)/share/shmemu/exercises, where an installed shmemu-lab looks for them.
.PHONY: install-lab
install: install-lab
install-lab:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/shmemu/exercises
	install -m 755 bin/shmemu-lab $(DESTDIR)$(PREFIX)/bin/
	for d in course/exercises/[0-9]*-*/; do \
	    install -d $(DESTDIR)$(PREFIX)/share/shmemu/exercises/$$(basename $$d) && \
	    install -m 644 $$d* $(DESTDIR)$(PREFIX)/share/shmemu/exercises/$$(basename $$d)/ || exit 1; \
	done
