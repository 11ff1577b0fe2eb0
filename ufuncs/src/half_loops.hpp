// The host loops of the float16 and bfloat16 signatures: computed in float and rounded once,
// as NumPy computes float16 and ml_dtypes bfloat16. A loop converts a block of each 16-bit
// operand into a float buffer (F16C on the AVX2 and AVX-512 builds), runs the float32
// loop of the same functor over the block (vectorized as that loop is), and rounds the
// float outputs back: numexpr's blocked evaluation, with the float32 kernels unchanged.
// Functors that define an overload for the 16-bit type itself (nextafter, spacing) run it
// element by element instead. Included by kernels_arch.cpp only: everything here lives in
// that file's namespace of the instruction set, so the linker never merges an F16C copy of a
// conversion with the baseline's (UFUNC_ARCH_NAMESPACE).
#pragma once

#include <algorithm>
#include <cfenv>
#include <cstdint>
#include <cstring>
#include <tuple>
#include <type_traits>

#include <ufunc/backends/cpu/loops.hpp>
#include <ufunc/backends/cpu/methods.hpp>
#include <ufunc/core/bfloat16.hpp>
#include <ufunc/core/detail/convert.hpp>
#include <ufunc/core/detail/half_in_float.hpp>
#include <ufunc/core/detail/streaming.hpp>
#include <ufunc/core/float16.hpp>
#include <ufunc/core/loop.hpp>

#if defined(UFUNC_ARCH_AVX2) || defined(UFUNC_ARCH_AVX512BW)
#include <immintrin.h>
#define UFUNC_HALF_F16C 1
#endif

#if !defined(UFUNC_ARCH_NAMESPACE)
#error "half_loops.hpp is included by kernels_arch.cpp, compiled once per instruction set"
#endif

namespace ufunc::ufuncs::UFUNC_ARCH_NAMESPACE::half_loops {

using ufunc::bfloat16_t;
using ufunc::float16_t;
using ufunc::detail::is_half;

// The operands of Sig in the loop's order: inputs, then outputs.
template <class Sig>
struct operand_list;
template <class R, class... A>
struct operand_list<R(A...)> {
  using type = std::tuple<A..., R>;
};
template <class... R, class... A>
struct operand_list<std::tuple<R...>(A...)> {
  using type = std::tuple<A..., R...>;
};

/// Whether Sig has a float16 or bfloat16 operand.
template <class Sig>
inline constexpr bool has_half = ufunc::detail::has_half_operand<Sig>;

/// Sig with float for its 16-bit types: the signature of the float32 loop the block runs.
template <class Sig>
using wide_signature = typename ufunc::detail::widened_signature<Sig>::type;

/// Whether F computes Sig's 16-bit values itself (else the loop computes in float).
template <class F, class Sig>
inline constexpr bool native_half = ufunc::backends::cpu::callable_as<F, Sig>;

constexpr std::int64_t block = 512;

// 16-bit values (step in bytes) -> n floats, exactly.
template <class T>
void widen(const char* src, std::int64_t step, float* dst, std::int64_t n) {
  std::int64_t i = 0;
  if constexpr (std::is_same_v<T, bfloat16_t>) {
    if (step == 2) {  // the compiler vectorizes the shift
      for (; i < n; ++i) {
        std::uint16_t b;
        std::memcpy(&b, src + 2 * i, 2);
        const std::uint32_t f = static_cast<std::uint32_t>(b) << 16;
        std::memcpy(dst + i, &f, 4);
      }
      return;
    }
  }
#if defined(UFUNC_HALF_F16C)
  if constexpr (std::is_same_v<T, float16_t>) {
    if (step == 2)
      for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i))));
  }
#endif
  for (; i < n; ++i) {
    T v;
    std::memcpy(&v, src + i * step, 2);
    dst[i] = static_cast<float>(v);
  }
}

// n floats -> 16-bit values, rounded to nearest even; float16 reports overflow and
// underflow as NumPy's conversion does (F16C's conversion raises them in hardware).
template <class T>
void narrow(const float* src, char* dst, std::int64_t step, std::int64_t n) {
  bool overflow = false, underflow = false;
  const auto one = [&](std::int64_t k) {
    const T v(src[k]);
    if constexpr (std::is_same_v<T, float16_t>) {
      const auto s = ufunc::half_bits::narrowing_flags(src[k], v.bits());
      overflow |= s.overflow;
      underflow |= s.underflow;
    }
    std::memcpy(dst + k * step, &v, 2);
  };
  std::int64_t i = 0;
#if defined(UFUNC_HALF_F16C)
  // The instruction raises NumPy's overflow and underflow itself (and invalid for a signaling
  // NaN, which NumPy's conversion quiets without a flag). Plain stores: non-temporal ones per
  // block (with their fence) ran at half the speed on the 2-core VM.
  if constexpr (std::is_same_v<T, float16_t>) {
    if (step == 2) {
      for (; i + 8 <= n; i += 8)
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 2 * i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT));
    }
  }
#endif
  if constexpr (std::is_same_v<T, bfloat16_t>) {
    if (step == 2) {  // branch-free rounding on the bits, which the compiler vectorizes
      for (; i < n; ++i) {
        std::uint32_t f;
        std::memcpy(&f, src + i, 4);
        const std::uint32_t rounded = (f + 0x7fffu + ((f >> 16) & 1u)) >> 16;
        const std::uint32_t nan = ((f >> 16) & 0x8000u) | 0x7fc0u;
        const auto b = static_cast<std::uint16_t>((f & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
        std::memcpy(dst + 2 * i, &b, 2);
      }
      return;
    }
  }
  for (; i < n; ++i) one(i);
  if (overflow) std::feraiseexcept(FE_OVERFLOW);
  if (underflow) std::feraiseexcept(FE_UNDERFLOW);
}

#if defined(UFUNC_HALF_F16C)
// A register of 16-bit values at a time (16 lanes on AVX-512, 8 on AVX2), for a loop whose
// operands are all one 16-bit type and contiguous: no block buffers (the same conversions and
// the same float operation, so the same bits and flags as the blocked path).
#if defined(UFUNC_ARCH_AVX512BW)
using wide_register = __m512;
inline constexpr std::int64_t lanes = 16;
#else
using wide_register = __m256;
inline constexpr std::int64_t lanes = 8;
#endif

template <class T>
UFUNC_ALWAYS_INLINE wide_register load_lanes(const char* p) {
#if defined(UFUNC_ARCH_AVX512BW)
  const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  if constexpr (std::is_same_v<T, float16_t>)
    return _mm512_cvtph_ps(h);
  else
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
#else
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  if constexpr (std::is_same_v<T, float16_t>)
    return _mm256_cvtph_ps(h);
  else
    return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
#endif
}

// The 32-bit integer lanes of a register, the operations bfloat16_lanes needs.
struct integer_lanes {
#if defined(UFUNC_ARCH_AVX512BW)
  using bits = __m512i;
  static bits splat(int v) { return _mm512_set1_epi32(v); }
  static bits add(bits a, bits b) { return _mm512_add_epi32(a, b); }
  static bits bit_and(bits a, bits b) { return _mm512_and_si512(a, b); }
  static bits bit_or(bits a, bits b) { return _mm512_or_si512(a, b); }
  static bits high_half(bits a) { return _mm512_srli_epi32(a, 16); }
  // yes where x > limit (unsigned), else no
  static bits above(bits x, int limit, bits yes, bits no) {
    return _mm512_mask_blend_epi32(_mm512_cmpgt_epu32_mask(x, splat(limit)), no, yes);
  }
#else
  using bits = __m256i;
  static bits splat(int v) { return _mm256_set1_epi32(v); }
  static bits add(bits a, bits b) { return _mm256_add_epi32(a, b); }
  static bits bit_and(bits a, bits b) { return _mm256_and_si256(a, b); }
  static bits bit_or(bits a, bits b) { return _mm256_or_si256(a, b); }
  static bits high_half(bits a) { return _mm256_srli_epi32(a, 16); }
  // A signed comparison is right here: bfloat16_lanes compares values below 2^31.
  static bits above(bits x, int limit, bits yes, bits no) {
    return _mm256_blendv_epi8(no, yes, _mm256_cmpgt_epi32(x, splat(limit)));
  }
#endif
};

// The rounding of bfloat16_lanes for lanes that hold no NaN: ties to even, infinities and
// overflow to infinity by the same carry.
UFUNC_ALWAYS_INLINE integer_lanes::bits bfloat16_lanes_without_nan(integer_lanes::bits f) {
  using L = integer_lanes;
  const auto lowest_kept = L::bit_and(L::high_half(f), L::splat(1));
  return L::high_half(L::add(L::add(f, L::splat(0x7fff)), lowest_kept));
}

// bfloat16_bits::from_float_bits (core/bfloat16.hpp) on every lane, as narrow's scalar loop
// computes it: ties to even, a NaN to the quiet NaN with its sign. The bfloat16 bits come
// back in the lanes' low halves.
UFUNC_ALWAYS_INLINE integer_lanes::bits bfloat16_lanes(integer_lanes::bits f) {
  using L = integer_lanes;
  const auto quiet = L::bit_or(L::bit_and(L::high_half(f), L::splat(0x8000)), L::splat(0x7fc0));
  return L::above(L::bit_and(f, L::splat(0x7fffffff)), 0x7f800000, quiet, bfloat16_lanes_without_nan(f));
}

// Two registers of bfloat16 values at a time: a bfloat16 is a float's top half, so
// interleaving 2 x lanes of them with zeros (unpacklo/hi) gives two registers of floats, and
// packing the two rounded results (packus) undoes the interleave, both within 128-bit lanes:
// the elements come back in their order without a widening, shift or cross-lane permute. An
// elementwise function does not see its lanes' order. (On AVX2, 8 lanes at a time, the loop was
// bound by its instructions: bfloat16 add at 0.65x float32 add's bytes per second on the VM.)
using wide_bits = integer_lanes::bits;
#if defined(UFUNC_ARCH_AVX512BW)
UFUNC_ALWAYS_INLINE wide_bits load_bits(const char* p) { return _mm512_loadu_si512(p); }
UFUNC_ALWAYS_INLINE wide_register as_floats(wide_bits v) { return _mm512_castsi512_ps(v); }
UFUNC_ALWAYS_INLINE wide_bits as_bits(wide_register v) { return _mm512_castps_si512(v); }
UFUNC_ALWAYS_INLINE wide_bits zero_bits() { return _mm512_setzero_si512(); }
UFUNC_ALWAYS_INLINE wide_bits interleave_low(wide_bits a, wide_bits b) { return _mm512_unpacklo_epi16(a, b); }
UFUNC_ALWAYS_INLINE wide_bits interleave_high(wide_bits a, wide_bits b) { return _mm512_unpackhi_epi16(a, b); }
UFUNC_ALWAYS_INLINE wide_bits pack_unsigned(wide_bits a, wide_bits b) { return _mm512_packus_epi32(a, b); }
UFUNC_ALWAYS_INLINE bool any_nan(wide_bits a, wide_bits b) {
  const wide_bits magnitude = _mm512_set1_epi32(0x7fffffff), infinity = _mm512_set1_epi32(0x7f800000);
  return (_mm512_cmpgt_epi32_mask(_mm512_and_si512(a, magnitude), infinity) |
          _mm512_cmpgt_epi32_mask(_mm512_and_si512(b, magnitude), infinity)) != 0;
}
template <bool Stream>
UFUNC_ALWAYS_INLINE void store_bits(char* p, wide_bits v) {
  if constexpr (Stream)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
  else
    _mm512_storeu_si512(p, v);
}
#else
UFUNC_ALWAYS_INLINE wide_bits load_bits(const char* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
UFUNC_ALWAYS_INLINE wide_register as_floats(wide_bits v) { return _mm256_castsi256_ps(v); }
UFUNC_ALWAYS_INLINE wide_bits as_bits(wide_register v) { return _mm256_castps_si256(v); }
UFUNC_ALWAYS_INLINE wide_bits zero_bits() { return _mm256_setzero_si256(); }
UFUNC_ALWAYS_INLINE wide_bits interleave_low(wide_bits a, wide_bits b) { return _mm256_unpacklo_epi16(a, b); }
UFUNC_ALWAYS_INLINE wide_bits interleave_high(wide_bits a, wide_bits b) { return _mm256_unpackhi_epi16(a, b); }
UFUNC_ALWAYS_INLINE wide_bits pack_unsigned(wide_bits a, wide_bits b) { return _mm256_packus_epi32(a, b); }
// On the bits: a float comparison would raise invalid for a signaling NaN passed through.
UFUNC_ALWAYS_INLINE bool any_nan(wide_bits a, wide_bits b) {
  const wide_bits magnitude = _mm256_set1_epi32(0x7fffffff), infinity = _mm256_set1_epi32(0x7f800000);
  const wide_bits nan = _mm256_or_si256(_mm256_cmpgt_epi32(_mm256_and_si256(a, magnitude), infinity),
                                        _mm256_cmpgt_epi32(_mm256_and_si256(b, magnitude), infinity));
  return !_mm256_testz_si256(nan, nan);
}
template <bool Stream>
UFUNC_ALWAYS_INLINE void store_bits(char* p, wide_bits v) {
  if constexpr (Stream)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v);
  else
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}
#endif

struct lane_pair {
  wide_register low, high;
};

// Two registers of T from 2 x lanes values: float16's widened half by half (one full-width
// load and store per step, as float32's loop takes: with a half-width streaming store per
// register, float16 add ran at 0.77x float32 add's bytes per second on one Xeon core).
// bfloat16's by the interleave, whose lanes are in the order store_pair undoes.
template <class T>
UFUNC_ALWAYS_INLINE lane_pair load_pair(const char* p) {
  const wide_bits h = load_bits(p);
  if constexpr (std::is_same_v<T, bfloat16_t>) {
    return {as_floats(interleave_low(zero_bits(), h)), as_floats(interleave_high(zero_bits(), h))};
  } else {
#if defined(UFUNC_ARCH_AVX512BW)
    return {_mm512_cvtph_ps(_mm512_castsi512_si256(h)), _mm512_cvtph_ps(_mm512_extracti64x4_epi64(h, 1))};
#else
    return {_mm256_cvtph_ps(_mm256_castsi256_si128(h)), _mm256_cvtph_ps(_mm256_extracti128_si256(h, 1))};
#endif
  }
}

// bfloat16: each lane's value is below 2^16, which packus keeps; one test for NaNs in the
// lanes (rare) instead of a select per register. float16: F16C's rounding, which raises
// NumPy's overflow and underflow itself, as store_lanes's.
template <class T, bool Stream>
UFUNC_ALWAYS_INLINE void store_pair(char* p, wide_register low, wide_register high) {
  if constexpr (std::is_same_v<T, bfloat16_t>) {
    const wide_bits l = as_bits(low), r = as_bits(high);
    store_bits<Stream>(p, any_nan(l, r) ? pack_unsigned(bfloat16_lanes(l), bfloat16_lanes(r))
                                        : pack_unsigned(bfloat16_lanes_without_nan(l), bfloat16_lanes_without_nan(r)));
  } else {
#if defined(UFUNC_ARCH_AVX512BW)
    store_bits<Stream>(p, _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtps_ph(low, _MM_FROUND_TO_NEAREST_INT)),
                                             _mm512_cvtps_ph(high, _MM_FROUND_TO_NEAREST_INT), 1));
#else
    store_bits<Stream>(p,
                       _mm256_inserti128_si256(_mm256_castsi128_si256(_mm256_cvtps_ph(low, _MM_FROUND_TO_NEAREST_INT)),
                                               _mm256_cvtps_ph(high, _MM_FROUND_TO_NEAREST_INT), 1));
#endif
  }
}

template <class T, bool Stream = false>
UFUNC_ALWAYS_INLINE void store_lanes(char* p, wide_register v) {
#if defined(UFUNC_ARCH_AVX512BW)
  __m256i h;
  if constexpr (std::is_same_v<T, float16_t>) {
    h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
  } else {
    h = _mm512_cvtepi32_epi16(bfloat16_lanes(_mm512_castps_si512(v)));
  }
  if constexpr (Stream)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(p), h);
  else
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), h);
#else
  __m128i h;
  if constexpr (std::is_same_v<T, float16_t>) {
    h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
  } else {
    const __m256i r = bfloat16_lanes(_mm256_castps_si256(v));  // lanes below 2^16: packus keeps them
    h = _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08));
  }
  if constexpr (Stream)
    _mm_stream_si128(reinterpret_cast<__m128i*>(p), h);
  else
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), h);
#endif
}
#endif

template <class Arch, class F, class Sig>
struct widened_loop;

template <class Arch, class F, class Sig>
requires has_half<Sig>
struct widened_loop<Arch, F, Sig> {
  using operands = typename operand_list<Sig>::type;
  static constexpr std::size_t nargs = std::tuple_size_v<operands>;

  static void run(char* const* args, std::int64_t n, const std::int64_t* steps, const void* data) {
    run_impl(args, n, steps, data, std::make_index_sequence<nargs>{});
  }

 private:
  template <std::size_t... I>
  static void run_impl(char* const* args, std::int64_t n, const std::int64_t* steps, const void* data,
                       std::index_sequence<I...>) {
    constexpr std::size_t inputs = input_count(static_cast<Sig*>(nullptr));
    alignas(64) float buf[nargs][block];
    const ufunc::inner_loop_fn wide = ufunc::backends::cpu::inner_loop<wide_signature<Sig>, F, Arch>;
    const bool stream = ufunc::detail::stream_stores;
    constexpr bool buffered_output = ((I >= inputs && is_half<std::tuple_element_t<I, operands>>) || ...);
    std::int64_t done = 0;
#if defined(UFUNC_HALF_F16C)
    using T0 = std::tuple_element_t<0, operands>;
    using B = xsimd::batch<float, Arch>;
    if constexpr (nargs == inputs + 1 && (std::is_same_v<std::tuple_element_t<I, operands>, T0> && ...) &&
                  ufunc::backends::cpu::is_vectorizable<F, wide_signature<Sig>, Arch> && B::size == lanes) {
      if (((steps[I] == 2) && ...)) {
        const F& f = *static_cast<const F*>(data);
        const auto in = std::make_index_sequence<inputs>{};
        constexpr std::int64_t bytes = 2 * lanes;
        if constexpr (inputs > 0) {
          if (!stream) {
            for (; done + 2 * lanes <= n; done += 2 * lanes) call_pair<T0, B, false>(f, args, done, in);
          } else if (reinterpret_cast<std::uintptr_t>(args[inputs]) % (2 * bytes) == 0) {
            for (; done + 2 * lanes <= n; done += 2 * lanes)
              call_pair<T0, B, true>(f, args, done, in);  // the sfence comes after the loop below
          }
        }
        if (stream && reinterpret_cast<std::uintptr_t>(args[inputs]) % bytes == 0) {
          // A large result around the cache (the executor's streaming stores, as the float32 loop's).
          for (; done + lanes <= n; done += lanes)
            store_lanes<T0, true>(args[inputs] + 2 * done, call_lanes<T0, B>(f, args, done, in));
          _mm_sfence();
        } else {
          for (; done + lanes <= n; done += lanes)
            store_lanes<T0>(args[inputs] + 2 * done, call_lanes<T0, B>(f, args, done, in));
        }
      }
    }
#endif
    for (std::int64_t off = done; off < n; off += block) {
      const std::int64_t m = std::min(block, n - off);
      char* ptr[nargs];
      std::int64_t st[nargs];
      (
          [&] {
            using T = std::tuple_element_t<I, operands>;
            char* at = args[I] + off * steps[I];
            if constexpr (is_half<T>) {
              ptr[I] = reinterpret_cast<char*>(buf[I]);
              st[I] = sizeof(float);
              if (I < inputs) {
                if (steps[I] == 0) {  // a broadcast scalar stays one, for the float loop's fast path
                  widen<T>(at, 0, buf[I], 1);
                  st[I] = 0;
                } else {
                  widen<T>(at, steps[I], buf[I], m);
                }
              }
            } else {
              ptr[I] = at;
              st[I] = steps[I];
            }
          }(),
          ...);
      {
        // The float loop writes the block's buffers, which must stay in the cache: never with
        // the non-temporal stores a large call asks for (narrow() streams the real output).
        const ufunc::detail::stream_stores_scope cached(stream && !buffered_output);
        wide(ptr, m, st, data);
      }
      (
          [&] {
            using T = std::tuple_element_t<I, operands>;
            if constexpr (is_half<T>)
              if (I >= inputs) narrow<T>(buf[I], args[I] + off * steps[I], steps[I], m);
          }(),
          ...);
    }
  }

#if defined(UFUNC_HALF_F16C)
  template <class T, class B, std::size_t... K>
  static UFUNC_ALWAYS_INLINE wide_register call_lanes(const F& f, char* const* args, std::int64_t at,
                                                      std::index_sequence<K...>) {
    return static_cast<wide_register>(B(f(B(load_lanes<T>(args[K] + 2 * at))...)));
  }
  template <class T, class B, bool Stream, std::size_t... K>
  static UFUNC_ALWAYS_INLINE void call_pair(const F& f, char* const* args, std::int64_t at, std::index_sequence<K...>) {
    const lane_pair x[] = {load_pair<T>(args[K] + 2 * at)...};
    const auto low = static_cast<wide_register>(B(f(B(x[K].low)...)));
    const auto high = static_cast<wide_register>(B(f(B(x[K].high)...)));
    store_pair<T, Stream>(args[sizeof...(K)] + 2 * at, low, high);
  }
#endif

  template <class R, class... A>
  static constexpr std::size_t input_count(R (*)(A...)) {
    return sizeof...(A);
  }
};

/// The inner loop of a 16-bit signature: the functor's own where it has one, else in float.
template <class Sig, class F, class Arch>
constexpr ufunc::inner_loop_fn half_inner_loop() {
  if constexpr (native_half<F, Sig>)
    return ufunc::backends::cpu::inner_loop<Sig, F, Arch>;
  else
    return &widened_loop<Arch, F, Sig>::run;
}

/// The fold of a T(T, T) loop of a 16-bit T. float16's add, subtract, multiply and
/// divide accumulate in float and round once per run (NumPy's HALF_add reduce, pairwise
/// for add); every other fold (bfloat16's all, as ml_dtypes' plain loops) rounds at
/// each step.
template <class T, class F, class Arch, bool AccumulateInFloat, bool Pairwise>
void half_reduce(char* acc, const char* in, std::int64_t n, std::int64_t step, const void* data) {
  const F& f = *static_cast<const F*>(data);
  T a;
  std::memcpy(&a, acc, 2);
  if constexpr (AccumulateInFloat) {
    float wide = static_cast<float>(a);
    alignas(64) float buf[block];
    for (std::int64_t off = 0; off < n; off += block) {
      const std::int64_t m = std::min(block, n - off);
      widen<T>(in + off * step, step, buf, m);
      ufunc::backends::cpu::reduce_loop<float(float, float), F, Arch, Pairwise>(
          reinterpret_cast<char*>(&wide), reinterpret_cast<const char*>(buf), m, sizeof(float), data);
    }
    narrow<T>(&wide, acc, 2, 1);
  } else {
    for (std::int64_t i = 0; i < n; ++i) {
      T x;
      std::memcpy(&x, in + i * step, 2);
      if constexpr (native_half<F, T(T, T)>) {
        a = f(a, x);
      } else {
        const float r = f(static_cast<float>(a), static_cast<float>(x));
        narrow<T>(&r, reinterpret_cast<char*>(&a), 2, 1);
      }
    }
    std::memcpy(acc, &a, 2);
  }
}

}  // namespace ufunc::ufuncs::UFUNC_ARCH_NAMESPACE::half_loops
