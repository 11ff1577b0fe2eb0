// Build-wide macros and limits shared by every part of ufunc.
#pragma once

#include <cstddef>
#include <cstdint>

#define UFUNC_VERSION_MAJOR 0
#define UFUNC_VERSION_MINOR 1
#define UFUNC_VERSION_PATCH 0

// Functors handed to the CUDA backend must be callable on the device; the same
// annotation is a no-op for host compilers so one header serves both.
#if defined(__CUDACC__)
#define UFUNC_HOST_DEVICE __host__ __device__
#else
#define UFUNC_HOST_DEVICE
#endif

#if defined(__GNUC__) || defined(__clang__)
#define UFUNC_ALWAYS_INLINE inline __attribute__((always_inline))
#define UFUNC_LIKELY(x) __builtin_expect(!!(x), 1)
#define UFUNC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define UFUNC_ALWAYS_INLINE inline
#define UFUNC_LIKELY(x) (x)
#define UFUNC_UNLIKELY(x) (x)
#endif

namespace ufunc {

/// NumPy 2 allows 64 dimensions; so do we.
inline constexpr int max_ndim = 64;

/// Inputs plus outputs of one ufunc call (NumPy's NPY_MAXARGS is 64; elementwise
/// kernels with more than a handful of operands are rare, and a small fixed bound
/// keeps the per-call state on the stack).
inline constexpr int max_operands = 16;

/// Alignment of every host buffer the library allocates: one cache line, which is
/// also the widest SIMD register (AVX-512).
inline constexpr std::size_t host_alignment = 64;

}  // namespace ufunc
