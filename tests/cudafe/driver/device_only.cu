// shmemu-nvcc refuses a device-only NVSHMEM call in host code, as nvcc does (check-cudafe.sh).
#include <cstdint>
extern "C" uint64_t nvshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);
__global__ void kern(uint64_t *sig) { nvshmem_signal_wait_until(sig, 0, 1); }
int main()
{
    uint64_t sig = 1;
    kern<<<1, 1>>>(&sig);
    return (int)nvshmem_signal_wait_until(&sig, 0, 1);
}
