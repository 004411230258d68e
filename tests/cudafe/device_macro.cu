// A device-only NVSHMEM call that a macro of the user's writes (tests/check-cudafe.sh):
// fine in device code, refused in host code at the line where the macro is used.
extern "C" void nvshmem_int_wait_until(int *ivar, int cmp, int cmp_value);
#define WAIT_FOR(p) nvshmem_int_wait_until((p), 0, 1)
__global__ void kern(int *p) { WAIT_FOR(p); }
__device__ void dev(int *p) { WAIT_FOR(p); }
int main()
{
    int x = 1;
#ifndef NO_HOST_CALL
    WAIT_FOR(&x);
#endif
    kern<<<1, 1>>>(&x);
    return 0;
}
