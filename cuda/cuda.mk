# cuda/cuda.mk: the CUDA compatibility layer of shmemu-nvcc (cuda/README.md), included by the
# Makefile. C++ headers in cuda/include (what a .cu file includes); their implementation in
# cuda/src, built into $(BUILD)/lib/libshmemu_cuda.a with `make libs`; the layer's cmocka
# suites cuda/tests/test_cuda_*.cpp, run by `make check-cuda` alone and by `make test` (and
# the valgrind and sanitizer runs) with the others.
#
# The C++ compiler follows CC, so that sanitizer builds (CC=clang) use one runtime:
# clang++ beside clang, else $(CXX).

CUDA_CXX      ?= $(if $(findstring clang,$(CC)),$(patsubst clang%,clang++%,$(CC)),$(CXX))
CUDA_WARN     := -Wall -Wextra -Wshadow -Werror
CUDA_CXXFLAGS := -std=c++17 -D_GNU_SOURCE $(OPT) $(CUDA_WARN) -fPIC -ffp-contract=off -pthread \
                 $(if $(SANITIZE),-fsanitize=$(SANITIZE) -fno-omit-frame-pointer)
CUDA_CPPFLAGS := -Icuda/include -Ipgas/include -Iemu/include

CUDA_SRC      := $(wildcard cuda/src/*.cpp)
CUDA_OBJ      := $(CUDA_SRC:%.cpp=$(BUILD)/%.o)
CUDA_LIB      := $(BUILD)/lib/libshmemu_cuda.a
CUDA_TEST_SRC := $(wildcard cuda/tests/test_cuda_*.cpp)
CUDA_TEST_OBJ := $(CUDA_TEST_SRC:%.cpp=$(BUILD)/%.o)
CUDA_TEST_BIN := $(CUDA_TEST_SRC:cuda/tests/%.cpp=$(BUILD)/tests/%)

# `make test` and the valgrind runs take the suites from TEST_BIN; their prerequisites were
# read before this file, so the suites are named here too.
TEST_BIN += $(CUDA_TEST_BIN)
libs: $(CUDA_LIB)
test check-helgrind check-drd: $(CUDA_TEST_BIN)

.PHONY: check-cuda
check-cuda: libs $(CUDA_TEST_BIN)
	@scripts/run-suites.sh "" $(CUDA_TEST_BIN)

$(BUILD)/cuda/src/%.o: cuda/src/%.cpp
	@mkdir -p $(dir $@)
	$(CUDA_CXX) $(CUDA_CPPFLAGS) $(CUDA_CXXFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/cuda/tests/%.o: cuda/tests/%.cpp
	@mkdir -p $(dir $@)
	$(CUDA_CXX) $(CUDA_CPPFLAGS) -Itests $(CUDA_CXXFLAGS) -MMD -MP -c $< -o $@

$(CUDA_LIB): $(CUDA_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/tests/test_cuda_%: $(BUILD)/cuda/tests/test_cuda_%.o $(TEST_HOBJ) $(CUDA_LIB) $(LIB_A)
	@mkdir -p $(dir $@)
	$(CUDA_CXX) $(LDFLAGS) -o $@ $< $(TEST_HOBJ) $(CUDA_LIB) $(LIB_A) -lcmocka $(LDLIBS)

-include $(CUDA_OBJ:.o=.d) $(CUDA_TEST_OBJ:.o=.d)

# `make install`: the headers under include/shmemu/cuda (shmemu-nvcc puts that folder before
# include/shmemu, so that its nvshmem.h front finds pgas's nvshmem.h behind it) and the
# library beside libshmemu.
.PHONY: install-cuda
install: install-cuda
install-cuda: $(CUDA_LIB)
	install -d $(DESTDIR)$(PREFIX)/include/shmemu/cuda/shmemu_cuda \
	           $(DESTDIR)$(PREFIX)/include/shmemu/cuda/cuda/std \
	           $(DESTDIR)$(PREFIX)/include/shmemu/cuda/cooperative_groups $(DESTDIR)$(PREFIX)/lib
	install -m 644 cuda/include/*.h $(DESTDIR)$(PREFIX)/include/shmemu/cuda/
	install -m 644 cuda/include/shmemu_cuda/*.h $(DESTDIR)$(PREFIX)/include/shmemu/cuda/shmemu_cuda/
	install -m 644 cuda/include/cuda/atomic $(DESTDIR)$(PREFIX)/include/shmemu/cuda/cuda/
	install -m 644 cuda/include/cuda/std/atomic $(DESTDIR)$(PREFIX)/include/shmemu/cuda/cuda/std/
	install -m 644 cuda/include/cooperative_groups/*.h \
	           $(DESTDIR)$(PREFIX)/include/shmemu/cuda/cooperative_groups/
	install -m 644 $(CUDA_LIB) $(DESTDIR)$(PREFIX)/lib/
