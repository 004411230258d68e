/*
 * shmemu_cuda/cg.h: cooperative_groups on the emulator.
 *
 * thread_block is the block (__syncthreads); grid_group is the grid of a cooperative launch
 * (cudaLaunchCooperativeKernel, nvshmemx_collective_launch: the emulator's grid barrier,
 * which fails with a message in a kernel launched with <<<>>>); thread_block_tile<N> (N a
 * power of two up to 32) is N consecutive lanes of a warp, whose collectives are the
 * emulator's warp collectives on the tile's lanes (shuffles of width N); coalesced_group is
 * the warp's active lanes. thread_group holds any of the block, a tile or a coalesced group.
 * cg::reduce combines by a butterfly of shuffles (a tile) or in lane order (a coalesced
 * group): floating-point sums may differ from a GPU's in the last bits.
 * Not provided (a compile error names them): cluster_group, this_multi_grid, tiles larger
 * than a warp, block_tile_memory, labeled_partition, binary_partition, scans, memcpy_async.
 */
/* Included alone, this header first brings in the umbrella, which includes the layer's
 * headers (this one among them) in the order they need; then the guard below skips it. */
#include "../cuda_runtime.h"

#ifndef SHMEMU_CUDA_CG_H
#define SHMEMU_CUDA_CG_H

#include <type_traits>

#include "shmemu_cuda/device.h"

namespace cooperative_groups {

namespace details {
using ::shmemu_cuda::detail::lane_id;
using ::shmemu_cuda::detail::thread_rank;
using ::shmemu_cuda::detail::warp_lanes;

/* The lanes of the calling thread's tile of `size` lanes (that exist). */
inline unsigned tile_mask(unsigned size)
{
    unsigned base = lane_id() & ~(size - 1);
    unsigned lanes = size >= 32 ? 0xffffffffu : ((1u << size) - 1u) << base;
    return lanes & warp_lanes();
}
/* Lane of the rank-th set bit of mask. */
inline int lane_of_rank(unsigned mask, unsigned rank)
{
    for (int l = 0; l < 32; l++)
        if (((mask >> l) & 1u) && rank-- == 0)
            return l;
    return -1;
}
/* The bits of a warp ballot at the group's lanes, packed in rank order. */
inline unsigned pack_bits(unsigned ballot, unsigned mask)
{
    unsigned out = 0, rank = 0;
    for (int l = 0; l < 32; l++)
        if ((mask >> l) & 1u)
            out |= ((ballot >> l) & 1u) << rank++;
    return out;
}
} // namespace details

class thread_block {
  public:
    static void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE())
    {
        emu_syncthreads(file, line);
    }
    static unsigned int thread_rank() { return details::thread_rank(); }
    static unsigned int size() { return ::shmemu_cuda::detail::block_threads(); }
    static unsigned int num_threads() { return size(); }
    static dim3 group_index() { return blockIdx; }
    static dim3 thread_index() { return threadIdx; }
    static dim3 group_dim() { return blockDim; }
    static dim3 dim_threads() { return blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }

class grid_group {
  public:
    /* The grid barrier; true for any kernel (a grid barrier outside a cooperative launch is
     * reported by the emulator when it is reached). */
    bool is_valid() const { return true; }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        emu_grid_sync(file, line);
    }
    static dim3 dim_blocks() { return gridDim; }
    static dim3 block_index() { return blockIdx; }
    static unsigned long long num_blocks()
    {
        dim3 g = gridDim;
        return static_cast<unsigned long long>(g.x) * g.y * g.z;
    }
    static unsigned long long block_rank()
    {
        dim3 g = gridDim, b = blockIdx;
        return b.x + static_cast<unsigned long long>(g.x) * (b.y + static_cast<unsigned long long>(g.y) * b.z);
    }
    static unsigned long long num_threads() { return num_blocks() * thread_block::size(); }
    static unsigned long long size() { return num_threads(); }
    static unsigned long long thread_rank()
    {
        return block_rank() * thread_block::size() + thread_block::thread_rank();
    }
    static dim3 group_dim() { return blockDim; }
    static dim3 dim_threads() { return blockDim; }
    static dim3 thread_index() { return threadIdx; }
};
inline grid_group this_grid() { return grid_group(); }

/* Size lanes of a warp (Size a power of two up to 32); its meta group is its parent's tiles. */
template <unsigned int Size, class ParentT = void> class thread_block_tile {
    static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                  "shmemu: tiles are powers of two up to 32 lanes (larger tiles are not "
                  "emulated)");
    static unsigned mask() { return details::tile_mask(Size); }
    unsigned meta_rank_, meta_size_;

  public:
    thread_block_tile(unsigned meta_rank, unsigned meta_size)
        : meta_rank_(meta_rank), meta_size_(meta_size)
    {
    }
    template <class P>
    thread_block_tile(const thread_block_tile<Size, P> &t)
        : meta_rank_(t.meta_group_rank()), meta_size_(t.meta_group_size())
    {
    }
    static constexpr unsigned int num_threads() { return Size; }
    static constexpr unsigned int size() { return Size; }
    static unsigned int thread_rank() { return details::lane_id() & (Size - 1); }
    unsigned int meta_group_rank() const { return meta_rank_; }
    unsigned int meta_group_size() const { return meta_size_; }
    static void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE())
    {
        emu_syncwarp(mask(), file, line);
    }
    template <class T>
    static T shfl(T var, int src_rank, const char *file = __builtin_FILE(), int line = __builtin_LINE())
    {
        return __shfl_sync(mask(), var, src_rank, Size, file, line);
    }
    template <class T>
    static T shfl_up(T var, unsigned int delta, const char *file = __builtin_FILE(),
                     int line = __builtin_LINE())
    {
        return __shfl_up_sync(mask(), var, delta, Size, file, line);
    }
    template <class T>
    static T shfl_down(T var, unsigned int delta, const char *file = __builtin_FILE(),
                       int line = __builtin_LINE())
    {
        return __shfl_down_sync(mask(), var, delta, Size, file, line);
    }
    template <class T>
    static T shfl_xor(T var, unsigned int lane_mask, const char *file = __builtin_FILE(),
                      int line = __builtin_LINE())
    {
        return __shfl_xor_sync(mask(), var, static_cast<int>(lane_mask), Size, file, line);
    }
    /* Bit r is the predicate of the tile's rank r. */
    static unsigned int ballot(int pred, const char *file = __builtin_FILE(), int line = __builtin_LINE())
    {
        unsigned m = mask();
        unsigned b = static_cast<unsigned>(emu_warp_op(EMU_WARP_BALLOT, m, pred != 0, 0, file, line));
        return details::pack_bits(b, m);
    }
    static int any(int pred, const char *file = __builtin_FILE(), int line = __builtin_LINE())
    {
        return static_cast<int>(emu_warp_op(EMU_WARP_ANY, mask(), pred != 0, 0, file, line));
    }
    static int all(int pred, const char *file = __builtin_FILE(), int line = __builtin_LINE())
    {
        return static_cast<int>(emu_warp_op(EMU_WARP_ALL, mask(), pred != 0, 0, file, line));
    }
    template <class T> static unsigned int match_any(T value)
    {
        unsigned m = mask();
        return details::pack_bits(__match_any_sync(m, value), m);
    }
    template <class T> static unsigned int match_all(T value, int &pred)
    {
        unsigned m = mask();
        return details::pack_bits(__match_all_sync(m, value, &pred), m);
    }
};

template <unsigned int Size>
inline thread_block_tile<Size, thread_block> tiled_partition(const thread_block &block)
{
    unsigned n = block.size();
    return thread_block_tile<Size, thread_block>(block.thread_rank() / Size, (n + Size - 1) / Size);
}
template <unsigned int Size, unsigned int ParentSize, class P>
inline thread_block_tile<Size, thread_block_tile<ParentSize, P>>
tiled_partition(const thread_block_tile<ParentSize, P> &parent)
{
    static_assert(Size <= ParentSize, "shmemu: a tile partitions into smaller tiles");
    return thread_block_tile<Size, thread_block_tile<ParentSize, P>>(parent.thread_rank() / Size,
                                                                     ParentSize / Size);
}

/* The warp's active lanes when it was made. */
class coalesced_group {
    unsigned mask_;

  public:
    explicit coalesced_group(unsigned mask) : mask_(mask) {}
    unsigned int num_threads() const { return static_cast<unsigned>(__builtin_popcount(mask_)); }
    unsigned int size() const { return num_threads(); }
    unsigned int thread_rank() const
    {
        return static_cast<unsigned>(__builtin_popcount(mask_ & ((1u << details::lane_id()) - 1u)));
    }
    unsigned int meta_group_rank() const { return 0; }
    unsigned int meta_group_size() const { return 1; }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        emu_syncwarp(mask_, file, line);
    }
    template <class T>
    T shfl(T var, unsigned int src_rank, const char *file = __builtin_FILE(),
           int line = __builtin_LINE()) const
    {
        return __shfl_sync(mask_, var, details::lane_of_rank(mask_, src_rank), 32, file, line);
    }
    unsigned int ballot(int pred, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        unsigned b = static_cast<unsigned>(emu_warp_op(EMU_WARP_BALLOT, mask_, pred != 0, 0, file, line));
        return details::pack_bits(b, mask_);
    }
    int any(int pred, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        return static_cast<int>(emu_warp_op(EMU_WARP_ANY, mask_, pred != 0, 0, file, line));
    }
    int all(int pred, const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        return static_cast<int>(emu_warp_op(EMU_WARP_ALL, mask_, pred != 0, 0, file, line));
    }
    unsigned mask() const { return mask_; }
};
inline coalesced_group coalesced_threads() { return coalesced_group(__activemask()); }

/* Any of the groups above, by value. Tiles from tiled_partition(parent, n) are n lanes of a
 * warp (n a power of two up to 32). */
class thread_group {
    enum kind { block, tile, coalesced } kind_;
    unsigned size_or_mask_;

  public:
    thread_group(const thread_block &) : kind_(block), size_or_mask_(0) {}
    template <unsigned int Size, class P>
    thread_group(const thread_block_tile<Size, P> &) : kind_(tile), size_or_mask_(Size)
    {
    }
    thread_group(const coalesced_group &g) : kind_(coalesced), size_or_mask_(g.mask()) {}
    static thread_group tile_of(unsigned int size)
    {
        thread_group g{thread_block()};
        g.kind_ = tile;
        g.size_or_mask_ = size;
        return g;
    }
    unsigned long long num_threads() const
    {
        switch (kind_) {
        case block: return thread_block::size();
        case tile: return size_or_mask_;
        default: return static_cast<unsigned>(__builtin_popcount(size_or_mask_));
        }
    }
    unsigned long long size() const { return num_threads(); }
    unsigned long long thread_rank() const
    {
        switch (kind_) {
        case block: return thread_block::thread_rank();
        case tile: return details::lane_id() & (size_or_mask_ - 1);
        default: return coalesced_group(size_or_mask_).thread_rank();
        }
    }
    void sync(const char *file = __builtin_FILE(), int line = __builtin_LINE()) const
    {
        switch (kind_) {
        case block: emu_syncthreads(file, line); break;
        case tile: emu_syncwarp(details::tile_mask(size_or_mask_), file, line); break;
        default: emu_syncwarp(size_or_mask_, file, line); break;
        }
    }
};

[[noreturn]] void shmemu_bad_tile_size(unsigned int size);
inline thread_group tiled_partition(const thread_group &, unsigned int size)
{
    if (size == 0 || size > 32 || (size & (size - 1)) != 0)
        shmemu_bad_tile_size(size);
    return thread_group::tile_of(size);
}
inline thread_group tiled_partition(const thread_block &, unsigned int size)
{
    return tiled_partition(thread_group(thread_block()), size);
}

template <class G> inline void sync(const G &g) { g.sync(); }
template <class G> inline auto thread_rank(const G &g) -> decltype(g.thread_rank())
{
    return g.thread_rank();
}
template <class G> inline auto group_size(const G &g) -> decltype(g.num_threads())
{
    return g.num_threads();
}

} // namespace cooperative_groups

#endif
