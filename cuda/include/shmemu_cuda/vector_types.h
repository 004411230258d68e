/*
 * shmemu_cuda/vector_types.h: CUDA's vector types (int2, float4, uint3, ...) and their make_ functions,
 * with CUDA's sizes and alignments: a two-element type is aligned to its size, a
 * four-element one to its size up to 16 bytes, one- and three-element types to their
 * element. dim3 (shmemu/emu.h) converts to and from uint3, as in CUDA.
 */
/* Included alone, this header first brings in the umbrella, which includes the layer's
 * headers (this one among them) in the order they need; then the guard below skips it. */
#include "../cuda_runtime.h"

#ifndef SHMEMU_CUDA_VECTOR_TYPES_IMPL_H
#define SHMEMU_CUDA_VECTOR_TYPES_IMPL_H

#include "shmemu/emu.h"

#define SHMEMU_VEC_ALIGN_(T, n) ((n) == 2 || (n) == 4 ? ((n) * sizeof(T) < 16 ? (n) * sizeof(T) : 16) : sizeof(T))

#define SHMEMU_VEC1_(T, N)                                                                    \
    struct __attribute__((aligned(SHMEMU_VEC_ALIGN_(T, 1)))) N##1 { T x; };                   \
    static inline constexpr N##1 make_##N##1(T x) { return N##1{x}; }
#define SHMEMU_VEC2_(T, N)                                                                    \
    struct __attribute__((aligned(SHMEMU_VEC_ALIGN_(T, 2)))) N##2 { T x, y; };                \
    static inline constexpr N##2 make_##N##2(T x, T y) { return N##2{x, y}; }
#define SHMEMU_VEC3_(T, N)                                                                    \
    struct N##3 { T x, y, z; };                                                               \
    static inline constexpr N##3 make_##N##3(T x, T y, T z) { return N##3{x, y, z}; }
#define SHMEMU_VEC4_(T, N)                                                                    \
    struct __attribute__((aligned(SHMEMU_VEC_ALIGN_(T, 4)))) N##4 { T x, y, z, w; };          \
    static inline constexpr N##4 make_##N##4(T x, T y, T z, T w) { return N##4{x, y, z, w}; }
#define SHMEMU_VEC_(T, N) SHMEMU_VEC1_(T, N) SHMEMU_VEC2_(T, N) SHMEMU_VEC3_(T, N) SHMEMU_VEC4_(T, N)

SHMEMU_VEC_(signed char, char)
SHMEMU_VEC_(unsigned char, uchar)
SHMEMU_VEC_(short, short)
SHMEMU_VEC_(unsigned short, ushort)
SHMEMU_VEC_(int, int)
SHMEMU_VEC_(unsigned int, uint)
SHMEMU_VEC_(long, long)
SHMEMU_VEC_(unsigned long, ulong)
SHMEMU_VEC_(long long, longlong)
SHMEMU_VEC_(unsigned long long, ulonglong)
SHMEMU_VEC_(float, float)
SHMEMU_VEC_(double, double)

#undef SHMEMU_VEC_
#undef SHMEMU_VEC1_
#undef SHMEMU_VEC2_
#undef SHMEMU_VEC3_
#undef SHMEMU_VEC4_
#undef SHMEMU_VEC_ALIGN_

constexpr dim3::dim3(const uint3 &v) : x(v.x), y(v.y), z(v.z) {}
constexpr dim3::operator uint3() const { return uint3{x, y, z}; }

static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4 as in CUDA");
static_assert(sizeof(int2) == 8 && alignof(int2) == 8, "int2 as in CUDA");
static_assert(sizeof(uint3) == 12 && alignof(uint3) == 4, "uint3 as in CUDA");
static_assert(sizeof(double2) == 16 && alignof(double2) == 16, "double2 as in CUDA");

#endif
