/*
 * test_cuda_api.cpp: the items of the CUDA and NVSHMEM API that the other suites leave out:
 *
 *   - every cudaMemcpyKind, synchronous and on a stream (host to host, host to device,
 *     device to host, device to device, cudaMemcpyDefault), and a bad kind;
 *   - stream and event flags: cudaStreamCreateWithFlags (a bad flag is cudaErrorInvalidValue),
 *     cudaEventCreateWithFlags (cudaEventDisableTiming makes cudaEventElapsedTime fail with
 *     cudaErrorInvalidResourceHandle, as does an event never recorded; a bad flag is
 *     cudaErrorInvalidValue), the priority range;
 *   - printf in a kernel reaches stdout;
 *   - strict mode for device-only NVSHMEM calls is on by default in a .cu program (this file
 *     includes cuda_runtime.h as one does): a host thread's nvshmem_signal_fetch ends the
 *     program naming the call; the same call in a kernel is allowed;
 *   - CUDA's special math functions (cuda/src/math.cpp) and the norms of shmemu_cuda/math.h,
 *     at known values and at the edges of their domains.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

#include "cuda_test.h"

/* ---- every cudaMemcpyKind -------------------------------------------------------------- */

void add_kernel(int *p, int n, int add)
{
    int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        p[i] += add;
}
REGISTER(add_kernel);

static int memcpy_body(void *)
{
    nvshmem_init();
    const int n = 64;
    const size_t bytes = n * sizeof(int);
    int *h1 = nullptr, *h2 = static_cast<int *>(std::malloc(bytes));
    int *d1 = nullptr, *d2 = nullptr;
    PE_CHECK_EQ_I64(cudaMallocHost(&h1, bytes), cudaSuccess);
    cudaMalloc(&d1, bytes);
    cudaMalloc(&d2, bytes);
    for (int i = 0; i < n; i++)
        h1[i] = 3 * i;
    /* h1 -> h2 -> d1 (+1 in a kernel) -> d2 -> h1, then Default both ways */
    PE_CHECK_EQ_I64(cudaMemcpy(h2, h1, bytes, cudaMemcpyHostToHost), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpy(d1, h2, bytes, cudaMemcpyHostToDevice), cudaSuccess);
    PE_CHECK(LAUNCH_K(add_kernel, (2, 32), d1, n, 1) == cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpy(d2, d1, bytes, cudaMemcpyDeviceToDevice), cudaSuccess);
    std::memset(h1, 0, bytes);
    PE_CHECK_EQ_I64(cudaMemcpy(h1, d2, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < n; i++)
        PE_CHECK_EQ_I64(h1[i], 3 * i + 1);
    PE_CHECK_EQ_I64(cudaMemcpy(d1, h1, bytes, cudaMemcpyDefault), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpy(h2, d1, bytes, cudaMemcpyDefault), cudaSuccess);
    PE_CHECK_EQ_I64(h2[n - 1], 3 * (n - 1) + 1);
    /* the same kinds on a stream, in stream order behind a kernel */
    cudaStream_t s;
    PE_CHECK_EQ_I64(cudaStreamCreate(&s), cudaSuccess);
    PE_CHECK(LAUNCH_K(add_kernel, (2, 32, 0, s), d1, n, 10) == cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpyAsync(d2, d1, bytes, cudaMemcpyDeviceToDevice, s), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpyAsync(h1, d2, bytes, cudaMemcpyDeviceToHost, s), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpyAsync(h2, h1, bytes, cudaMemcpyHostToHost, s), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemsetAsync(d1, 0, bytes, s), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpyAsync(d1, h2, bytes / 2, cudaMemcpyHostToDevice, s), cudaSuccess);
    PE_CHECK_EQ_I64(cudaMemcpyAsync(h1, d1, bytes, cudaMemcpyDefault, s), cudaSuccess);
    PE_CHECK_EQ_I64(cudaStreamSynchronize(s), cudaSuccess);
    for (int i = 0; i < n; i++) {
        PE_CHECK_EQ_I64(h2[i], 3 * i + 11);
        PE_CHECK_EQ_I64(h1[i], i < n / 2 ? 3 * i + 11 : 0);
    }
    PE_CHECK_EQ_I64(cudaMemcpy(h1, d1, 4, static_cast<cudaMemcpyKind>(5)),
                    cudaErrorInvalidMemcpyDirection);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaErrorInvalidMemcpyDirection);
    cudaStreamDestroy(s);
    cudaFree(d2);
    cudaFree(d1);
    cudaFreeHost(h1);
    std::free(h2);
    nvshmem_finalize();
    return 0;
}

static void test_memcpy_kinds(void **) { run_pes(2, memcpy_body, nullptr); }

/* ---- stream and event flags ----------------------------------------------------------- */

static int flags_body(void *)
{
    nvshmem_init();
    int least = 1, greatest = 1;
    PE_CHECK_EQ_I64(cudaDeviceGetStreamPriorityRange(&least, &greatest), cudaSuccess);
    PE_CHECK_EQ_I64(least, 0);
    PE_CHECK(greatest < 0);
    cudaStream_t s = nullptr, p = nullptr, bad = nullptr;
    PE_CHECK_EQ_I64(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    PE_CHECK_EQ_I64(cudaStreamCreateWithPriority(&p, cudaStreamDefault, greatest - 10),
                    cudaSuccess); /* clamped, as CUDA */
    PE_CHECK_EQ_I64(cudaStreamCreateWithFlags(&bad, 2), cudaErrorInvalidValue);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaErrorInvalidValue);
    PE_CHECK(bad == nullptr);

    cudaEvent_t a, b, untimed, never;
    PE_CHECK_EQ_I64(cudaEventCreateWithFlags(&a, cudaEventDefault), cudaSuccess);
    PE_CHECK_EQ_I64(cudaEventCreateWithFlags(&b, cudaEventBlockingSync), cudaSuccess);
    PE_CHECK_EQ_I64(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming), cudaSuccess);
    PE_CHECK_EQ_I64(cudaEventCreate(&never), cudaSuccess);
    cudaEvent_t e_bad;
    PE_CHECK_EQ_I64(cudaEventCreateWithFlags(&e_bad, 8), cudaErrorInvalidValue);
    cudaGetLastError();
    int *d = nullptr;
    cudaMalloc(&d, 64 * sizeof(int));
    PE_CHECK_EQ_I64(cudaEventRecord(a, s), cudaSuccess);
    PE_CHECK(LAUNCH_K(add_kernel, (1, 64, 0, s), d, 64, 1) == cudaSuccess);
    PE_CHECK_EQ_I64(cudaEventRecord(b, s), cudaSuccess);
    PE_CHECK_EQ_I64(cudaEventRecord(untimed, s), cudaSuccess);
    PE_CHECK_EQ_I64(cudaEventSynchronize(untimed), cudaSuccess);
    float ms = -1.0f;
    PE_CHECK_EQ_I64(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    PE_CHECK(ms >= 0.0f);
    PE_CHECK_EQ_I64(cudaEventElapsedTime(&ms, a, untimed), cudaErrorInvalidResourceHandle);
    PE_CHECK_EQ_I64(cudaEventElapsedTime(&ms, never, b), cudaErrorInvalidResourceHandle);
    PE_CHECK_EQ_I64(cudaEventElapsedTime(nullptr, a, b), cudaErrorInvalidValue);
    PE_CHECK_EQ_I64(cudaGetLastError(), cudaErrorInvalidValue);
    cudaEvent_t evs[] = {a, b, untimed, never};
    for (cudaEvent_t e : evs)
        PE_CHECK_EQ_I64(cudaEventDestroy(e), cudaSuccess);
    cudaFree(d);
    cudaStreamDestroy(p);
    cudaStreamDestroy(s);
    nvshmem_finalize();
    return 0;
}

static void test_stream_and_event_flags(void **) { run_pes(2, flags_body, nullptr); }

/* ---- printf in a kernel ----------------------------------------------------------------- */

void printf_kernel(int pe)
{
    printf("kernel says: PE %d block %u thread %u\n", pe, blockIdx.x, threadIdx.x);
}
REGISTER(printf_kernel);

static int printf_body(void *)
{
    nvshmem_init();
    PE_CHECK(LAUNCH_K(printf_kernel, (2, 3), nvshmem_my_pe()) == cudaSuccess);
    PE_CHECK_EQ_I64(cudaDeviceSynchronize(), cudaSuccess);
    nvshmem_finalize();
    return 0;
}

static void test_kernel_printf(void **)
{
    char path[] = "/tmp/shmemu-printf-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    std::fflush(stdout);
    int saved = dup(1);
    assert_true(dup2(fd, 1) == 1);
    run_pes(2, printf_body, nullptr);
    std::fflush(stdout);
    dup2(saved, 1);
    close(saved);
    static char text[8192];
    ssize_t got = pread(fd, text, sizeof text - 1, 0);
    close(fd);
    unlink(path);
    assert_true(got > 0);
    text[got] = '\0';
    int lines = 0;
    for (const char *c = text; (c = std::strstr(c, "kernel says: ")) != nullptr; c++)
        lines++;
    assert_int_equal(lines, 2 * 2 * 3); /* 2 PEs x 2 blocks x 3 threads */
    assert_contains(text, "kernel says: PE 1 block 1 thread 2\n");
    assert_contains(text, "kernel says: PE 0 block 0 thread 0\n");
}

/* ---- strict mode is on in a .cu program ------------------------------------------------- */

void fetch_kernel(uint64_t *sig, uint64_t *out)
{
    if (threadIdx.x == 0)
        *out = nvshmem_signal_fetch(sig) + 1;
}
REGISTER(fetch_kernel);

static int fetch_in_kernel_body(void *)
{
    nvshmem_init();
    uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
    uint64_t *out = nullptr;
    cudaMalloc(&out, sizeof *out);
    *sig = 41;
    PE_CHECK(LAUNCH_K(fetch_kernel, (1, 2), sig, out) == cudaSuccess);
    cudaDeviceSynchronize();
    PE_CHECK_EQ_U64(*out, 42);
    cudaFree(out);
    nvshmem_free(sig);
    nvshmem_finalize();
    return 0;
}

static void fetch_on_host(void *)
{
    nvshmem_init();
    uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
    (void)nvshmem_signal_fetch(sig);
}

static void test_strict_device_default(void **)
{
    unsetenv("SHMEMU_STRICT_DEVICE");
    assert_int_equal(shmemu_strict_device_default(-1), 1);
    run_pes(2, fetch_in_kernel_body, nullptr);
    expect_child_failure(fetch_on_host, nullptr, 1,
                         "nvshmem_signal_fetch: a device-only NVSHMEM call (NVSHMEM declares it "
                         "__device__");
}

/* ---- special math functions ------------------------------------------------------------- */

static void near(double got, double want, double rel, const char *what)
{
    if (!(std::fabs(got - want) <= rel * std::fabs(want))) {
        std::printf("%s: %.17g, want %.17g\n", what, got, want);
        fail();
    }
}

static void test_special_math(void **)
{
    near(erfinv(0.5), 0.47693627620446987, 1e-15, "erfinv(0.5)");
    near(erfinv(-0.999), -2.3267537655135246, 1e-14, "erfinv(-0.999)");
    near(erfinvf(0.5f), 0.47693628f, 1e-6, "erfinvf(0.5)");
    for (double y : {1e-300, 1e-100, 1e-10, 0.01, 0.3, 1.0, 1.7, 1.99999}) {
        double x = erfcinv(y);
        near(std::erfc(x), y, 1e-13, "erfc(erfcinv(y))");
    }
    near(erfcinvf(0.25f), 0.81341985f, 1e-6, "erfcinvf(0.25)");
    near(erfcx(1.0), 0.42758357615580705, 1e-15, "erfcx(1)");
    near(erfcx(0.0), 1.0, 0.0, "erfcx(0)");
    near(erfcx(30.0), 0.018795888861416751, 1e-14, "erfcx(30)");
    near(erfcx(3.0), 0.17900115118138998, 1e-14, "erfcx(3)");
    near(erfcx(-1.0), 5.0089800807622611, 1e-14, "erfcx(-1)");
    near(erfcxf(2.5f), 0.21080636f, 1e-6, "erfcxf(2.5)");
    near(normcdf(1.96), 0.97500210485177952, 1e-15, "normcdf(1.96)");
    near(normcdf(-10.0), 7.619853024160526e-24, 1e-13, "normcdf(-10)");
    near(normcdfinv(0.975), 1.959963984540054, 1e-14, "normcdfinv(0.975)");
    near(normcdfinv(1e-20), -9.2623400897981532, 1e-13, "normcdfinv(1e-20)");
    near(normcdff(0.0f), 0.5f, 0.0, "normcdff(0)");
    near(normcdfinvf(0.5f), 0.0f, 0.0, "normcdfinvf(0.5)");
    near(cyl_bessel_i0(1.0), 1.2660658777520082, 1e-15, "i0(1)");
    near(cyl_bessel_i0(-20.0), 43558282.559553534, 1e-14, "i0(-20)");
    near(cyl_bessel_i1(1.0), 0.56515910399248503, 1e-15, "i1(1)");
    near(cyl_bessel_i1(-2.0), -1.5906368546373291, 1e-15, "i1(-2)");
    near(cyl_bessel_i0(100.0), 1.0737517071310738e42, 1e-13, "i0(100)");
    near(cyl_bessel_i0f(0.5f), 1.0634834f, 1e-6, "i0f(0.5)");
    near(cyl_bessel_i1f(0.5f), 0.25789431f, 1e-6, "i1f(0.5)");
    /* domains */
    assert_true(std::isinf(erfinv(1.0)) && erfinv(1.0) > 0);
    assert_true(std::isinf(erfinv(-1.0)) && erfinv(-1.0) < 0);
    assert_true(std::isnan(erfinv(1.5)) && std::isnan(erfinvf(-2.0f)));
    assert_true(std::isinf(erfcinv(0.0)) && erfcinv(0.0) > 0);
    assert_true(std::isinf(erfcinv(2.0)) && erfcinv(2.0) < 0);
    assert_true(std::isnan(erfcinv(-0.1)) && std::isnan(erfcinv(2.5)));
    assert_true(std::isinf(normcdfinv(0.0)) && normcdfinv(0.0) < 0);
    assert_true(std::isinf(normcdfinv(1.0)) && normcdfinv(1.0) > 0);
    assert_true(std::isinf(erfcx(-30.0)));
    assert_true(std::isinf(cyl_bessel_i0(800.0)));
    assert_true(std::isinf(cyl_bessel_i1(-800.0)) && cyl_bessel_i1(-800.0) < 0);
    assert_true(std::isnan(cyl_bessel_i0(NAN)));
    /* norms */
    const double v[] = {2.0, 3.0, 6.0};
    const float vf[] = {3.0f, 4.0f};
    near(norm(3, v), 7.0, 0.0, "norm");
    near(rnorm(3, v), 1.0 / 7.0, 1e-16, "rnorm");
    near(normf(2, vf), 5.0f, 0.0, "normf");
    near(rnormf(2, vf), 0.2f, 1e-7, "rnormf");
    const double huge[] = {1e300, 1e300};
    near(norm(2, huge), 1.4142135623730951e300, 1e-15, "norm without overflow");
    assert_true(norm(0, v) == 0.0);
    near(norm4d(1.0, 2.0, 2.0, 4.0), 5.0, 1e-16, "norm4d");
    near(rnorm4df(1.0f, 2.0f, 2.0f, 4.0f), 0.2f, 1e-7, "rnorm4df");
    near(norm4df(1.0f, 2.0f, 2.0f, 4.0f), 5.0f, 0.0, "norm4df");
    near(rnorm4d(0.0, 0.0, 3.0, 4.0), 0.2, 1e-16, "rnorm4d");
    near(rhypot(3.0, 4.0), 0.2, 1e-16, "rhypot");
    near(rhypotf(3.0f, 4.0f), 0.2f, 1e-7, "rhypotf");
}

int main()
{
    const CMUnitTest tests[] = {
        cmocka_unit_test(test_memcpy_kinds),
        cmocka_unit_test(test_stream_and_event_flags),
        cmocka_unit_test(test_kernel_printf),
        cmocka_unit_test(test_strict_device_default),
        cmocka_unit_test(test_special_math),
    };
    return cmocka_run_group_tests_name("cuda_api", tests, nullptr, nullptr);
}
