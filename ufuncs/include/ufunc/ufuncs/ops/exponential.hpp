// Exponential and logarithmic ufuncs: exp, exp2, expm1, log, log2, log10, log1p (NumPy 2 semantics).
// Real arguments go to the libm, as in NumPy. The complex functions NumPy composes from real ones
// (funcs.inc.src: nc_exp2, nc_expm1, nc_log2, nc_log10, nc_log1p) are composed the same way here; exp and
// log are the C99 ones, which NumPy takes from glibc on Linux and std::complex forwards to glibc too
// (device code: ops/complex_math.hpp's, since libcu++'s differ from glibc).
#pragma once

#include <ufunc/ufuncs/ops/common.hpp>
#include <ufunc/ufuncs/ops/complex_math.hpp>

namespace ufunc::ops {

namespace detail {
// NumPy's NPY_LOGE2, NPY_LOG2E and NPY_LOG10E, rounded to T.
template <floating T>
inline constexpr T ln_2 = T(0.693147180559945309417232121458176568);
template <floating T>
inline constexpr T log2_e = T(1.442695040888963407359924681001892137);
template <floating T>
inline constexpr T log10_e = T(0.434294481903251827651128918916605082);

// clog and hypot: glibc's on the host, ops/complex_math.hpp's on the device.
template <complex_number T>
UFUNC_HOST_DEVICE T clog(T z) {
  UFUNC_DEVICE_CMATH(log, z) return m::log(z);
}
template <floating R>
UFUNC_HOST_DEVICE R abs_parts(R x, R y) {
#if defined(__CUDACC__)
  return cmath::hypot(x, y);
#else
  return m::hypot(x, y);
#endif
}

// NumPy scales each part by a real constant, not by a complex product (which would add 0 * inf = nan).
template <complex_number T>
UFUNC_HOST_DEVICE T scale_parts(T z, real_type_t<T> k) {
#if defined(__CUDACC__)
  // The GPU's product of a NaN is the canonical NaN; x86 keeps the operand's sign, which exp(-inf + nan i)
  // carries into the sign of its zero imaginary part.
  const auto scale = [k](real_type_t<T> v) { return m::isnan(v) ? v : v * k; };
  return T{scale(z.real()), scale(z.imag())};
#else
  return T{z.real() * k, z.imag() * k};
#endif
}
}  // namespace detail

struct exp {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(exp, a) return m::exp(a);
  }
};

struct exp2 {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return m::exp2(a);
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    const T z = detail::scale_parts(a, detail::ln_2<real_type_t<T>>);
    UFUNC_DEVICE_CMATH(exp, z) return m::exp(z);
  }
};

struct expm1 {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return m::expm1(a);
  }
  // cos(y) - 1 written as -2 sin^2(y/2) keeps the accuracy of expm1 for small z.
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    const auto x = a.real(), y = a.imag(), s = m::sin(y / 2);
    return T{m::expm1(x) * m::cos(y) - 2 * s * s, m::exp(x) * m::sin(y)};
  }
};

struct log {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(log, a) return m::log(a);
  }
};

struct log2 {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return m::log2(a);
  }
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return detail::scale_parts(detail::clog(a), detail::log2_e<real_type_t<T>>);
  }
};

struct log10 {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return m::log10(a);
  }
  // Not clog10: NumPy scales clog's result, which differs in the last bits.
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return detail::scale_parts(detail::clog(a), detail::log10_e<real_type_t<T>>);
  }
};

struct log1p {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return m::log1p(a);
  }
  // NumPy 2.4's nc_log1p: log|1 + z| + i arg(1 + z), with 1 + z rounded (inaccurate near -1 + e^it).
  template <complex_number T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    const auto x = a.real() + 1, y = a.imag();
    return T{m::log(detail::abs_parts(x, y)), m::atan2(y, x)};
  }
};

}  // namespace ufunc::ops
