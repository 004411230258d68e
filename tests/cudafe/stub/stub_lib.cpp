// tests/cudafe/stub/stub_lib.cpp: the test's libshmemu_cuda.a (see cuda_runtime.h beside it).
#include "cuda_runtime.h"
int shmemu_cudafe_stub_lib() { return 42; }
