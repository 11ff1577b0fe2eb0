// Floating-point error flags on the device. The GPU has no status flags, so a
// kernel classifies each result the way the host's hardware flags would come out
// (NumPy's semantics), and reports the kinds it saw through the call's sink
// (core/device_call.hpp): errstate's policies then apply on the host.
//
// The generic rule, for every operation (user functors included): `invalid` when a
// floating result (a component of it) is NaN and no input is, `overflow` when it is
// infinite and no input is. Operations whose flags differ (a pole gives
// `divide`, results that underflow, integer division by zero) specialize fp_rule;
// the built-in ones do so in ufuncs/src/device_fp_rules.hpp.
#pragma once

#if !defined(__CUDACC__)
#error "ufunc/backends/cuda/fp_flags.hpp is CUDA code: compile this translation unit with nvcc"
#endif

#include <limits>
#include <tuple>
#include <type_traits>

#include <cuda/std/complex>

#include <ufunc/core/detail/convert.hpp>
#include <ufunc/core/detail/half_in_float.hpp>
#include <ufunc/core/device_call.hpp>

namespace ufunc::backends::cuda {

/// The kinds as bits (ufunc::fp_flag, NumPy's NPY_FPE_* values).
namespace fpe {
constexpr unsigned divide = 1, overflow = 2, underflow = 4, invalid = 8;
constexpr unsigned negative_power = device_fp_sink::negative_power;
constexpr int kinds = device_fp_sink::kinds;
}  // namespace fpe

namespace fp {

template <class T>
struct complex_parts : std::false_type {};
template <class T>
struct complex_parts<::cuda::std::complex<T>> : std::true_type {};

template <class T>
__device__ __forceinline__ bool any_nan(const T& x) {
  if constexpr (complex_parts<T>::value)
    return x.real() != x.real() || x.imag() != x.imag();
  else if constexpr (std::is_floating_point_v<T>)
    return x != x;
  else if constexpr (::ufunc::detail::is_half<T>)
    return static_cast<float>(x) != static_cast<float>(x);
  else
    return false;
}
template <class T>
__device__ __forceinline__ bool any_inf(const T& x) {
  if constexpr (complex_parts<T>::value)
    return ::isinf(x.real()) || ::isinf(x.imag());
  else if constexpr (std::is_floating_point_v<T>)
    return ::isinf(x);
  else if constexpr (::ufunc::detail::is_half<T>)
    return ::isinf(static_cast<float>(x));
  else
    return false;
}
template <class T>
__device__ __forceinline__ bool is_zero(const T& x) {
  if constexpr (complex_parts<T>::value)
    return x.real() == 0 && x.imag() == 0;
  else
    return x == T(0);
}
template <class T>
__device__ __forceinline__ bool finite(const T& x) {
  return !any_nan(x) && !any_inf(x);
}
/// |x| below the smallest normal number: zero or subnormal (a real x).
template <class T>
__device__ __forceinline__ bool is_tiny(T x) {
  return x < std::numeric_limits<T>::min() && x > -std::numeric_limits<T>::min();
}

template <class T>
struct several_outputs : std::false_type {};
template <class... T>
struct several_outputs<std::tuple<T...>> : std::true_type {};

template <class R>
__device__ __forceinline__ unsigned result_flags(const R& r, bool input_nan, bool input_inf) {
  return (any_nan(r) && !input_nan ? fpe::invalid : 0u) | (any_inf(r) && !input_inf ? fpe::overflow : 0u);
}

/// The generic rule; a tuple result (several outputs) is classified per output. A
/// NaN part of an input does not excuse an infinite result: (max + nan j) * 2
/// overflows in its real part.
template <class R, class... A>
__device__ __forceinline__ unsigned generic(const R& r, const A&... a) {
  if constexpr (!several_outputs<R>::value) {
    // Nearly every result is finite: one test on it, a branch the whole warp takes
    // together, and the inputs are not classified (what gathering flags costs a
    // memory-bound kernel is these instructions).
    if (!any_nan(r) && !any_inf(r)) return 0u;
  }
  const bool input_nan = (any_nan(a) || ...);
  const bool input_inf = (any_inf(a) || ...);
  if constexpr (several_outputs<R>::value) {
    return [&]<std::size_t... O>(std::index_sequence<O...>) {
      return (result_flags(std::get<O>(r), input_nan, input_inf) | ...);
    }
    (std::make_index_sequence<std::tuple_size<R>::value>{});
  } else {
    return result_flags(r, input_nan, input_inf);
  }
}

}  // namespace fp

/// Per-operation classification: fpe bits that computing r from a... raises. The
/// primary template is the generic rule; an operation whose flags differ specializes
/// it with the same static member. (A plain specialization, not a detection idiom:
/// nvcc 13 evaluated a requires-expression on this to false in some instantiation
/// contexts, silently.)
template <class Op>
struct fp_rule {
  template <class R, class... A>
  __device__ static unsigned flags(const R& r, const A&... a) {
    return fp::generic(r, a...);
  }
};

/// Whether a fold of Op (reduce, accumulate) may leave its steps unclassified unless it ends
/// non-finite: true where every flag a step raises comes with a non-finite result and a
/// non-finite accumulator stays non-finite through the later steps (add: inf and NaN absorb), or
/// where a result is always one of the inputs (maximum, fmin, ...: nothing to raise). A fold that
/// ends finite then raised nothing; one that does not is folded again, classifying the same steps
/// in the same order, so the flags are those of classifying at once. Memory-bound folds then cost
/// one test per thread instead of one per element. The built-in operations that qualify
/// specialize it in ufuncs/src/device_fp_rules.hpp.
template <class Op>
struct flags_show_in_result : std::false_type {};

/// The rule of a 16-bit loop that Op computes on the 16-bit values themselves (nextafter,
/// spacing, the sign, comparison and extremum operations, bfloat16's floored division): the
/// generic rule on them, unless Op specializes it (ufuncs/src/device_fp_rules.hpp). Loops that
/// compute in float (ufunc::detail::half_in_float) keep the operation's own rule instead.
template <class Op>
struct half_rule {
  template <class R, class... A>
  __device__ static unsigned flags(const R& r, const A&... a) {
    return fp::generic(r, a...);
  }
};

template <class Op>
struct computes_in_float : std::false_type {};
template <class Op, class Sig>
struct computes_in_float<::ufunc::detail::half_in_float<Op, Sig>> : std::true_type {};

/// The fpe bits of one element.
template <class Op, class R, class... A>
__device__ __forceinline__ unsigned fp_flags_of(const R& r, const A&... a) {
  if constexpr ((::ufunc::detail::is_half<A> || ...) && !computes_in_float<Op>::value)
    return half_rule<Op>::flags(r, a...);
  else
    return fp_rule<Op>::flags(r, a...);
}

/// Adds `flags` to the call's slot. The tag word (device memory, hot in L2) keeps
/// the host slot, which costs a trip over the bus, to at most one store per new
/// kind: a kernel whose every element is NaN pays an L2 read per warp, no more. The
/// slot holds one byte per kind (fpe::kinds of them), each written (to 1) only by the thread whose
/// compare-and-swap added that kind: plain stores that cannot lose each other's
/// bits, where atomics on host memory would need the platform's native support.
__device__ __forceinline__ void report_fp(const device_fp_sink& s, unsigned flags) {
  if (flags == 0) return;
  unsigned long long old = *reinterpret_cast<volatile unsigned long long*>(s.tag);
  for (;;) {
    const unsigned have = (old >> 8) == s.seq ? static_cast<unsigned>(old & 0xffu) : 0u;
    if ((have | flags) == have) return;
    const unsigned long long want = (s.seq << 8) | have | flags;
    const unsigned long long seen = atomicCAS(s.tag, old, want);
    if (seen == old) {
      const unsigned added = flags & ~have;
      auto* bytes = reinterpret_cast<volatile unsigned char*>(s.flags);
      for (int kind = 0; kind < fpe::kinds; ++kind)
        if (added & (1u << kind)) bytes[kind] = 1;
      return;
    }
    old = seen;
  }
}

/// A warp's flags together, then one report: every lane of the warp must call it.
__device__ __forceinline__ void report_fp_warp(const device_fp_sink& s, unsigned flags) {
#if __CUDA_ARCH__ >= 800
  flags = __reduce_or_sync(0xffffffffu, flags);
#else
  for (int lane = 16; lane > 0; lane /= 2) flags |= __shfl_xor_sync(0xffffffffu, flags, lane);
#endif
  if ((threadIdx.x & 31u) == 0) report_fp(s, flags);
}

/// A float16 / bfloat16 loop computed in float (ufunc::detail::half_in_float): NumPy's flags are
/// the float computation's (the operation's own rule) and float16's rounding (overflow,
/// underflow); bfloat16's rounding raises none (ml_dtypes).
template <class Op, class R, class... A>
struct fp_rule<ufunc::detail::half_in_float<Op, R(A...)>> {
  template <class Result, class... In>
  __device__ static unsigned flags(const Result& r, const In&... a) {
    using ufunc::detail::widen;
    // A normal finite 16-bit result raised nothing (a flag comes with an infinite, nan or tiny
    // result): one integer test, which the warp nearly always passes together.
    if constexpr (!fp::several_outputs<R>::value)
      if (normal_finite(r)) return 0u;
    if constexpr (!std::is_default_constructible_v<Op>) {
      return fp::generic(r, a...);  // a user's functor with state: the generic rule on the 16-bit values
    } else {
      return flags_in_float(r, a...);
    }
  }

 private:
  template <class Result, class... In>
  __device__ static unsigned flags_in_float(const Result& r, const In&... a) {
    using ufunc::detail::widen;
    const auto wide = Op{}(widen(a)...);  // computed again: only where flags are gathered
    unsigned f = fp_rule<Op>::flags(wide, widen(a)...);
    if constexpr (fp::several_outputs<R>::value) {
      [&]<std::size_t... O>(std::index_sequence<O...>) {
        ((f |= rounding_flags<std::tuple_element_t<O, R>>(std::get<O>(wide), std::get<O>(r))), ...);
      }
      (std::make_index_sequence<std::tuple_size_v<R>>{});
    } else {
      f |= rounding_flags<R>(wide, r);
    }
    return f;
  }

  // float16's rounding of the float result (npy_floatbits_to_halfbits): overflow, underflow.
  template <class T, class W, class V>
  __device__ static unsigned rounding_flags(const W& wide, const V& r) {
    if constexpr (std::is_same_v<T, float16_t>) {
      const auto s = half_bits::narrowing_flags(static_cast<double>(wide), r.bits());
      return (s.overflow ? fpe::overflow : 0u) | (s.underflow ? fpe::underflow : 0u);
    } else {
      return 0u;
    }
  }

  template <class V>
  __device__ static bool normal_finite(const V& r) {
    if constexpr (::ufunc::detail::is_half<V>) {
      constexpr unsigned exponent = std::is_same_v<V, float16_t> ? 0x7c00u : 0x7f80u;
      const unsigned e = r.bits() & exponent;
      return e != 0 && e != exponent;
    } else {
      return false;  // a bool or integer result (comparisons, frexp's exponent): classified
    }
  }
};

}  // namespace ufunc::backends::cuda
