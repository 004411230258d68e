/* tests/cudafe/driver/helper_c.c: plain C in a CUDA program. */
#include "helper.h"
int c_value(int i) { return 10 * i; }
