/*
 * shmemu_cuda/launch.h: kernel launches of .cu programs, the targets of the rewriter
 * (cuda/tools/cudafe.c), which turns
 *
 *     E<<<c1, c2, c3, c4>>>(args)
 * into
 *     ::shmemu_cuda::launch(::shmemu_cuda::launch_config(c1, c2, c3, c4), "E", "file.cu", LINE,
 *                           [=](auto &&...a) { E(static_cast<decltype(a) &&>(a)...); }, args)
 *
 * and registers each non-template kernel N after its definition with
 * register_kernel(N, "N"), so that cudaLaunchKernel, cudaLaunchCooperativeKernel and
 * nvshmemx_collective_launch can launch it from its address and a void *args[] array.
 *
 * Arguments, as CUDA passes them: at the launch, on the host, the arguments are copied
 * (decayed, by their copy or move constructors) into a package with the callable; the
 * emulator copies the package's bytes (emu_launch), and every emulated thread runs on its own
 * bytewise copy of those bytes, so a thread that changes a parameter changes only its own.
 * As in CUDA the device side never runs a copy constructor or destructor of the package; the
 * kernel's own by-value parameters are moved from the thread's copy (a class type with a
 * non-trivial destructor therefore sees that destructor run per thread, which CUDA does not).
 *
 * The package's emu_kernel (name, entry, size) is one object per launch site (the callable's
 * type is the site's own lambda) and host thread, so the emulator's records and reports name
 * the kernel as the launch wrote it.
 */
/* Included alone, this header first brings in the umbrella, which includes the layer's
 * headers (this one among them) in the order they need; then the guard below skips it. */
#include "../cuda_runtime.h"

#ifndef SHMEMU_CUDA_LAUNCH_H
#define SHMEMU_CUDA_LAUNCH_H

#include <cstddef>
#include <cstring>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include "shmemu_cuda/runtime_api.h"
#include "shmemu/kernel.h"

namespace shmemu_cuda {

/* The <<<grid, block, dynamic shared bytes, stream>>> of a launch. */
struct launch_config {
    dim3 grid;
    dim3 block;
    size_t shared_bytes;
    cudaStream_t stream;
    launch_config(dim3 g, dim3 b, size_t smem = 0, cudaStream_t s = 0)
        : grid(g), block(b), shared_bytes(smem), stream(s)
    {
    }
};

namespace detail {

/* Checks a launch as the device would (block and grid sizes, dynamic shared memory against
 * the kernel's attribute, co-residency of a cooperative grid). On failure prints what is
 * wrong, records the error for cudaGetLastError and returns it. `how` names the launch
 * ("<<<>>>", "cudaLaunchKernel", ...). */
cudaError_t check_launch(const char *how, const char *kernel, const char *file, int line,
                         const launch_config &c, bool cooperative);
/* Queues the package (size bytes at package) for kernel k on the config's stream. */
cudaError_t submit(const emu_kernel *k, const launch_config &c, const void *package,
                   size_t size, bool cooperative);

/* Runs in every emulated thread: its own bytewise copy of the launch's package. */
template <class Package> void run_package(const void *bytes)
{
    alignas(Package) unsigned char copy[sizeof(Package)];
    std::memcpy(copy, bytes, sizeof(Package));
    std::launder(reinterpret_cast<Package *>(copy))->run();
}

/* A <<<>>> launch: the site's callable and the decayed arguments. */
template <class F, class... A> struct closure_package {
    F f;
    std::tuple<A...> args;
    void run()
    {
        std::apply([this](A &...a) { f(std::move(a)...); }, args);
    }
};

/* A launch by address: the kernel and its parameters. */
template <class... P> struct function_package {
    void (*fn)(P...);
    std::tuple<P...> args;
    void run()
    {
        std::apply([this](P &...a) { fn(std::move(a)...); }, args);
    }
};

/* A kernel that register_kernel recorded: its address, its emu_kernel, and the launcher
 * that rebuilds its parameters from a void *args[] array. */
struct registered_kernel;
typedef cudaError_t (*args_launcher)(const registered_kernel &r, const launch_config &c,
                                     void **args, bool cooperative);
struct registered_kernel {
    const void *address;
    void (*function)(void); /* the kernel, cast back by the launcher */
    emu_kernel kernel;
    size_t n_params;
    args_launcher launch;
    registered_kernel *next;
};
void register_kernel_record(registered_kernel *r);

template <class... P, size_t... I>
cudaError_t launch_from_args(const registered_kernel &r, const launch_config &c, void **args,
                             bool cooperative, std::index_sequence<I...>)
{
    using package = function_package<P...>;
    package p{reinterpret_cast<void (*)(P...)>(r.function),
              std::tuple<P...>(*static_cast<const P *>(args[I])...)};
    return submit(&r.kernel, c, &p, sizeof p, cooperative);
}

template <class... P>
cudaError_t launch_from_args(const registered_kernel &r, const launch_config &c, void **args,
                             bool cooperative)
{
    return launch_from_args<P...>(r, c, args, cooperative, std::index_sequence_for<P...>{});
}

} // namespace detail

/* The rewriter's stand-ins for arguments a parameter pack cannot carry as written:
 *   {a, b} at position I   kernel_param_t<decltype(E), I>{a, b}: the kernel's I-th parameter
 *                          type (E a function, or a pointer or reference to one);
 *   0 or NULL              literal_zero(): converts to whatever the parameter is, pointers
 *                          included (forwarded as an int, 0 would no longer be a null
 *                          pointer constant). */
namespace detail {
template <class F> struct kernel_params;
template <class R, class... P> struct kernel_params<R(P...)> {
    using type = std::tuple<P...>;
};
} // namespace detail
template <class F, size_t I>
using kernel_param_t = std::tuple_element_t<
    I, typename detail::kernel_params<std::remove_cv_t<
           std::remove_pointer_t<std::remove_cv_t<std::remove_reference_t<F>>>>>::type>;

struct literal_zero {
    template <class T> constexpr operator T() const { return T(); }
};

/* kernel<<<...>>>(args...): see the top of this file. */
template <class F, class... A>
cudaError_t launch(launch_config c, const char *kernel, const char *file, int line, F f,
                   A &&...args)
{
    using package = detail::closure_package<F, std::decay_t<A>...>;
    /* One per launch site and host thread: constant-initialized, so no initialization guard
     * (whose atomics the race checkers would not see) is shared between PEs. */
    static thread_local emu_kernel k = {nullptr, &detail::run_package<package>, sizeof(package)};
    if (k.name == nullptr)
        k.name = kernel;
    cudaError_t e = detail::check_launch("<<<>>>", kernel, file, line, c, false);
    if (e != cudaSuccess)
        return e;
    package p{std::move(f), std::tuple<std::decay_t<A>...>(std::forward<A>(args)...)};
    return detail::submit(&k, c, &p, sizeof p, false);
}

/* Records kernel fn under its name for the launches by address; returns 0 (the rewriter
 * keeps it in a static variable, so it runs before main). */
template <class... P> int register_kernel(void (*fn)(P...), const char *name)
{
    using package = detail::function_package<P...>;
    detail::registered_kernel *r = new detail::registered_kernel{
        reinterpret_cast<const void *>(fn),
        reinterpret_cast<void (*)(void)>(fn),
        {name, &detail::run_package<package>, sizeof(package)},
        sizeof...(P),
        &detail::launch_from_args<P...>,
        nullptr};
    detail::register_kernel_record(r);
    return 0;
}

/* extern __shared__ T name[]: the running block's dynamic shared memory (64-byte aligned). */
template <class T> inline T *dynamic_shared()
{
    return static_cast<T *>(emu_shared_dynamic());
}

/* __shared__ T name[n] (T here is the array type): the running block's copy, in the block's
 * shared memory as the dialect's SHARED_ARRAY (48 KiB of static shared memory per block).
 * Site is the declaration's own lambda type, which makes the declaration's storage key:
 *     float (&tile)[256] = ::shmemu_cuda::static_shared<float[256]>([] {}, "tile"); */
template <class T, class Site> inline T &static_shared(Site, const char *name)
{
    static const char site = 0;
    return *static_cast<T *>(emu_shared_static(&site, sizeof(T), alignof(T), name));
}

/* For an extern __shared__ array declared at namespace scope, where a pointer initialized
 * once cannot follow the running block: every use asks for the running block's memory. */
template <class T> struct dynamic_shared_array {
    operator T *() const { return dynamic_shared<T>(); }
    T &operator[](size_t i) const { return dynamic_shared<T>()[i]; }
};

} // namespace shmemu_cuda

#endif
