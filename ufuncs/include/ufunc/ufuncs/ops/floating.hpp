// Floating-point ufuncs: isfinite, isinf, isnan, signbit, copysign, nextafter,
// spacing, modf, frexp, ldexp, floor, ceil, trunc (NumPy 2 semantics).
#pragma once

#include <tuple>

#include <ufunc/ufuncs/ops/common.hpp>

namespace ufunc::ops {

// bool and integers are always finite; a complex number is nan or inf if either part is.
struct isfinite {
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
};
struct copysign {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return m::copysign(a, b);
  }
};
struct nextafter {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return m::nextafter(a, b);
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
