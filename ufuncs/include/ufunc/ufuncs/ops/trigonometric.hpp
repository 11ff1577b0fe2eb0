// Trigonometric and hyperbolic ufuncs: sin, cos, tan, arcsin, arccos, arctan, arctan2, hypot, sinh, cosh, tanh,
// arcsinh, arccosh, arctanh, degrees, radians, deg2rad, rad2deg (NumPy 2 semantics). All go to the libm, as
// in NumPy; the complex ones are the C99 functions, which NumPy takes from glibc on Linux and std::complex
// forwards to glibc too. Device code uses ops/complex_math.hpp's instead of libcu++'s, which differ from glibc.
#pragma once

#include <ufunc/ufuncs/ops/common.hpp>
#include <ufunc/ufuncs/ops/complex_math.hpp>

namespace ufunc::ops {

struct sin {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(sin, a) return m::sin(a);
  }
};
struct cos {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(cos, a) return m::cos(a);
  }
};
struct tan {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(tan, a) return m::tan(a);
  }
};
struct arcsin {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(asin, a) return m::asin(a);
  }
};
struct arccos {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(acos, a) return m::acos(a);
  }
};
struct arctan {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(atan, a) return m::atan(a);
  }
};
struct sinh {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(sinh, a) return m::sinh(a);
  }
};
struct cosh {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(cosh, a) return m::cosh(a);
  }
};
struct tanh {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(tanh, a) return m::tanh(a);
  }
};
struct arcsinh {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(asinh, a) return m::asinh(a);
  }
};
struct arccosh {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(acosh, a) return m::acosh(a);
  }
};
struct arctanh {
  template <inexact T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    UFUNC_DEVICE_CMATH(atanh, a) return m::atanh(a);
  }
};

struct arctan2 {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
    return m::atan2(a, b);
  }
};
struct hypot {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a, T b) const {
#if defined(__CUDACC__)
    return cmath::hypot(a, b);  // CUDA's hypot overflows to inf just below DBL_MAX; glibc's does not
#else
    return m::hypot(a, b);
#endif
  }
};

// npy_rad2deg and npy_deg2rad: the factor is 180/pi (or pi/180) evaluated in T, from pi rounded to T, which
// for float32 is one ulp off float(180/pi) computed in double.
namespace detail {
template <floating T>
inline constexpr T pi = T(3.141592653589793238462643383279502884);
}  // namespace detail

struct degrees {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return a * (T(180) / detail::pi<T>);
  }
};
struct radians {
  template <floating T>
  UFUNC_HOST_DEVICE T operator()(T a) const {
    return a * (detail::pi<T> / T(180));
  }
};
struct rad2deg : degrees {};
struct deg2rad : radians {};

}  // namespace ufunc::ops
