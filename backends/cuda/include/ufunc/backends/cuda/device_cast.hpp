// One element converted from one dtype to another on the device, with the values and the
// floating-point flags of the host target's cast loops (core/src/casting.cpp): the device
// casts (backends/cuda/src/casts.cu) and the casts inside fused kernels (generated at run
// time, compiled by NVRTC with this header) are this code.
//
//   using cast = ufunc::backends::cuda::convert_op<int, double>;   // device types
//   int r = cast{}(v);
//   unsigned flags = ufunc::backends::cuda::fp_flags_of<cast>(r, v); // fpe::invalid for NaN
#pragma once

#include <limits>
#include <type_traits>

#include <ufunc/backends/cuda/fp_flags.hpp>
#include <ufunc/core/detail/convert.hpp>

namespace ufunc::backends::cuda {

namespace cast_traits {

template <class T>
constexpr bool is_inexact_v =
    std::is_floating_point_v<T> || ufunc::detail::is_half<T> || ufunc::detail::is_complex<T>::value;

template <class T>
struct real_type {
  using type = T;
};
template <class T>
struct real_type<::cuda::std::complex<T>> {
  using type = T;
};

// The pairs whose conversion can raise a flag on the host: floats and complex to the
// integers (invalid), and from double precision to single (overflow, underflow). No
// other conversion raises one there (int64 to float32 included), so no other pair
// gathers flags. (Device types: complex is cuda::std::complex.)
template <class From, class To>
constexpr bool to_integer_v = is_inexact_v<From>&& std::is_integral_v<To> && !std::is_same_v<To, bool>;
template <class From, class To>
constexpr bool narrows_v = is_inexact_v<From>&& is_inexact_v<To> && sizeof(typename real_type<From>::type) == 8 &&
                           sizeof(typename real_type<To>::type) == 4;
// Rounding to float16 reports overflow and underflow in software (NumPy's
// npy_floatbits_to_halfbits); to bfloat16, a double is rounded to float first, with that
// rounding's flags (ml_dtypes' conversion; the bfloat16 rounding itself raises none).
template <class From, class To>
constexpr bool to_float16_v = std::is_same_v<To, float16_t> && !std::is_same_v<From, bool> && !std::is_same_v<From, To>;
template <class From, class To>
constexpr bool double_to_bfloat16_v = std::is_same_v<To, bfloat16_t>&& is_inexact_v<From> &&
                                      sizeof(typename real_type<From>::type) == 8;
template <class From, class To>
constexpr bool may_raise_v =
    to_integer_v<From, To> || narrows_v<From, To> || to_float16_v<From, To> || double_to_bfloat16_v<From, To>;

template <class T>
__device__ __forceinline__ double real_of(const T& v) {
  if constexpr (ufunc::detail::is_complex<T>::value)
    return static_cast<double>(v.real());
  else
    return static_cast<double>(v);
}

// What the host's conversion of a double to float raises (the device rounds the same
// way, to nearest even, keeping subnormals): overflow where a finite value becomes
// infinite; underflow where the result is inexact and tiny, with tininess detected
// after rounding as x86 does: a value within half a float ulp below the least normal float rounds to
// it with an unbounded exponent and does not underflow (the host agrees at
// FLT_MIN * (1 - 2^-24), which underflows, and FLT_MIN * (1 - 2^-25), which does not).
__device__ __forceinline__ unsigned narrowed(double v, float r) {
  constexpr double tiny = static_cast<double>(std::numeric_limits<float>::min()) * (1.0 - 1.0 / 33554432.0);
  if (::isinf(r)) return ::isinf(v) ? 0u : fpe::overflow;
  return static_cast<double>(r) != v && ::fabs(v) < tiny ? fpe::underflow : 0u;
}

}  // namespace cast_traits

/// From -> To (device types), as NumPy's x86 casts: see ufunc::detail::convert.
template <class To, class From>
struct convert_op {
  __device__ To operator()(From v) const {
    if constexpr (cast_traits::to_integer_v<From, To>) {
      const double d = cast_traits::real_of(v);
      if (ufunc::detail::invalid_int_cast<To>(d)) return ufunc::detail::invalid_int_result<To>(d);
    }
    return ufunc::detail::convert<To>(v);
  }
};

// Exactly the host's flags (the generic rule would also take NaN to an integer for a
// NaN result, which an integer cannot be).
template <class To, class From>
struct fp_rule<convert_op<To, From>> {
  template <class R, class A>
  __device__ static unsigned flags(const R& r, const A& v) {
    using namespace cast_traits;
    if constexpr (to_integer_v<From, To>) {
      return ufunc::detail::invalid_int_cast<To>(real_of(v)) ? fpe::invalid : 0u;
    } else if constexpr (narrows_v<From, To>) {
      unsigned f = narrowed(real_of(v), static_cast<float>(real_of(r)));
      if constexpr (ufunc::detail::is_complex<From>::value && ufunc::detail::is_complex<To>::value)
        f |= narrowed(static_cast<double>(v.imag()), static_cast<float>(r.imag()));
      return f;
    } else if constexpr (to_float16_v<From, To>) {
      const auto s = half_bits::narrowing_flags(real_of(v), r.bits());
      return (s.overflow ? fpe::overflow : 0u) | (s.underflow ? fpe::underflow : 0u);
    } else if constexpr (double_to_bfloat16_v<From, To>) {
      return narrowed(real_of(v), static_cast<float>(real_of(v)));
    } else {
      return 0u;
    }
  }
};

}  // namespace ufunc::backends::cuda
