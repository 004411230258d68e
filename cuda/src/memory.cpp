/*
 * memory.cpp: host and managed memory, and the stream-ordered memory calls.
 *
 * Every PE's device memory is this process's memory, so pinned, mapped, registered and managed
 * memory are plain allocations and a device pointer is the host pointer.
 *
 * cudaMemcpyAsync, cudaMemsetAsync, cudaFreeAsync and cudaLaunchHostFunc run in stream order
 * as a kernel of one thread named after the call: the emulator's launch gives exactly CUDA's
 * ordering (the host's earlier writes, then the stream's earlier work, happen before it; it
 * happens before the stream's later work and a synchronize), which the race checkers see,
 * and a race report on the copied memory names the call. On a capturing stream they are
 * recorded like any kernel and run at each replay of the graph (emu/src/graph.c), except
 * cudaFreeAsync, refused there (a replay would free again). cudaMemcpy and cudaMemset (macros
 * in shmemu_cuda/runtime_api.h) first wait for the PE's streams: on a GPU a synchronous copy
 * follows the work launched before it. That is every stream of the PE here, where CUDA's
 * legacy default stream would not wait for streams created cudaStreamNonBlocking.
 */
#include <cstdlib>
#include <cstring>

#include "internal.h"

using shmemu_cuda::detail::fail;

namespace {

struct copy_args {
    void *dst;
    const void *src;
    size_t count;
};
void copy_entry(const void *a)
{
    const copy_args *c = static_cast<const copy_args *>(a);
    std::memmove(c->dst, c->src, c->count);
}
const emu_kernel copy_kernel = {"cudaMemcpyAsync", copy_entry, sizeof(copy_args)};

struct set_args {
    void *dst;
    int value;
    size_t count;
};
void set_entry(const void *a)
{
    const set_args *s = static_cast<const set_args *>(a);
    std::memset(s->dst, s->value, s->count);
}
const emu_kernel set_kernel = {"cudaMemsetAsync", set_entry, sizeof(set_args)};

struct host_fn_args {
    cudaHostFn_t fn;
    void *user;
};
void host_fn_entry(const void *a)
{
    const host_fn_args *h = static_cast<const host_fn_args *>(a);
    h->fn(h->user);
}
const emu_kernel host_fn_kernel = {"cudaLaunchHostFunc", host_fn_entry, sizeof(host_fn_args)};

void free_entry(const void *a) { std::free(*static_cast<void *const *>(a)); }
const emu_kernel free_kernel = {"cudaFreeAsync", free_entry, sizeof(void *)};

/* One thread, in stream order. */
cudaError_t on_stream(const emu_kernel &k, cudaStream_t stream, const void *args, size_t size)
{
    return emu_launch(&k, dim3(1), dim3(1), 0, stream, args, size, false);
}

bool valid_kind(cudaMemcpyKind kind)
{
    return kind >= cudaMemcpyHostToHost && kind <= cudaMemcpyDefault;
}

} // namespace

extern "C" {

cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    if (ptr == nullptr)
        return fail(cudaErrorInvalidValue, "cudaHostAlloc", "ptr is NULL");
    if (flags & ~static_cast<unsigned>(cudaHostAllocPortable | cudaHostAllocMapped |
                                       cudaHostAllocWriteCombined))
        return fail(cudaErrorInvalidValue, "cudaHostAlloc", "unknown flags 0x%x", flags);
    *ptr = std::aligned_alloc(256, (size + 255) / 256 * 256 + (size == 0 ? 256 : 0));
    if (*ptr == nullptr)
        return fail(cudaErrorMemoryAllocation, "cudaHostAlloc", "%zu bytes", size);
    return cudaSuccess;
}

cudaError_t cudaMallocHost(void **ptr, size_t size) { return cudaHostAlloc(ptr, size, 0); }

cudaError_t cudaFreeHost(void *ptr)
{
    std::free(ptr);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int)
{
    if (ptr == nullptr || size == 0)
        return fail(cudaErrorInvalidValue, "cudaHostRegister", "ptr is NULL or size is 0");
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
    if (ptr == nullptr)
        return fail(cudaErrorInvalidValue, "cudaHostUnregister", "ptr is NULL");
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    if (pDevice == nullptr || pHost == nullptr || flags != 0)
        return fail(cudaErrorInvalidValue, "cudaHostGetDevicePointer",
                    "pDevice or pHost is NULL, or flags (%u) is not 0", flags);
    *pDevice = pHost;
    return cudaSuccess;
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
        return fail(cudaErrorInvalidValue, "cudaMallocManaged",
                    "flags 0x%x: use cudaMemAttachGlobal or cudaMemAttachHost", flags);
    return cudaMalloc(devPtr, size);
}

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t)
{
    return cudaMalloc(devPtr, size);
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t stream)
{
    if (devPtr == nullptr)
        return cudaSuccess;
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(stream, &st) == cudaSuccess && st != cudaStreamCaptureStatusNone)
        return fail(cudaErrorStreamCaptureUnsupported, "cudaFreeAsync",
                    "freeing in a stream capture (a graph's memory node) is not emulated: a "
                    "replay would free the memory again each time; free after the capture");
    return on_stream(free_kernel, stream, &devPtr, sizeof devPtr);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    if (!valid_kind(kind))
        return fail(cudaErrorInvalidMemcpyDirection, "cudaMemcpyAsync", "kind %d",
                    static_cast<int>(kind));
    if (count == 0)
        return cudaSuccess;
    if (dst == nullptr || src == nullptr)
        return fail(cudaErrorInvalidValue, "cudaMemcpyAsync", "dst or src is NULL");
    copy_args a = {dst, src, count};
    return on_stream(copy_kernel, stream, &a, sizeof a);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    if (count == 0)
        return cudaSuccess;
    if (devPtr == nullptr)
        return fail(cudaErrorInvalidValue, "cudaMemsetAsync", "devPtr is NULL");
    set_args a = {devPtr, value, count};
    return on_stream(set_kernel, stream, &a, sizeof a);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    if (fn == nullptr)
        return fail(cudaErrorInvalidValue, "cudaLaunchHostFunc", "fn is NULL");
    host_fn_args a = {fn, userData};
    return on_stream(host_fn_kernel, stream, &a, sizeof a);
}

cudaError_t shmemu_cuda_memcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind)
{
    if (!valid_kind(kind))
        return fail(cudaErrorInvalidMemcpyDirection, "cudaMemcpy", "kind %d",
                    static_cast<int>(kind));
    cudaError_t e = emu_capture_sync_allowed("cudaMemcpy", true); /* before the wait's own */
    if (e != cudaSuccess)
        return e;
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
        return e;
    return (cudaMemcpy)(dst, src, count, kind);
}

cudaError_t shmemu_cuda_memset(void *devPtr, int value, size_t count)
{
    cudaError_t e = emu_capture_sync_allowed("cudaMemset", true);
    if (e != cudaSuccess)
        return e;
    e = cudaDeviceSynchronize();
    if (e != cudaSuccess)
        return e;
    return (cudaMemset)(devPtr, value, count);
}

} /* extern "C" */
