// Floating-point ufuncs: isfinite, isinf, isnan, signbit, copysign, nextafter,
// spacing, modf, frexp, ldexp, floor, ceil, trunc (NumPy 2 semantics).
#pragma once

#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>

#include <ufunc/ufuncs/ops/common.hpp>

namespace ufunc::ops {

// bool and integers are always finite; a complex number is nan or inf if either part is.
struct isfinite {
  template <half_precision T>
  UFUNC_HOST_DEVICE bool operator()(T a) const {
    return (a.bits() & half_detail::exponent_mask<T>) != half_detail::exponent_mask<T>;
  }
  template <real T>
  UFUNC_HOST_DEVICE bool operator()(T a) const {
    if constexpr (floating<T>) return m::isfinite(a);
    return true;
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE bool operator()(T a) const {
    return (*this)(a.real()) && (*this)(a.imag());
  }
};
struct isinf {
  template <half_precision T>
  UFUNC_HOST_DEVICE bool operator()(T a) const {
    return half_detail::is_inf(a);
  }
  template <real T>
  UFUNC_HOST_DEVICE bool operator()(T a) const {
    if constexpr (floating<T>) return m::isinf(a);
    return false;
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE bool operator()(T a) const {
    return (*this)(a.real()) || (*this)(a.imag());
  }
};
struct isnan {
  template <half_precision T>
  UFUNC_HOST_DEVICE bool operator()(T a) const {
    return half_detail::is_nan(a);
  }
  template <real T>
  UFUNC_HOST_DEVICE bool operator()(T a) const {
    if constexpr (floating<T>) return m::isnan(a);
    return false;
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE bool operator()(T a) const {
    return (*this)(a.real()) || (*this)(a.imag());
  }
};

struct signbit {
  template <floating T>
  UFUNC_HOST_DEVICE bool operator()(T a) const {
    return m::signbit(a);
  }
  template <half_precision T>
  UFUNC_HOST_DEVICE bool operator()(T a) const {
    return (a.bits() & 0x8000u) != 0;
  }
};
struct copysign {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return m::copysign(a, b);
  }
  template <half_precision T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return half_detail::with_bits<T>((a.bits() & 0x7fffu) | (b.bits() & 0x8000u));
  }
};
// The 16-bit formats step in their own bits, never through float (where the next value is
// a float's, which rounds back to the start): float16 as NumPy 2.5's npy_half_nextafter (equal
// values give `b`, as C's nextafter: nextafter(0.0, -0.0) is -0.0; NumPy 2.4 gave `a`; a NaN
// gives 0x7e00), bfloat16 as ml_dtypes' NextAfter (equal values give `b`, a NaN gives 0x7fc0).
namespace half_detail {
template <half_precision T>
UFUNC_HOST_DEVICE T step_toward(T a, T b) {
  constexpr bool is_float16 = std::is_same_v<T, float16_t>;
  const float fa = static_cast<float>(a), fb = static_cast<float>(b);
  const std::uint16_t x = a.bits(), y = b.bits();
  if (fa != fa || fb != fb) return T::from_bits(is_float16 ? 0x7e00u : 0x7fc0u);
  if (fa == fb) return b;
  if (fa == 0.0f) return T::from_bits(static_cast<std::uint16_t>((y & 0x8000u) | 1u));
  // Away from zero where b lies beyond a on a's side, else toward it.
  const bool away = ((x ^ y) & 0x8000u) == 0 && (x & 0x7fffu) < (y & 0x7fffu);
  return T::from_bits(static_cast<std::uint16_t>(away ? x + 1u : x - 1u));
}
}  // namespace half_detail

struct nextafter {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return m::nextafter(a, b);
  }
  template <half_precision T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    const T r = half_detail::step_toward(a, b);
    if (std::is_same_v<T, float16_t> && half_detail::is_inf(r) && !half_detail::is_inf(a)) raise_fp(fp_flag::overflow);
    return r;
  }
};

// npy_spacing: the step to the next value away from zero (so negative for negative a), the smallest subnormal
// at either zero, nan at the infinities.
struct spacing {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    using lim = std::numeric_limits<T>;
    if (m::isinf(a)) return lim::quiet_NaN();
    if (a == T(0)) return lim::denorm_min();
    return m::nextafter(a, m::copysign(lim::infinity(), a)) - a;
  }
  // float16: npy_half_spacing, on the bits (its result is never negative, unlike the float
  // and double spacing). bfloat16: ml_dtypes' Spacing, nextafter toward the infinity of
  // a's sign minus a (exact in float; -0.0 gives the negative smallest subnormal, an
  // infinity NaN with invalid).
  template <half_precision T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    if constexpr (std::is_same_v<T, float16_t>) {
      const unsigned h = a.bits(), e = h & 0x7c00u, sig = h & 0x03ffu;
      if (e == 0x7c00u) {
        raise_fp(fp_flag::invalid);
        return half_detail::with_bits<T>(0x7e00u);
      }
      if (h == 0x7bffu) {
        raise_fp(fp_flag::overflow);
        return half_detail::with_bits<T>(0x7c00u);
      }
      if ((h & 0x8000u) && sig == 0)  // a negative power of two: the step below it
        return half_detail::with_bits<T>(e > 0x2c00u ? e - 0x2c00u : e > 0x0400u ? 1u << ((e >> 10) - 2) : 1u);
      return half_detail::with_bits<T>(e > 0x2800u ? e - 0x2800u : e > 0x0400u ? 1u << ((e >> 10) - 1) : 1u);
    } else {
      const T away =
          half_detail::step_toward(a, half_detail::with_bits<T>((a.bits() & 0x8000u) | half_detail::exponent_mask<T>));
      return T(static_cast<float>(away) - static_cast<float>(a));
    }
  }
};

// (fractional part, integral part), NumPy's output order.
struct modf {
  template <floating T>
  UFUNC_HOST_DEVICE std::tuple<T, T> operator()(T a) const {
    T i;
    T f = m::modf(a, &i);
    return {f, i};
  }
};

// (mantissa, exponent). The exponent of inf and nan is unspecified in C and CUDA; NumPy's is 0.
struct frexp {
  template <floating T>
  UFUNC_HOST_DEVICE std::tuple<T, std::int32_t> operator()(T a) const {
    int e = 0;
    T f = m::isfinite(a) ? m::frexp(a, &e) : a;
    return {f, std::int32_t(e)};
  }
};

// An int64 exponent outside the int range is clamped to it: the result is then 0 or inf anyway.
struct ldexp {
  template <floating T, signed_integer E>
  UFUNC_HOST_DEVICE T operator()(T a, E e) const {
    using lim = std::numeric_limits<int>;
    return m::ldexp(a, e > lim::max() ? lim::max() : e < lim::min() ? lim::min() : int(e));
  }
};

// bool and integers are their own floor, ceil and trunc.
struct floor {
  template <real T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    if constexpr (floating<T>) return m::floor(a);
    return a;
  }
};
struct ceil {
  template <real T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    if constexpr (floating<T>) return m::ceil(a);
    return a;
  }
};
struct trunc {
  template <real T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    if constexpr (floating<T>) return m::trunc(a);
    return a;
  }
};

}  // namespace ufunc::ops
