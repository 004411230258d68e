# course/course.mk: the course (docs/course/, course/lessons/). Included by the top Makefile.
#   make check-course   tests/check-course.sh: every lesson's correct program passes its
#                       checks and every broken twin is caught with the report its lesson
#                       quotes. Builds what it needs in $(BUILD) (the libraries, the CUDA
#                       layer, shmemu-md, shmemu-explore) and in $(BUILD)-tsan (the runtime
#                       and CUDA layer with ThreadSanitizer, by clang).
.PHONY: check-course course-tsan-build

COURSE_TSAN := $(BUILD)-tsan

course-tsan-build:
	@$(MAKE) -s BUILD=$(COURSE_TSAN) SANITIZE=thread CC=clang CXX=clang++ libs \
	    $(COURSE_TSAN)/lib/libshmemu_cuda.a $(COURSE_TSAN)/bin/shmemu-cudafe

check-course: libs $(CUDA_LIB) $(CUDAFE_BIN) $(MD_BIN) $(EXPLORE_BIN) course-tsan-build
	@BUILD=$(BUILD) TSAN_BUILD=$(COURSE_TSAN) tests/check-course.sh
