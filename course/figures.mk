# course/figures.mk: the figures of the course and the docs, made from real runs
# (scripts/course-figures.sh). Included by the top Makefile.
#   make course-figures        docs/course/figures/*.png (each lesson's figure markers) and
#                              docs/figures/*.png, from event logs of real runs rendered by
#                              bin/shmemu-view and photographed in headless Chromium
#                              (needs scripts/ensure-deps.sh view); writes the image line
#                              under each marker that lacks it
#   make check-course-figures  the same into a temporary folder, every picture checked to be
#                              one (not blank), no file of the tree touched: part of the test
#                              command through check-view
.PHONY: course-figures check-course-figures

course-figures: all $(CUDA_LIB) $(CUDAFE_BIN)
	@SHMEMU_BUILD=$(abspath $(BUILD)) scripts/course-figures.sh

check-course-figures: all $(CUDA_LIB) $(CUDAFE_BIN)
	@d=$$(mktemp -d) && SHMEMU_BUILD=$(abspath $(BUILD)) scripts/course-figures.sh $$d; \
	    rc=$$?; rm -rf $$d; exit $$rc
