/*
 * test_cuda_runtime.cpp: the layer's host runtime: devices (one per PE), their properties and
 * attributes, settable (device_properties, SHMEMU_CUDA_SMS) with launches and occupancy
 * following them; error names and strings; kernel attributes; occupancy and the potential
 * block size; host, mapped and managed memory; __device__ symbols; the driver API's few calls.
 */
#include <cstdlib>
#include <cstring>

#include "cuda_test.h"
#include <cuda.h>

void empty_kernel(int *) {}
REGISTER(empty_kernel);

/* ---- devices -------------------------------------------------------------------------- */

static int devices_body(void *)
{
    int n = -1, d = -1;
    PE_CHECK_EQ_I64(cudaGetDeviceCount(&n), cudaSuccess); /* before init: SHMEMU_NPES, or 1 */
    PE_CHECK_EQ_I64(n, 1);
    nvshmem_init();
    int me = nvshmem_my_pe(), pes = nvshmem_n_pes();
    PE_CHECK_EQ_I64(cudaGetDeviceCount(&n), cudaSuccess);
    PE_CHECK_EQ_I64(n, pes);
    PE_CHECK_EQ_I64(cudaGetDevice(&d), cudaSuccess);
    PE_CHECK_EQ_I64(d, 0);
    PE_CHECK_EQ_I64(cudaSetDevice(me % n), cudaSuccess);
    PE_CHECK_EQ_I64(cudaGetDevice(&d), cudaSuccess);
    PE_CHECK_EQ_I64(d, me);
    PE_CHECK_EQ_I64(cudaSetDevice(n), cudaErrorInvalidDevice);
    PE_CHECK_EQ_I64(cudaSetDevice(-1), cudaErrorInvalidDevice);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaErrorInvalidDevice);
    cudaDeviceProp p;
    PE_CHECK_EQ_I64(cudaGetDeviceProperties(&p, me), cudaSuccess);
    PE_CHECK_EQ_I64(p.warpSize, 32);
    PE_CHECK_EQ_I64(p.maxThreadsPerBlock, 1024);
    PE_CHECK_EQ_I64(p.multiProcessorCount, 6); /* SHMEMU_CUDA_SMS, set by the test */
    PE_CHECK_EQ_I64(p.sharedMemPerBlock, 48 * 1024);
    PE_CHECK_EQ_I64(p.sharedMemPerBlockOptin, 227 * 1024);
    PE_CHECK_EQ_I64(p.major, 9);
    PE_CHECK_EQ_I64(p.cooperativeLaunch, 1);
    PE_CHECK_EQ_I64(p.pciBusID, me);
    PE_CHECK(std::strstr(p.name, "shmemu") != nullptr);
    PE_CHECK_EQ_I64(cudaGetDeviceProperties(&p, n), cudaErrorInvalidDevice);
    int v = 0;
    PE_CHECK_EQ_I64(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0), cudaSuccess);
    PE_CHECK_EQ_I64(v, 6);
    PE_CHECK_EQ_I64(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0),
                    cudaSuccess);
    PE_CHECK_EQ_I64(v, 227 * 1024);
    PE_CHECK_EQ_I64(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
    PE_CHECK_EQ_I64(v, 9);
    PE_CHECK_EQ_I64(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0), cudaSuccess);
    PE_CHECK_EQ_I64(v, 32);
    PE_CHECK_EQ_I64(cudaDeviceGetAttribute(&v, static_cast<cudaDeviceAttr>(21), 0),
                    cudaErrorInvalidValue);
    PE_CHECK_EQ_I64(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, n), cudaErrorInvalidDevice);
    int access = -1;
    PE_CHECK_EQ_I64(cudaDeviceCanAccessPeer(&access, 0, n - 1), cudaSuccess);
    PE_CHECK_EQ_I64(access, n > 1);
    cudaGetLastError();

    /* Changed properties are what launches and queries see. */
    ::shmemu_cuda::device_properties().maxThreadsPerBlock = 256;
    PE_CHECK_EQ_I64(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 0), cudaSuccess);
    PE_CHECK_EQ_I64(v, 256);
    int *none = nullptr;
    PE_CHECK_EQ_I64(LAUNCH_K(empty_kernel, (1, 512), none), cudaErrorInvalidConfiguration);
    PE_CHECK_EQ_I64(LAUNCH_K(empty_kernel, (1, 256), none), cudaSuccess);
    int blocks = -1;
    PE_CHECK_EQ_I64(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, empty_kernel, 512, 0),
                    cudaSuccess);
    PE_CHECK_EQ_I64(blocks, 0);
    ::shmemu_cuda::device_properties().maxThreadsPerBlock = 1024;
    cudaGetLastError();

    int version = 0;
    PE_CHECK_EQ_I64(cudaRuntimeGetVersion(&version), cudaSuccess);
    PE_CHECK_EQ_I64(version, CUDART_VERSION);
    size_t free_bytes = 0, total = 0;
    PE_CHECK_EQ_I64(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
    PE_CHECK(total > 0 && free_bytes <= total);
    cudaDeviceSynchronize();
    nvshmem_finalize();
    return 0;
}

static void test_devices(void **)
{
    setenv("SHMEMU_CUDA_SMS", "6", 1);
    run_pes(3, devices_body, nullptr);
    unsetenv("SHMEMU_CUDA_SMS");
}

/* ---- errors --------------------------------------------------------------------------- */

static void test_error_strings(void **)
{
    assert_string_equal(cudaGetErrorString(cudaSuccess), "no error");
    assert_string_equal(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument");
    assert_string_equal(cudaGetErrorString(cudaErrorInvalidConfiguration),
                        "invalid configuration argument");
    assert_string_equal(cudaGetErrorString(cudaErrorInvalidDeviceFunction),
                        "invalid device function");
    assert_string_equal(cudaGetErrorString(cudaErrorCooperativeLaunchTooLarge),
                        "too many blocks in cooperative launch");
    assert_string_equal(cudaGetErrorString(static_cast<cudaError_t>(998)), "unknown error");
    assert_string_equal(cudaGetErrorName(cudaSuccess), "cudaSuccess");
    assert_string_equal(cudaGetErrorName(cudaErrorInvalidDevice), "cudaErrorInvalidDevice");
    assert_string_equal(cudaGetErrorName(cudaErrorNotReady), "cudaErrorNotReady");
    assert_string_equal(cudaGetErrorName(static_cast<cudaError_t>(998)), "cudaErrorUnknown");
    assert_int_equal(cudaErrorInvalidDeviceFunction, 98);
    assert_int_equal(cudaErrorLaunchOutOfResources, 701);
    const char *s = nullptr;
    assert_int_equal(cuGetErrorName(CUDA_ERROR_INVALID_DEVICE, &s), CUDA_SUCCESS);
    assert_string_equal(s, "CUDA_ERROR_INVALID_DEVICE");
    assert_int_equal(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &s), CUDA_SUCCESS);
    assert_string_equal(s, "invalid argument");
}

/* ---- occupancy and kernel attributes ----------------------------------------------------- */

static int occupancy_body(void *)
{
    nvshmem_init();
    int b = -1;
    const void *k = (const void *)empty_kernel;
    const struct {
        int threads;
        size_t smem;
        int blocks;
    } cases[] = {
        {1024, 0, 2}, {256, 0, 8}, {32, 0, 32}, {33, 0, 32}, {1000, 0, 2}, {128, 40000, 5},
        {64, 48 * 1024, 4}, {64, 48 * 1024 + 1, 0}, {1025, 0, 0}, {700, 0, 2},
    };
    for (const auto &c : cases) {
        PE_CHECK_EQ_I64(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, k, c.threads, c.smem),
                        cudaSuccess);
        PE_CHECK_MSG(b == c.blocks, "%d threads, %zu bytes: %d blocks per SM, expected %d",
                     c.threads, c.smem, b, c.blocks);
    }
    PE_CHECK_EQ_I64(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, k, 0, 0),
                    cudaErrorInvalidValue);
    cudaFuncAttributes fa;
    PE_CHECK_EQ_I64(cudaFuncGetAttributes(&fa, empty_kernel), cudaSuccess);
    PE_CHECK_EQ_I64(fa.maxDynamicSharedSizeBytes, 48 * 1024);
    PE_CHECK_EQ_I64(fa.maxThreadsPerBlock, 1024);
    PE_CHECK_EQ_I64(fa.preferredShmemCarveout, -1);
    PE_CHECK_EQ_I64(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         50),
                    cudaSuccess);
    PE_CHECK_EQ_I64(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         101),
                    cudaErrorInvalidValue);
    PE_CHECK_EQ_I64(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeRequiredClusterWidth, 2),
                    cudaErrorNotSupported);
    PE_CHECK_EQ_I64(cudaFuncSetAttribute(empty_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         100 * 1024),
                    cudaSuccess);
    PE_CHECK_EQ_I64(cudaFuncGetAttributes(&fa, empty_kernel), cudaSuccess);
    PE_CHECK_EQ_I64(fa.preferredShmemCarveout, 50);
    PE_CHECK_EQ_I64(fa.maxDynamicSharedSizeBytes, 100 * 1024);
    PE_CHECK_EQ_I64(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, k, 64, 100 * 1024),
                    cudaSuccess);
    PE_CHECK_EQ_I64(b, 2); /* 228 KiB per SM, 101 KiB per block */
    PE_CHECK_EQ_I64(cudaFuncSetCacheConfig(empty_kernel, cudaFuncCachePreferShared), cudaSuccess);

    int grid = -1, block = -1;
    PE_CHECK_EQ_I64(cudaOccupancyMaxPotentialBlockSize(&grid, &block, empty_kernel), cudaSuccess);
    PE_CHECK_EQ_I64(block, 1024);
    PE_CHECK_EQ_I64(grid, 2 * 16);
    /* under 100 threads, 64 fill an SM (32 blocks of 64) where 96 leave 32 threads idle */
    PE_CHECK_EQ_I64(cudaOccupancyMaxPotentialBlockSize(&grid, &block, empty_kernel, 0, 100),
                    cudaSuccess);
    PE_CHECK_EQ_I64(block, 64);
    PE_CHECK_EQ_I64(grid, 32 * 16);
    cudaGetLastError();
    nvshmem_finalize();
    return 0;
}

static void test_occupancy(void **) { run_pes(1, occupancy_body, nullptr); }

/* ---- memory and symbols ---------------------------------------------------------------- */

__device__ int device_table[8]; /* a __device__ variable: a host variable here */

void table_kernel(int *out)
{
    out[threadIdx.x] = device_table[threadIdx.x] * 2;
}

static int memory_body(void *)
{
    nvshmem_init();
    float *h = nullptr;
    PE_CHECK_EQ_I64(cudaMallocHost(&h, 100 * sizeof(float)), cudaSuccess);
    PE_CHECK_EQ_U64(reinterpret_cast<uintptr_t>(h) % 256, 0);
    h[99] = 1.0f;
    void *mapped = nullptr, *dptr = nullptr;
    PE_CHECK_EQ_I64(cudaHostAlloc(&mapped, 64, cudaHostAllocMapped | cudaHostAllocPortable),
                    cudaSuccess);
    PE_CHECK_EQ_I64(cudaHostGetDevicePointer(&dptr, mapped, 0), cudaSuccess);
    PE_CHECK_EQ_PTR(dptr, mapped);
    PE_CHECK_EQ_I64(cudaHostAlloc(&dptr, 64, 0x100), cudaErrorInvalidValue);
    PE_CHECK_EQ_I64(cudaHostRegister(h, 100 * sizeof(float), cudaHostRegisterDefault),
                    cudaSuccess);
    PE_CHECK_EQ_I64(cudaHostUnregister(h), cudaSuccess);
    int *managed = nullptr;
    PE_CHECK_EQ_I64(cudaMallocManaged(&managed, 8 * sizeof(int)), cudaSuccess);
    PE_CHECK_EQ_I64(managed[7], 0);
    cudaFreeHost(h);
    cudaFreeHost(mapped);

    int table[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    if (nvshmem_my_pe() == 0) { /* __device__ variables are one per process for now */
        PE_CHECK_EQ_I64(cudaMemcpyToSymbol(device_table, table, 4 * sizeof(int)), cudaSuccess);
        PE_CHECK_EQ_I64(cudaMemcpyToSymbol(device_table, table + 4, 4 * sizeof(int),
                                           4 * sizeof(int)),
                        cudaSuccess);
        PE_CHECK(LAUNCH_K(table_kernel, (1, 8), managed) == cudaSuccess);
        int back[8] = {0};
        PE_CHECK_EQ_I64(cudaMemcpyFromSymbol(back, device_table, sizeof back), cudaSuccess);
        for (int i = 0; i < 8; i++) {
            PE_CHECK_EQ_I64(managed[i], 2 * (i + 1));
            PE_CHECK_EQ_I64(back[i], i + 1);
        }
        void *addr = nullptr;
        size_t size = 0;
        PE_CHECK_EQ_I64(cudaGetSymbolAddress(&addr, device_table), cudaSuccess);
        PE_CHECK_EQ_PTR(addr, device_table);
        PE_CHECK_EQ_I64(cudaGetSymbolSize(&size, device_table), cudaSuccess);
        PE_CHECK_EQ_I64(size, sizeof device_table);
    }
    cudaFree(managed);
    int count = 0;
    CUdevice dev = -1;
    PE_CHECK_EQ_I64(cuInit(0), CUDA_SUCCESS);
    PE_CHECK_EQ_I64(cuDeviceGetCount(&count), CUDA_SUCCESS);
    PE_CHECK_EQ_I64(count, nvshmem_n_pes());
    PE_CHECK_EQ_I64(cuDeviceGet(&dev, count - 1), CUDA_SUCCESS);
    PE_CHECK_EQ_I64(dev, count - 1);
    PE_CHECK_EQ_I64(cuDeviceGet(&dev, count), CUDA_ERROR_INVALID_DEVICE);
    cudaDeviceSynchronize();
    nvshmem_finalize();
    return 0;
}

static void test_memory_and_symbols(void **) { run_pes(2, memory_body, nullptr); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_devices),
        cmocka_unit_test(test_error_strings),
        cmocka_unit_test(test_occupancy),
        cmocka_unit_test(test_memory_and_symbols),
    };
    return cmocka_run_group_tests(tests, nullptr, nullptr);
}
