// Our thin layer over xsimd: the only header that includes it. It must build with
// xsimd 8.1 (Debian 12) as well as newer releases.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include <xsimd/xsimd.hpp>

#include <ufunc/core/config.hpp>

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64)
#include <immintrin.h>
#define UFUNC_SIMD_X86 1
#define UFUNC_SIMD_X86_STREAM 1
#endif

namespace ufunc::simd {

/// The widest instruction set the including translation unit is compiled for.
using default_arch = xsimd::default_arch;

template <class T, class Arch = default_arch>
using batch = xsimd::batch<T, Arch>;
template <class T, class Arch = default_arch>
using batch_bool = xsimd::batch_bool<T, Arch>;

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

namespace detail {

enum class order { less, less_equal };

// Lanes where either operand is NaN are compared as 0 with 0, after a quiet equality
// test (x == x) has set them aside, and come out false.
template <order O, class T, class Arch>
UFUNC_ALWAYS_INLINE batch_bool<T, Arch> nan_masked_order(const batch<T, Arch>& a, const batch<T, Arch>& b) noexcept {
  const batch_bool<T, Arch> ordered = (a == a) & (b == b);
  const batch<T, Arch> zero(T(0));
  const batch<T, Arch> x = xsimd::select(ordered, a, zero), y = xsimd::select(ordered, b, zero);
  if constexpr (O == order::less)
    return ordered & (x < y);
  else
    return ordered & (x <= y);
}

template <order O, class T, class Arch>
UFUNC_ALWAYS_INLINE batch_bool<T, Arch> quiet_order(const batch<T, Arch>& a, const batch<T, Arch>& b) noexcept {
  if constexpr (!std::is_floating_point_v<T>) {
    if constexpr (O == order::less)
      return a < b;
    else
      return a <= b;
  } else {
#if defined(UFUNC_SIMD_X86)
    constexpr int predicate = O == order::less ? _CMP_LT_OQ : _CMP_LE_OQ;
    using R = typename batch<T, Arch>::register_type;
    const R x = static_cast<R>(a), y = static_cast<R>(b);
    if constexpr (std::is_base_of_v<xsimd::avx512f, Arch>) {
      if constexpr (std::is_same_v<T, float>)
        return batch_bool<T, Arch>(_mm512_cmp_ps_mask(x, y, predicate));
      else
        return batch_bool<T, Arch>(_mm512_cmp_pd_mask(x, y, predicate));
    } else if constexpr (std::is_base_of_v<xsimd::avx, Arch>) {
      if constexpr (std::is_same_v<T, float>)
        return batch_bool<T, Arch>(_mm256_cmp_ps(x, y, predicate));
      else
        return batch_bool<T, Arch>(_mm256_cmp_pd(x, y, predicate));
    } else {
      return nan_masked_order<O>(a, b);
    }
#else
    return nan_masked_order<O>(a, b);
#endif
  }
}

}  // namespace detail

/// The ordered comparisons as IEEE 754's quiet predicates: a NaN lane compares false
/// and raises no floating-point flag. xsimd's `<` and `<=` are signaling on SSE
/// (cmpltps and cmpleps raise `invalid` for a quiet NaN, which NumPy's comparisons and
/// min/max loops never report); AVX and AVX-512 get the quiet predicates (_CMP_LT_OQ)
/// here, other instruction sets compare NaN lanes as zeros (see nan_masked_order).
template <class T, class Arch>
UFUNC_ALWAYS_INLINE batch_bool<T, Arch> quiet_less(const batch<T, Arch>& a, const batch<T, Arch>& b) noexcept {
  return detail::quiet_order<detail::order::less>(a, b);
}
template <class T, class Arch>
UFUNC_ALWAYS_INLINE batch_bool<T, Arch> quiet_less_equal(const batch<T, Arch>& a, const batch<T, Arch>& b) noexcept {
  return detail::quiet_order<detail::order::less_equal>(a, b);
}
template <class T, class Arch>
UFUNC_ALWAYS_INLINE batch_bool<T, Arch> quiet_greater(const batch<T, Arch>& a, const batch<T, Arch>& b) noexcept {
  return detail::quiet_order<detail::order::less>(b, a);
}
template <class T, class Arch>
UFUNC_ALWAYS_INLINE batch_bool<T, Arch> quiet_greater_equal(const batch<T, Arch>& a, const batch<T, Arch>& b) noexcept {
  return detail::quiet_order<detail::order::less_equal>(b, a);
}

/// Writes the lanes of `m` to out[0], ..., out[size - 1] as bools. On x86 through the
/// sign bits (movemask) or the AVX-512 mask register, four lanes per 32-bit store:
/// xsimd's generic store converts the all-ones lanes to T and tests each against zero.
template <class T, class Arch>
UFUNC_ALWAYS_INLINE void store_bools(const batch_bool<T, Arch>& m, bool* out) noexcept {
  constexpr std::size_t n = batch_bool<T, Arch>::size;
  [[maybe_unused]] std::uint64_t bits = 0;
#if defined(UFUNC_SIMD_X86)
  constexpr bool f32 = std::is_same_v<T, float>, f64 = std::is_same_v<T, double>;
  if constexpr ((f32 || f64) && std::is_base_of_v<xsimd::avx512f, Arch>) {
    bits = static_cast<std::uint64_t>(m.data);
  } else if constexpr (f32 && std::is_base_of_v<xsimd::avx, Arch>) {
    bits = static_cast<unsigned>(_mm256_movemask_ps(m.data));
  } else if constexpr (f64 && std::is_base_of_v<xsimd::avx, Arch>) {
    bits = static_cast<unsigned>(_mm256_movemask_pd(m.data));
  } else if constexpr (f32 && std::is_base_of_v<xsimd::sse2, Arch>) {
    bits = static_cast<unsigned>(_mm_movemask_ps(m.data));
  } else if constexpr (f64 && std::is_base_of_v<xsimd::sse2, Arch>) {
    bits = static_cast<unsigned>(_mm_movemask_pd(m.data));
  } else {
    m.store_unaligned(out);
    return;
  }
  if constexpr (n % 4 == 0) {
    // The product moves bit k of the nibble to bit 8k (its four terms land on distinct
    // bits, so nothing carries): bytes of 0 and 1, in memory order on little-endian x86.
    for (std::size_t i = 0; i < n; i += 4) {
      const std::uint32_t four = (static_cast<std::uint32_t>(bits >> i) & 0xfu) * 0x00204081u & 0x01010101u;
      std::memcpy(out + i, &four, sizeof four);
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) out[i] = (bits >> i) & 1u;
  }
#else
  (void)n;
  m.store_unaligned(out);
#endif
}

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
