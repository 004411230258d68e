// tests/cudafe/driver/helper.cpp: plain C++ in a CUDA program (compiled as nvcc does a .cpp).
#include "helper.h"
int helper_value(int i) { return c_value(i) + 1; }
