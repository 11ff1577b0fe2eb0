// Our thin layer over xsimd: the only header that includes it. It must build with
// xsimd 8.1 (Debian 12) as well as newer releases.
#pragma once

#include <cstdint>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include <ufunc/core/config.hpp>

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64)
#include <immintrin.h>
#define UFUNC_SIMD_X86_STREAM 1
#endif

namespace ufunc::simd {

/// The widest instruction set the including translation unit is compiled for.
using default_arch = xsimd::default_arch;

template <class T, class Arch = default_arch>
using batch = xsimd::batch<T, Arch>;

/// Whether xsimd has registers for T on Arch (bool and complex use the scalar path).
///
/// Never in nvcc's device pass (__CUDA_ARCH__), which emits no host loop anyway: instantiating a
/// __host__ __device__ functor there with xsimd batches would check its body against xsimd's host-only
/// functions and warn (20011/20014) for every `using std::sqrt; return sqrt(x);` a user writes, warnings that
/// would then have to be silenced for real device-side mistakes too.
template <class T, class Arch>
inline constexpr bool has_batch =
#if defined(__CUDA_ARCH__)
    false;
#else
    std::is_arithmetic_v<T> && !std::is_same_v<T, bool> && xsimd::types::has_simd_register<T, Arch>::value;
#endif

/// Elementwise choice that works for scalars and batches alike, so one functor body
/// serves both paths: select(x > 0, x, -x).
template <class T>
constexpr T select(bool condition, T a, T b) noexcept {
  return condition ? a : b;
}
using xsimd::select;

/// True if any lane (or the scalar) is true; lets data-dependent loops run on batches.
constexpr bool any(bool b) noexcept { return b; }
using xsimd::any;

/// Whether stream_store exists for batch<T, Arch> (xsimd 8.1 has no streaming
/// store; these are the x86 intrinsics on the batch's register).
template <class T, class Arch>
inline constexpr bool can_stream =
#if defined(UFUNC_SIMD_X86_STREAM)
    has_batch<T, Arch> && (std::is_base_of_v<xsimd::avx512f, Arch> || std::is_base_of_v<xsimd::avx, Arch> ||
                           std::is_base_of_v<xsimd::sse2, Arch>);
#else
    false;
#endif

/// A non-temporal store of `b` to `p`, which must be aligned to sizeof(batch)
/// (16, 32 or 64 bytes). Weakly ordered: end a run of them with store_fence().
template <class T, class Arch>
UFUNC_ALWAYS_INLINE void stream_store(T* p, const batch<T, Arch>& b) noexcept {
#if defined(UFUNC_SIMD_X86_STREAM)
  const auto r = static_cast<typename batch<T, Arch>::register_type>(b);
  if constexpr (std::is_base_of_v<xsimd::avx512f, Arch>) {
    if constexpr (std::is_same_v<T, float>)
      _mm512_stream_ps(p, r);
    else if constexpr (std::is_same_v<T, double>)
      _mm512_stream_pd(p, r);
    else
      _mm512_stream_si512(reinterpret_cast<__m512i*>(p), r);
  } else if constexpr (std::is_base_of_v<xsimd::avx, Arch>) {
    if constexpr (std::is_same_v<T, float>)
      _mm256_stream_ps(p, r);
    else if constexpr (std::is_same_v<T, double>)
      _mm256_stream_pd(p, r);
    else
      _mm256_stream_si256(reinterpret_cast<__m256i*>(p), r);
  } else if constexpr (std::is_base_of_v<xsimd::sse2, Arch>) {
    if constexpr (std::is_same_v<T, float>)
      _mm_stream_ps(p, r);
    else if constexpr (std::is_same_v<T, double>)
      _mm_stream_pd(p, r);
    else
      _mm_stream_si128(reinterpret_cast<__m128i*>(p), r);
  } else {
    b.store_aligned(p);
  }
#else
  b.store_aligned(p);
#endif
}

/// Orders the non-temporal stores before it with every later store (sfence).
UFUNC_ALWAYS_INLINE void store_fence() noexcept {
#if defined(UFUNC_SIMD_X86_STREAM)
  _mm_sfence();
#endif
}

}  // namespace ufunc::simd
